#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which edges can come within `metres` of a query point: a conservative test in plain degrees (a few
/// comparisons per edge, no trigonometry), so the nearest-point search hands GEOS only the edges near
/// the point.
///
/// It never drops an edge that has a point within reach: on the sphere the central angle between two
/// points is at least their latitude difference, so an edge whose latitudes all differ from the point's
/// by more than `metres / R` is out of reach; and haversine gives hav(θ) ≥ cos φ₁ · cos φ₂ · hav(Δλ),
/// where for every point within that latitude band cos φ₂ ≥ cos(|φ₁| + band), which bounds Δλ. Near a
/// pole the bound on Δλ opens up to every longitude.
struct EdgeReach {
    /// Degrees of latitude and longitude beyond which nothing is within reach.
    let latitudeDegrees: Double, longitudeDegrees: Double

    init(metres: Double, latitude y: Double) {
        let angle = metres / SphereBound.radius  // radians
        latitudeDegrees = angle * 180 / .pi * (1 + 1e-9) + 1e-12
        let farthest = min(90, abs(y) + latitudeDegrees)
        let c = cos(abs(y) * .pi / 180) * cos(farthest * .pi / 180)
        let s = sin(angle / 2)
        if c <= 0 || s * s >= c {
            longitudeDegrees = 360
        } else {
            longitudeDegrees = min(360, 2 * asin((s * s / c).squareRoot()) * 180 / .pi * (1 + 1e-9) + 1e-12)
        }
    }

    /// Whether the box may have a point within reach of (x0, y0): the edge test's bounds on a box (the
    /// same proof: a point of the box outside the latitude band, or inside it but farther in longitude
    /// around the circle than the band allows, is out of reach). Comparisons only, so the nearest-unit
    /// search rejects most boxes before it computes their ``SphereBound``.
    @inline(__always)
    func mayReach(x0: Double, y0: Double, box: Box) -> Bool {
        if box.minY > y0 + latitudeDegrees || box.maxY < y0 - latitudeDegrees { return false }
        if longitudeDegrees >= 180 { return true }
        return SphereBound.longitudeGap(x0, box) <= longitudeDegrees
    }

    /// Whether the edge from (ax, ay) to (bx, by) may have a point within reach of (x0, y0). Longitude
    /// differences are taken around the circle.
    @inline(__always)
    func mayReach(x0: Double, y0: Double, ax: Double, ay: Double, bx: Double, by: Double) -> Bool {
        if min(ay, by) > y0 + latitudeDegrees || max(ay, by) < y0 - latitudeDegrees { return false }
        if longitudeDegrees >= 180 { return true }
        let lo = min(ax, bx), hi = max(ax, bx)
        if hi - lo >= 180 { return true }  // a long edge: let GEOS measure it
        for shift in [0.0, 360, -360] {
            let x = x0 + shift
            if x >= lo - longitudeDegrees && x <= hi + longitudeDegrees { return true }
        }
        return false
    }
}
