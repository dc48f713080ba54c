import Foundation

/// The place of every unit of a layer built from populated places (the manifest layer's `place`), for the
/// per-query distance of its ``Placemark/Provenance/nearestPlace(metres:)`` levels.
///
/// Raw memory, read without reference counting on the query path; each place keeps the cosine of its
/// latitude, so a query pays two sines, one cosine, a square root and an arcsine (haversine), not two cosines.
final class PlaceTable: Sendable {
    /// One place: WGS-84 degrees, and the cosine of the latitude.
    struct Place {
        var latitude: Double
        var longitude: Double
        var cosLatitude: Double
    }

    /// The IUGG mean Earth radius, as ``Coordinate/distance(to:)`` uses.
    static let earthRadius = 6_371_008.8

    nonisolated(unsafe) private let table: UnsafeMutablePointer<Place>
    let count: Int

    /// `coordinates[u]` is unit `u`'s place.
    init(_ coordinates: [Coordinate]) {
        count = coordinates.count
        table = .allocate(capacity: max(1, count))
        for (i, c) in coordinates.enumerated() {
            (table + i).initialize(to: Place(latitude: c.latitude, longitude: c.longitude, cosLatitude: cos(c.latitude * .pi / 180)))
        }
    }

    deinit { table.deallocate() }

    /// Unit `u`'s place.
    func coordinate(_ u: Int) -> Coordinate { Coordinate(latitude: table[u].latitude, longitude: table[u].longitude) }

    /// The places as latitude, longitude pairs (for the index cache).
    var pairs: [Double] { (0..<count).flatMap { [table[$0].latitude, table[$0].longitude] } }

    /// Haversine metres from a WGS-84 point to unit `u`'s place.
    @inline(__always)
    func metres(from point: Coordinate, to u: Int) -> Double {
        let place = table[u]
        let radians = Double.pi / 180
        let dLat = (place.latitude - point.latitude) * radians, dLon = (place.longitude - point.longitude) * radians
        let a = sin(dLat / 2), b = sin(dLon / 2)
        let h = a * a + cos(point.latitude * radians) * place.cosLatitude * b * b
        return 2 * Self.earthRadius * asin(min(1, h.squareRoot()))
    }
}
