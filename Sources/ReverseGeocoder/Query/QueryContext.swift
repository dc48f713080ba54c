import CGEOS

/// Everything one thread needs to query: its own GEOS context, its own prepared geometries (built lazily,
/// never shared: GEOS builds their indexes on first use without locking), reusable query points, and
/// scratch buffers. Owned by the geocoder's ``ContextRegistry``; used only by the thread it belongs to.
final class QueryContext {
    let geos = GEOSContext()
    private var preparedCache: [PreparedGeometry?]
    var candidates: [Int32] = []
    var keyed: [Int] = []
    /// GEOS 3.11 has no prepared contains-XY, so a point geometry per query; kept for reuse when the
    /// next query asks about the same position (two slots: the point and its +360° twin).
    private var points: [(x: Double, y: Double, geometry: OpaquePointer?)] = [(.nan, .nan, nil), (.nan, .nan, nil)]

    init(partCount: Int) {
        preparedCache = Array(repeating: nil, count: partCount)
    }

    deinit {
        preparedCache.removeAll()
        for p in points { if let g = p.geometry { GEOSGeom_destroy_r(geos.handle, g) } }
    }

    /// The prepared geometry in `slot`, made on first use from the geometry `make` builds with this
    /// thread's context.
    @inline(__always)
    func prepared(_ slot: Int, _ make: (GEOSContext) -> Geometry) -> PreparedGeometry {
        if let p = preparedCache[slot] { return p }
        let p = PreparedGeometry(make(geos), context: geos)
        preparedCache[slot] = p
        return p
    }

    /// A GEOS point at (x, y), reused while the position stays the same.
    func point(x: Double, y: Double, slot: Int = 0) -> OpaquePointer {
        if points[slot].x == x && points[slot].y == y, let g = points[slot].geometry { return g }
        if let g = points[slot].geometry { GEOSGeom_destroy_r(geos.handle, g) }
        guard let g = GEOSGeom_createPointFromXY_r(geos.handle, x, y) else {
            fatalError("GEOS could not create a point (out of memory)")
        }
        points[slot] = (x, y, g)
        return g
    }
}
