import CGEOS
@testable import ReverseGeocoder
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The point of a polygon's rings nearest to a query point outside it, found by GEOS
/// (`GEOSNearestPoints_r`) in a local frame where a degree of longitude is as long as it is at the
/// query's latitude.
///
/// A test oracle, not on the query path: the coast fallback measures edges itself (`LocalFrame`, the
/// same arithmetic on one segment, without building GEOS geometries for every candidate polygon), and
/// EdgeChunksTests hold that measure to this one. It was the fallback's own measure before.
///
/// Why a local frame: in plain longitude/latitude a degree of longitude is `cos(latitude)` times shorter
/// on the ground than a degree of latitude, so the nearest point in degrees is not the nearest on the
/// ground (at Tromsø, 69.6° N, a coast 5 km east is 0.13° away, one 10 km north 0.09°). Scaling x by
/// `cos(latitude)` about the query point is an affine map: the polygon's straight edges stay straight,
/// so the point GEOS returns, mapped back, lies on the polygon itself. Its great-circle distance from the
/// query is therefore a distance to a real point of the unit: it may exceed the true shortest distance
/// by the frame's distortion (second order in the distance), never fall short of it.
///
/// Why rings, not the polygon: the fallback only asks about points outside every polygon, where the
/// distance to a polygon is the distance to its rings; and only the edges that can be within reach are
/// handed to GEOS (a test of a few comparisons per edge, see ``EdgeReach``), so a country of 50,000
/// vertices costs GEOS the dozen edges of its nearby coast, and a polygon with none in reach costs GEOS
/// nothing.
enum NearestPoint {
    /// The nearest point of polygon `part`'s rings to (x, y), in the polygon's own degrees, or nil when no
    /// edge of it comes within `reach`. `shift` (±360 or 0) is added to x first, so a query west of 180°
    /// meets a polygon stored east of it in one frame; the result is in the polygon's frame.
    ///
    /// Fails when GEOS does (geometry it cannot build, an exception in the distance).
    static func onRings(_ part: Int, of store: PolygonStore, x: Double, y: Double, shift: Double,
                        reach: EdgeReach, context: GEOSContext) throws(GEOSError) -> PlanarPoint? {
        let x0 = x + shift, y0 = y
        // Never 0: a query at a pole still gets a frame (x then barely matters, as on the ground).
        let scale = max(cos(y0 * .pi / 180), 1e-6)
        let ctx = context.handle
        var lines: [OpaquePointer?] = []
        defer { for l in lines { GEOSGeom_destroy_r(ctx, l) } }
        var run: [Double] = []
        func flush() throws(GEOSError) {
            defer { run.removeAll(keepingCapacity: true) }
            guard run.count >= 4 else { return }
            guard let seq = GEOSCoordSeq_copyFromBuffer_r(ctx, run, UInt32(run.count / 2), 0, 0) else {
                throw context.error("creating a coordinate sequence")
            }
            guard let line = GEOSGeom_createLineString_r(ctx, seq) else { throw context.error("creating a line") }
            lines.append(line)
        }
        let v = store.vertices
        for ring in Int(store.partRings[part])..<Int(store.partRings[part + 1]) {
            let first = Int(store.ringStart[ring]), end = Int(store.ringStart[ring + 1])
            var k = first
            while k + 1 < end {
                let ax = v[2 * k], ay = v[2 * k + 1], bx = v[2 * k + 2], by = v[2 * k + 3]
                if reach.mayReach(x0: x0, y0: y0, ax: ax, ay: ay, bx: bx, by: by) {
                    if run.isEmpty { run += [(ax - x0) * scale, ay - y0] }
                    run += [(bx - x0) * scale, by - y0]
                } else {
                    try flush()
                }
                k += 1
            }
            try flush()
        }
        guard !lines.isEmpty else { return nil }
        let collection = lines.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(ctx, Int32(GEOS_MULTILINESTRING.rawValue), $0.baseAddress, UInt32($0.count))
        }
        guard let collection else { throw context.error("creating a multilinestring") }
        lines.removeAll()  // the collection owns them now
        defer { GEOSGeom_destroy_r(ctx, collection) }
        guard let origin = GEOSGeom_createPointFromXY_r(ctx, 0, 0) else { throw context.error("creating a query point") }
        defer { GEOSGeom_destroy_r(ctx, origin) }
        // The first point of the pair lies on the first geometry (the rings).
        guard let pair = GEOSNearestPoints_r(ctx, collection, origin) else { throw context.error("nearest points") }
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
