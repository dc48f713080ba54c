import CGEOS

/// A GEOS prepared geometry owned by one thread's context.
///
/// Prepared geometries build their point-in-area index lazily on first use, which is not thread-safe,
/// so they are never shared: each `QueryContext` prepares its own from the shared base `Geometry`.
final class PreparedGeometry {
    let pointer: OpaquePointer
    private let context: GEOSContext
    /// The base geometry must outlive the prepared one (GEOS keeps a pointer to it).
    private let base: Geometry

    init(_ base: Geometry, context: GEOSContext) {
        guard let p = GEOSPrepare_r(context.handle, base.pointer) else {
            // Only fails on allocation failure.
            fatalError("GEOSPrepare_r failed: \(context.error("prepare"))")
        }
        pointer = p
        self.context = context
        self.base = base
    }

    deinit {
        GEOSPreparedGeom_destroy_r(context.handle, pointer)
    }

    /// True when the point lies in the interior (not on the boundary).
    @inline(__always)
    func containsProperly(_ point: OpaquePointer) -> Bool {
        GEOSPreparedContainsProperly_r(context.handle, pointer, point) == 1
    }

    /// True when the point lies in the interior or on the boundary.
    @inline(__always)
    func covers(_ point: OpaquePointer) -> Bool {
        GEOSPreparedIntersects_r(context.handle, pointer, point) == 1
    }
}
