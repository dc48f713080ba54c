/// A position on the Earth in degrees. Which datum the numbers are in is said separately (see ``Datum``):
/// a `Coordinate` is just the pair, so the same type carries GPS (WGS-84) and Chinese map (GCJ-02, BD-09) values.
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and within their ranges (latitude ±90, longitude ±180).
    public var isValid: Bool {
        // NaN fails every comparison and infinity fails the bounds, so these two tests say it all (each
        // query starts here: the four-test form cost 38 instructions).
        abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String { "(\(latitude), \(longitude))" }

    /// Great-circle distance in metres (haversine on a sphere of the mean Earth radius, 6,371,008.8 m).
    /// Good to about 0.5 %, which is what distance filters and hysteresis need.
    public func distance(to other: Coordinate) -> Double {
        let r = 6_371_008.8
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (other.longitude - longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
