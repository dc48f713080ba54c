import Foundation
import GeoModel

/// Spherical-earth geometry for simulated movement, on the same sphere as `Coordinate.distance(to:)`
/// (mean radius 6,371,008.8 m), so a point placed `d` metres along a path measures `d` metres back.
enum GreatCircle {
    static let earthRadius = 6_371_008.8

    /// The point a fraction `f` (0...1) of the way from `a` to `b` along the great circle (spherical
    /// linear interpolation of the unit vectors). Exact at both ends; for coincident or antipodal
    /// endpoints, where the great circle is not unique, it falls back to `a` / a linear blend.
    static func interpolate(from a: Coordinate, to b: Coordinate, fraction f: Double) -> Coordinate {
        if f <= 0 { return a }
        if f >= 1 { return b }
        let va = unitVector(a), vb = unitVector(b)
        let dot = max(-1, min(1, va.x * vb.x + va.y * vb.y + va.z * vb.z))
        let angle = acos(dot)
        if angle < 1e-12 { return a }
        let s = sin(angle)
        if s < 1e-12 {
            // Antipodal: every great circle joins them; a linear blend in degrees picks one that is well defined.
            return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * f,
                              longitude: a.longitude + (b.longitude - a.longitude) * f)
        }
        let wa = sin((1 - f) * angle) / s, wb = sin(f * angle) / s
        return coordinate(x: wa * va.x + wb * vb.x, y: wa * va.y + wb * vb.y, z: wa * va.z + wb * vb.z)
    }

    /// Initial bearing from `a` towards `b`, degrees clockwise from true north in 0..<360.
    static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        let φ1 = radians(a.latitude), φ2 = radians(b.latitude)
        let dλ = radians(b.longitude - a.longitude)
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let θ = degrees(atan2(y, x))
        return (θ + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point `distance` metres from `start` along the great circle leaving on `bearing` degrees.
    static func destination(from start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        let δ = distance / earthRadius, θ = radians(bearing)
        let φ1 = radians(start.latitude), λ1 = radians(start.longitude)
        let sinφ2 = sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ)
        let φ2 = asin(max(-1, min(1, sinφ2)))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sinφ2)
        return Coordinate(latitude: degrees(φ2), longitude: normalizedLongitude(degrees(λ2)))
    }

    private struct Vector { var x, y, z: Double }

    private static func unitVector(_ c: Coordinate) -> Vector {
        let φ = radians(c.latitude), λ = radians(c.longitude)
        return Vector(x: cos(φ) * cos(λ), y: cos(φ) * sin(λ), z: sin(φ))
    }

    private static func coordinate(x: Double, y: Double, z: Double) -> Coordinate {
        let φ = atan2(z, (x * x + y * y).squareRoot())
        return Coordinate(latitude: degrees(φ), longitude: normalizedLongitude(degrees(atan2(y, x))))
    }

    private static func normalizedLongitude(_ λ: Double) -> Double {
        var l = (λ + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }

    private static func radians(_ d: Double) -> Double { d * .pi / 180 }
    private static func degrees(_ r: Double) -> Double { r * 180 / .pi }
}
