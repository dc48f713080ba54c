import CGEOS

/// A GEOS prepared geometry owned by one thread's context.
///
/// Prepared geometries build their point-in-area index lazily on first use, which is not thread-safe,
/// so they are never shared: each `QueryContext` prepares its own from the shared base `Geometry`.
///
/// The predicates return GEOS's 1 (true) or 0 (false); anything else is GEOS's exception value (2) and
/// becomes a ``GEOSError`` carrying the message of the context's error handler. It must not read as
/// "outside": that would silently answer a point with the wrong unit, or with none.
final class PreparedGeometry {
    let pointer: OpaquePointer
    private let context: GEOSContext
    /// The base geometry must outlive the prepared one (GEOS keeps a pointer to it).
    private let base: Geometry

    init(_ base: Geometry, context: GEOSContext) throws(GEOSError) {
        guard let p = GEOSPrepare_r(context.handle, base.pointer) else { throw context.error("preparing a geometry") }
        pointer = p
        self.context = context
        self.base = base
    }

    deinit {
        GEOSPreparedGeom_destroy_r(context.handle, pointer)
    }

    /// True when the point lies in the interior (not on the boundary).
    @inline(__always)
    func containsProperly(_ point: QueryPoint.Handle) throws(GEOSError) -> Bool {
        let r = GEOSPreparedContainsProperly_r(context.handle, pointer, point.pointer)
        if r == 0 { return false }
        if r == 1 { return true }
        throw context.error("prepared containsProperly")
    }

    /// True when the point lies in the interior or on the boundary.
    @inline(__always)
    func covers(_ point: QueryPoint.Handle) throws(GEOSError) -> Bool {
        let r = GEOSPreparedIntersects_r(context.handle, pointer, point.pointer)
        if r == 0 { return false }
        if r == 1 { return true }
        throw context.error("prepared intersects")
    }
}
