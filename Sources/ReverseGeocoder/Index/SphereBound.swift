#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Great-circle distances on the sphere of the mean Earth radius (6,371,008.8 m, IUGG; the radius of
/// `Coordinate.distance(to:)` and of the localities' `nearest_place` distances, so every distance a
/// placemark carries is on the same sphere), and a lower bound of the distance from a point to any point
/// of a longitude/latitude box, for the nearest-unit search.
///
/// The bound is the haversine formula with each term at its smallest over the box:
/// hav(θ) = hav(Δφ) + cos φ₁ · cos φ₂ · hav(Δλ), every term ≥ 0, so the sum over any point of the box is
/// at least hav(smallest |Δφ|) + cos φ₁ · (smallest cos φ₂ over the box) · hav(smallest |Δλ|). The
/// smallest |Δλ| is taken around the circle (a box east of 180° and a point west of it are neighbours),
/// and cos φ₂ is smallest at one of the box's two latitudes (cos is concave on ±90°): this is what makes
/// a box near the pole, whose degrees of longitude are short, count as near.
struct SphereBound {
    static let radius = 6_371_008.8

    /// The query point, degrees.
    let x: Double, y: Double
    private let cosY: Double

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
        cosY = cos(y * .pi / 180)
    }

    /// Metres from the point to the nearest point of `box`, at most (a lower bound); 0 inside it.
    func metres(to box: Box) -> Double {
        let dLat = max(0, box.minY - y, y - box.maxY)
        let dLon = Self.longitudeGap(x, box)
        if dLat == 0 && dLon == 0 { return 0 }
        let cosMin = max(0, min(cos(box.minY * .pi / 180), cos(box.maxY * .pi / 180)))
        let a = sin(dLat * .pi / 360), b = sin(dLon * .pi / 360)
        let h = a * a + cosY * cosMin * b * b
        return 2 * Self.radius * asin(min(1, h.squareRoot()))
    }

    /// The smallest longitude difference (degrees, 0...180) between `x` and any longitude of the box,
    /// around the circle.
    static func longitudeGap(_ x: Double, _ box: Box) -> Double {
        if box.maxX - box.minX >= 360 { return 0 }
        var best = 180.0
        for shift in [-360.0, 0, 360] {
            let v = x + shift
            if v >= box.minX && v <= box.maxX { return 0 }
            best = min(best, abs(box.minX - v), abs(v - box.maxX))
        }
        return best
    }

    /// The shift (−360, 0 or +360) that brings `x` nearest to the box in longitude: the frame in which a
    /// polygon with that box is compared to the point.
    static func shift(_ x: Double, toward box: Box) -> Double {
        var best = 0.0, gap = Double.infinity
        for shift in [0.0, -360, 360] {
            let v = x + shift
            let g = v < box.minX ? box.minX - v : v > box.maxX ? v - box.maxX : 0
            if g < gap { (best, gap) = (shift, g) }
        }
        return best
    }

    /// Great-circle metres between two points in degrees (x longitude, y latitude); the haversine formula.
    static func metres(x1: Double, y1: Double, x2: Double, y2: Double) -> Double {
        let φ1 = y1 * .pi / 180, φ2 = y2 * .pi / 180
        let a = sin((φ2 - φ1) / 2), b = sin((x2 - x1) * .pi / 360)
        let h = a * a + cos(φ1) * cos(φ2) * b * b
        return 2 * radius * asin(min(1, h.squareRoot()))
    }
}
