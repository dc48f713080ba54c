#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The coast fallback's measure of one polygon edge: the point of the edge nearest the query in a local
/// frame where a degree of longitude is as long as at the query's latitude, and the great-circle metres
/// (``SphereBound``) from the query to that point.
///
/// Why a local frame: in plain degrees a degree of longitude is `cos(latitude)` times shorter on the
/// ground than a degree of latitude, so the point nearest in degrees is not the nearest on the ground.
/// Scaling x by `cos(latitude)` about the query is an affine map: the edge stays straight, so the point
/// found, mapped back, lies on the edge itself, and its distance is a distance to a real point of the
/// unit: above the true shortest distance by at most the frame's distortion (second order in the
/// distance), never below it. This is the arithmetic GEOS's `GEOSNearestPoints_r` does on a segment
/// (projection factor clamped to the segment), so the point is the one the GEOS measure
/// (the tests' `NearestPoint`, Tests/ReverseGeocoderTests/Support) finds on the same edge, bit for bit in the tests.
struct LocalFrame {
    /// The query point in the frame's own degrees (x already moved by ±360° toward the edges measured).
    let x0: Double, y0: Double
    /// Ground length of a degree of longitude relative to one of latitude at `y0`.
    let scale: Double

    init(x0: Double, y0: Double, scale: Double) {
        self.x0 = x0
        self.y0 = y0
        self.scale = scale
    }

    /// The frame's scale at latitude `y`. Never 0: a query at a pole still gets a frame (x then barely
    /// matters, as on the ground).
    static func scale(latitude y: Double) -> Double { max(cos(y * .pi / 180), 1e-6) }

    /// Metres from the query to the point of the edge (ax, ay)–(bx, by) nearest it in the frame.
    @inline(__always)
    func metres(ax: Double, ay: Double, bx: Double, by: Double) -> Double {
        let px = (ax - x0) * scale, py = ay - y0
        let qx = (bx - x0) * scale, qy = by - y0
        let dx = qx - px, dy = qy - py
        let length2 = dx * dx + dy * dy
        var nx = px, ny = py
        if length2 > 0 {
            // The projection factor of the origin on the edge (GEOS's LineSegment::projectionFactor).
            let r = ((0 - px) * dx + (0 - py) * dy) / length2
            if r >= 1 {
                nx = qx; ny = qy
            } else if r > 0 {
                nx = px + r * dx; ny = py + r * dy
            }
        }
        return SphereBound.metres(x1: x0, y1: y0, x2: nx / scale + x0, y2: ny + y0)
    }
}
