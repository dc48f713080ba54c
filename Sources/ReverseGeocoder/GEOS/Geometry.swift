import CGEOS

/// Owns one GEOS geometry; `deinit` frees it.
///
/// After loading, a `Geometry` is only read (envelopes are computed when GEOS builds the geometry, so
/// reading it from several threads, each with its own context, touches no shared mutable state).
/// That is why it may cross threads (`@unchecked Sendable`).
final class Geometry: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The context that created it; kept alive so `deinit` can free with it.
    private let context: GEOSContext

    init(_ pointer: OpaquePointer, context: GEOSContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    /// Builds a polygon from closed rings stored flat: interleaved x, y `vertices`, ring r being vertices
    /// `ringBounds[r] ..< ringBounds[r + 1]` (vertex numbers), the first ring the shell.
    ///
    /// The one way the engine makes a polygon: the loader (a shapefile record's assembled rings) and
    /// `PolygonStore` (rebuilding a polygon from the index's flat arrays on a thread's first need) both
    /// come here, so what the index stores is exactly what GEOS was given.
    static func polygon(vertices: UnsafePointer<Double>, ringBounds: UnsafeBufferPointer<UInt32>,
                        context: GEOSContext) throws(GEOSError) -> Geometry {
        let ctx = context.handle
        let ringCount = ringBounds.count - 1
        guard ringCount >= 1 else { throw GEOSError(operation: "creating a polygon", message: "no rings") }
        func ring(_ r: Int) throws(GEOSError) -> OpaquePointer {
            let first = Int(ringBounds[r]), n = Int(ringBounds[r + 1]) - first
            guard let seq = GEOSCoordSeq_copyFromBuffer_r(ctx, vertices + 2 * first, UInt32(n), 0, 0) else {
                throw context.error("creating a coordinate sequence")
            }
            // GEOS takes the sequence over, also when it fails.
            guard let ring = GEOSGeom_createLinearRing_r(ctx, seq) else { throw context.error("creating a linear ring") }
            return ring
        }
        let shell = try ring(0)
        var holes: [OpaquePointer?] = []
        holes.reserveCapacity(ringCount - 1)
        do {
            for r in 1..<ringCount { holes.append(try ring(r)) }
        } catch {
            GEOSGeom_destroy_r(ctx, shell)
            for h in holes { GEOSGeom_destroy_r(ctx, h) }
            throw error
        }
        let polygon = holes.withUnsafeMutableBufferPointer {
            GEOSGeom_createPolygon_r(ctx, shell, $0.baseAddress, UInt32($0.count))
        }
        guard let polygon else { throw context.error("creating a polygon") }
        return Geometry(polygon, context: context)
    }

    /// Builds a polygon from closed rings of interleaved x, y values (shell first): flattens them and
    /// builds through ``polygon(vertices:ringBounds:context:)``.
    static func polygon(rings: [[Double]], context: GEOSContext) throws(GEOSError) -> Geometry {
        var xy: [Double] = [], bounds: [UInt32] = [0]
        xy.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        for r in rings {
            xy += r
            bounds.append(UInt32(xy.count / 2))
        }
        return try xy.withUnsafeBufferPointer { (v) throws(GEOSError) -> Geometry in
            guard let base = v.baseAddress else { throw GEOSError(operation: "creating a polygon", message: "no vertices") }
            return try bounds.withUnsafeBufferPointer { (b) throws(GEOSError) -> Geometry in
                try polygon(vertices: base, ringBounds: b, context: context)
            }
        }
    }

    /// Parses WKT (used by tests and presets).
    static func wkt(_ text: String, context: GEOSContext) throws(GEOSError) -> Geometry {
        guard let reader = GEOSWKTReader_create_r(context.handle) else { throw context.error("WKT reader") }
        defer { GEOSWKTReader_destroy_r(context.handle, reader) }
        guard let g = GEOSWKTReader_read_r(context.handle, reader, text) else {
            throw context.error("reading WKT")
        }
        return Geometry(g, context: context)
    }

    var isValid: Bool { GEOSisValid_r(context.handle, pointer) == 1 }

    /// Why GEOS finds the geometry invalid (for load statistics).
    var invalidReason: String {
        guard let s = GEOSisValidReason_r(context.handle, pointer) else { return "unknown" }
        defer { GEOSFree_r(context.handle, s) }
        return String(cString: s)
    }

    /// Repairs an invalid polygon (`GEOSMakeValid` with the STRUCTURE method, collapsed parts dropped)
    /// and returns its polygons. A bow-tie becomes two triangles; slivers that collapse to lines vanish.
    func madeValidPolygons() throws(GEOSError) -> [Geometry] {
        let ctx = context.handle
        guard let params = GEOSMakeValidParams_create_r(ctx) else { throw context.error("MakeValid params") }
        defer { GEOSMakeValidParams_destroy_r(ctx, params) }
        GEOSMakeValidParams_setMethod_r(ctx, params, GEOS_MAKE_VALID_STRUCTURE)
        GEOSMakeValidParams_setKeepCollapsed_r(ctx, params, 0)
        guard let fixed = GEOSMakeValidWithParams_r(ctx, pointer, params) else {
            throw context.error("repairing an invalid polygon")
        }
        return Geometry(fixed, context: context).polygons()
    }

    /// The polygons in this geometry (itself if a polygon; the polygon members of a collection), cloned
    /// so each is owned separately.
    func polygons() -> [Geometry] {
        let ctx = context.handle
        switch GEOSGeomTypeId_r(ctx, pointer) {
        case Int32(GEOS_POLYGON.rawValue):
            return GEOSisEmpty_r(ctx, pointer) == 1 ? [] : [Geometry(GEOSGeom_clone_r(ctx, pointer), context: context)]
        case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
            var result: [Geometry] = []
            for i in 0..<GEOSGetNumGeometries_r(ctx, pointer) {
                guard let part = GEOSGetGeometryN_r(ctx, pointer, i) else { continue }
                result += Geometry(GEOSGeom_clone_r(ctx, part), context: context).polygons()
            }
            return result
        default:
            return []
        }
    }

    /// Bounding box.
    var envelope: Box {
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        GEOSGeom_getXMin_r(context.handle, pointer, &minX)
        GEOSGeom_getYMin_r(context.handle, pointer, &minY)
        GEOSGeom_getXMax_r(context.handle, pointer, &maxX)
        GEOSGeom_getYMax_r(context.handle, pointer, &maxY)
        return Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    var area: Double {
        var a = 0.0
        GEOSArea_r(context.handle, pointer, &a)
        return a
    }

    /// Number of vertices (for load statistics).
    var vertexCount: Int { Int(GEOSGetNumCoordinates_r(context.handle, pointer)) }

    /// The vertex counts of a polygon's rings, shell first (empty for anything but a polygon): what
    /// ``copyRing(_:into:)`` writes, so a caller can size one buffer for all of a layer's rings.
    func ringVertexCounts() -> [Int] {
        let ctx = context.handle
        guard GEOSGeomTypeId_r(ctx, pointer) == Int32(GEOS_POLYGON.rawValue) else { return [] }
        return (0...max(0, Int(GEOSGetNumInteriorRings_r(ctx, pointer)))).map { Self.count(ring(at: $0), ctx) }
    }

    /// Copies ring `index`'s vertices (0 the shell, then the holes), interleaved x, y, into `buffer`, which
    /// holds exactly twice its ``ringVertexCounts()`` entry: written where they stay, with no array between.
    func copyRing(_ index: Int, into buffer: UnsafeMutableBufferPointer<Double>) {
        let ctx = context.handle
        guard let ring = ring(at: index), let seq = GEOSGeom_getCoordSeq_r(ctx, ring), !buffer.isEmpty else { return }
        precondition(buffer.count == 2 * Self.count(ring, ctx), "a ring's buffer must hold its vertices exactly")
        _ = GEOSCoordSeq_copyToBuffer_r(ctx, seq, buffer.baseAddress, 0, 0)
    }

    private func ring(at index: Int) -> OpaquePointer? {
        index == 0 ? GEOSGetExteriorRing_r(context.handle, pointer) : GEOSGetInteriorRingN_r(context.handle, pointer, Int32(index - 1))
    }

    private static func count(_ ring: OpaquePointer?, _ ctx: GEOSContextHandle_t) -> Int {
        guard let ring, let seq = GEOSGeom_getCoordSeq_r(ctx, ring) else { return 0 }
        var n: UInt32 = 0
        GEOSCoordSeq_getSize_r(ctx, seq, &n)
        return Int(n)
    }

    /// A point guaranteed to lie inside (GEOS `PointOnSurface`), for linking a unit to its parent layer.
    func pointOnSurface() -> (Double, Double)? {
        let ctx = context.handle
        guard let p = GEOSPointOnSurface_r(ctx, pointer) else { return nil }
        defer { GEOSGeom_destroy_r(ctx, p) }
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(ctx, p, &x) == 1, GEOSGeomGetY_r(ctx, p, &y) == 1 else { return nil }
        return (x, y)
    }
}
