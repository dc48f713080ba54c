import CGEOS

/// A reusable GEOS point for the predicates (GEOS 3.11 has no prepared contains-XY, so a query asks
/// with a point geometry). Kept and reused while the next query asks about the same position: the
/// R-tree path tests several candidates with one point, and a caller often repeats a position.
/// Owned by one thread's `QueryContext`; freed with it.
final class QueryPoint {
    /// A GEOS point valid until the owning `QueryPoint` moves or is freed.
    struct Handle {
        fileprivate(set) var pointer: OpaquePointer
    }

    private let context: GEOSContext
    private var x = Double.nan, y = Double.nan
    private var geometry: OpaquePointer?

    init(context: GEOSContext) {
        self.context = context
    }

    deinit {
        if let geometry { GEOSGeom_destroy_r(context.handle, geometry) }
    }

    /// The point at (x, y), made anew only when the position changed.
    func at(x: Double, y: Double) throws(GEOSError) -> Handle {
        if self.x == x && self.y == y, let geometry { return Handle(pointer: geometry) }
        if let geometry { GEOSGeom_destroy_r(context.handle, geometry) }
        geometry = nil
        guard let g = GEOSGeom_createPointFromXY_r(context.handle, x, y) else {
            throw context.error("creating a query point")
        }
        (self.x, self.y, geometry) = (x, y, g)
        return Handle(pointer: g)
    }
}
