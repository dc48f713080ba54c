import Foundation

/// The place of every unit of a layer built from populated places (the manifest layer's `place`), for the
/// per-query distance of its ``Placemark/Provenance/nearestPlace(metres:)`` levels.
///
/// Raw memory, read without reference counting; each place keeps the cosine of its latitude, so a
/// distance costs two sines, one cosine, a square root and an arcsine (haversine), not two cosines. The
/// query path reads no place: the thread's copy of a unit's placemark carries its place, and the answer
/// the query point (``Placemark/setNearestPlaceQuery(_:)``), measured only when read.
final class PlaceTable: Sendable {
    /// The IUGG mean Earth radius, as ``Coordinate/distance(to:)`` uses.
    static let earthRadius = Placemark.NearestPlace.earthRadius

    nonisolated(unsafe) private let table: UnsafeMutablePointer<Placemark.NearestPlace>
    let count: Int

    /// `coordinates[u]` is unit `u`'s place.
    init(_ coordinates: [Coordinate]) {
        count = coordinates.count
        table = .allocate(capacity: max(1, count))
        for (i, c) in coordinates.enumerated() {
            (table + i).initialize(to: Placemark.NearestPlace(latitude: c.latitude, longitude: c.longitude))
        }
    }

    deinit { table.deallocate() }

    /// Unit `u`'s place.
    func coordinate(_ u: Int) -> Coordinate { Coordinate(latitude: table[u].latitude, longitude: table[u].longitude) }

    /// Unit `u`'s place with its cosine, for the unit's placemark (``Placemark/setNearestPlace(_:)``).
    func place(_ u: Int) -> Placemark.NearestPlace { table[u] }

    /// The places as latitude, longitude pairs (for the index cache).
    var pairs: [Double] { (0..<count).flatMap { [table[$0].latitude, table[$0].longitude] } }

    /// Haversine metres from a WGS-84 point to unit `u`'s place.
    @inline(__always)
    func metres(from point: Coordinate, to u: Int) -> Double { table[u].metres(from: point) }
}
