#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Placemark {
    /// A unit's populated place, where the distance of its ``Provenance/nearestPlace(metres:)`` levels is
    /// measured to: WGS-84 degrees and the cosine of the latitude (computed once, when the engine loads
    /// the place).
    ///
    /// The engine keeps it in the thread's own copy of the unit's placemark and gives each answer only the
    /// query point (``setNearestPlaceQuery(_:)``): the distance, two sines, a cosine, a square root and an
    /// arcsine, is computed when something reads it, not on every query (a caller that only wants the
    /// names, the time zone or the codes never pays it).
    package struct NearestPlace: Sendable {
        package var latitude: Double
        package var longitude: Double
        package var cosLatitude: Double

        package init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
            cosLatitude = cos(latitude * .pi / 180)
        }

        /// The IUGG mean Earth radius, as ``Coordinate/distance(to:)`` uses.
        package static let earthRadius = 6_371_008.8

        /// Haversine metres from a WGS-84 point to the place (the one formula: eager or lazy, the same bits).
        @inline(__always)
        package func metres(from point: Coordinate) -> Double {
            let radians = Double.pi / 180
            let dLat = (latitude - point.latitude) * radians, dLon = (longitude - point.longitude) * radians
            let a = sin(dLat / 2), b = sin(dLon / 2)
            let h = a * a + cos(point.latitude * radians) * cosLatitude * b * b
            return 2 * Self.earthRadius * asin(min(1, h.squareRoot()))
        }
    }
}
