import Foundation
import GeoModel
import Testing

/// The nearest-place distance measured when read (``Placemark/setNearestPlaceQuery(_:)``) is, in every
/// output, the distance the engine used to measure on each query (``Placemark/setNearestPlaceDistance(_:)``).
@Suite struct NearestPlaceTests {
    /// `fullPlacemark()`'s city level is a nearest place (812 m in the storage).
    static let place = Placemark.NearestPlace(latitude: 45.7640, longitude: 4.8357)
    static let point = Coordinate(latitude: 45.9012, longitude: 4.5521)

    static func pair() -> (lazy: Placemark, eager: Placemark, template: Placemark) {
        var template = fullPlacemark()
        template.setNearestPlace(place)
        var lazy = template, eager = fullPlacemark()
        lazy.setNearestPlaceQuery(point)
        eager.setNearestPlaceDistance(place.metres(from: point))
        return (lazy, eager, template)
    }

    @Test func lazyDistanceIsTheEagerOne() throws {
        let (lazy, eager, template) = Self.pair()
        let metres = try #require(lazy.provenance(at: .city)?.distance)
        // The haversine against Coordinate's own (another arrangement of the same formula): 1 mm in ~25 km.
        #expect(abs(metres - Self.point.distance(to: Coordinate(latitude: 45.7640, longitude: 4.8357))) < 1e-3)
        #expect(metres != 812)
        #expect(lazy.provenance(at: .city) == eager.provenance(at: .city))
        #expect(lazy[.city] == eager[.city])
        #expect(lazy.provenance(at: .country) == .inside)
        #expect(lazy == eager && lazy.hashValue == eager.hashValue)
        #expect(lazy.hasQueryDistance)
        // Nothing was copied for the answer: it shares the template's storage.
        #expect(lazy.storageIdentity == template.storageIdentity)
        #expect(template.provenance(at: .city) == .nearestPlace(metres: 812) && !template.hasQueryDistance)
        // Every output derived from the field table: the same bytes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try encoder.encode(lazy) == encoder.encode(eager))
        for field in PlacemarkField.allCases { #expect(field.value(of: lazy) == field.value(of: eager), "\(field.key)") }
    }

    @Test func mutationKeepsTheMeasuredDistance() {
        let (lazy, eager, _) = Self.pair()
        var changed = lazy
        changed.timeZone = "Europe/Paris"
        #expect(changed.storageIdentity != lazy.storageIdentity)
        #expect(changed.provenance(at: .city) == eager.provenance(at: .city))
        #expect(!changed.hasQueryDistance)  // written into its own storage
        #expect(lazy.timeZone == "Asia/Shanghai")
    }

    @Test func aPointWithoutAPlaceLeavesTheStoragesDistance() {
        var p = fullPlacemark()
        p.setNearestPlaceQuery(Self.point)
        #expect(p.provenance(at: .city) == .nearestPlace(metres: 812))
    }
}
