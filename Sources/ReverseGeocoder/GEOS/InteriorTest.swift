/// One build worker's exact interior test of a layer's polygons: its own GEOS context, reusable query
/// point and prepared geometries (made on first use), since none of them may be shared between threads.
///
/// The cell builder asks a yes/no question; the first GEOS failure is kept in ``failure``, answers "no"
/// to let the builder finish, and is thrown by the caller once it has: the half-built index is dropped.
/// @unchecked Sendable: handed to a worker, used by that worker alone, read after the workers joined.
final class InteriorTest: @unchecked Sendable {
    private let store: PolygonStore
    private let context: GEOSContext
    private let point: QueryPoint
    private var prepared: [PreparedGeometry?]
    private(set) var failure: GEOSError?

    init(store: PolygonStore) throws(GEOSError) {
        self.store = store
        context = try GEOSContext()
        point = QueryPoint(context: context)
        prepared = [PreparedGeometry?](repeating: nil, count: store.count)
    }

    /// Whether polygon p's interior holds (x, y), by GEOS (prepared `containsProperly`).
    func containsProperly(_ p: Int, _ x: Double, _ y: Double) -> Bool {
        guard failure == nil else { return false }
        do throws(GEOSError) {
            if prepared[p] == nil { prepared[p] = try PreparedGeometry(store.geometry(p, context: context), context: context) }
            return try prepared[p]!.containsProperly(point.at(x: x, y: y))
        } catch {
            failure = error
            return false
        }
    }
}
