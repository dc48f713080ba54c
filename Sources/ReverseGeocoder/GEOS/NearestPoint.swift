import CGEOS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The point of a polygon nearest to a query point, found by GEOS (`GEOSNearestPoints_r`) in a local
/// frame where a degree of longitude is as long as it is at the query's latitude.
///
/// Why a local frame: in plain longitude/latitude a degree of longitude is `cos(latitude)` times shorter
/// on the ground than a degree of latitude, so the nearest point in degrees is not the nearest on the
/// ground (at Tromsø, 69.6° N, a coast 5 km east is 0.13° away, one 10 km north 0.09°). Scaling x by
/// `cos(latitude)` about the query point is an affine map: the polygon's straight edges stay straight,
/// so the point GEOS returns, mapped back, lies on the polygon itself. Its great-circle distance from the
/// query is therefore a distance to a real point of the unit: it may exceed the true shortest distance
/// by the frame's distortion (second order in the distance), never fall short of it.
enum NearestPoint {
    /// The nearest point of polygon `part` of `store` to (x, y), in the polygon's own degrees. `shift` (±360
    /// or 0) is added to x first, so a query west of 180° meets a polygon stored east of it in one frame;
    /// the result is in the polygon's frame (may be east of 180°).
    ///
    /// Fails when GEOS does (a polygon it cannot build, an exception in the distance).
    static func onPolygon(_ part: Int, of store: PolygonStore, x: Double, y: Double, shift: Double,
                          context: GEOSContext) throws(GEOSError) -> PlanarPoint {
        let x0 = x + shift, y0 = y
        // Never 0: a query at a pole still gets a frame (x then barely matters, as on the ground).
        let scale = max(cos(y0 * .pi / 180), 1e-6)
        // The polygon's vertices in the local frame: x' = (x - x0) · cos(y0), y' = y - y0.
        let firstRing = Int(store.partRings[part]), lastRing = Int(store.partRings[part + 1])
        let first = Int(store.ringStart[firstRing]), end = Int(store.ringStart[lastRing])
        let local = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, 2 * (end - first)))
        defer { local.deallocate() }
        for v in first..<end {
            local[2 * (v - first)] = (store.vertices[2 * v] - x0) * scale
            local[2 * (v - first) + 1] = store.vertices[2 * v + 1] - y0
        }
        var bounds = [UInt32]()
        bounds.reserveCapacity(lastRing - firstRing + 1)
        for r in firstRing...lastRing { bounds.append(store.ringStart[r] - UInt32(first)) }
        let polygon = try bounds.withUnsafeBufferPointer { (b) throws(GEOSError) -> Geometry in
            try Geometry.polygon(vertices: UnsafePointer(local.baseAddress!), ringBounds: b, context: context)
        }
        let ctx = context.handle
        guard let origin = GEOSGeom_createPointFromXY_r(ctx, 0, 0) else { throw context.error("creating a query point") }
        defer { GEOSGeom_destroy_r(ctx, origin) }
        // The first point of the pair lies on the first geometry (the polygon).
        guard let pair = GEOSNearestPoints_r(ctx, polygon.pointer, origin) else { throw context.error("nearest points") }
        defer { GEOSCoordSeq_destroy_r(ctx, pair) }
        var px = 0.0, py = 0.0
        guard GEOSCoordSeq_getXY_r(ctx, pair, 0, &px, &py) == 1 else { throw context.error("reading the nearest point") }
        return PlanarPoint(x: px / scale + x0, y: py + y0)
    }
}

/// A point in a dataset's degrees (x longitude, y latitude; x may be east of 180° for a wrapped unit).
struct PlanarPoint: Equatable, Sendable {
    var x: Double, y: Double
}
