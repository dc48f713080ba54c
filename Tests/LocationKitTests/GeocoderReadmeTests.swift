import Foundation
import LocationKit
import LocationSources
import ReverseGeocoder
import Testing

/// The README's async `Geocoder` example, kept compiling and true, and the API's promises.
@Suite struct GeocoderReadmeTests {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")

    @Test func readmeExample() async throws {
        // --- README example (keep in sync) ---
        let geocoder = Geocoder(try ReverseGeocoder(directory: Self.data, options: .init(cellSize: nil)))
        let location = Location(latitude: 39.9087, longitude: 116.3975)    // like CLLocation(latitude:longitude:)
        let placemarks = try await geocoder.reverseGeocodeLocation(location, preferredLocale: Locale(identifier: "en"))
        let city = placemarks.first?.locality ?? "no place"
        let coordinate = Coordinate(location)                              // and back: location.coordinate
        // --- end of README example ---
        #expect(city == "Beijing")
        #expect(placemarks.count == 1)
        #expect(placemarks.first?.language(at: .city) == "en")
        #expect(placemarks.first?.administrativeArea == "Beijing" && placemarks.first?.country == "China")
        // No English district names in the data: the dataset's own name, and no language claimed for it.
        #expect(placemarks.first?.subLocality == "东城区")
        #expect(placemarks.first?.language(at: .district) == nil)
        // And Chinese for Paris (iso-codes' zh_CN catalogue), the locale's script shortened away.
        let paris = try await geocoder.reverseGeocodeLocation(Location(latitude: 48.8566, longitude: 2.3522),
                                                              preferredLocale: Locale(identifier: "zh-Hans"))
        #expect(paris.first?.country == "法国" && paris.first?.language(at: .country) == "zh-CN")
        #expect(coordinate == location.coordinate && coordinate == Coordinate(latitude: 39.9087, longitude: 116.3975))
        #expect(location.isValid && location.horizontalAccuracy == 0)
    }

    @Test func seaIsEmptyAndInvalidThrows() async throws {
        let geocoder = Geocoder(RegionProvider())
        #expect(try await geocoder.reverseGeocodeLocation(Location(latitude: 39.5, longitude: 121)).isEmpty)   // "sea"
        await #expect(throws: GeocoderError.invalidCoordinate(Coordinate(latitude: 95, longitude: 116))) {
            try await geocoder.reverseGeocodeLocation(Location(latitude: 95, longitude: 116))
        }
        // A datum other than the receiver's.
        let gcj = try await geocoder.reverseGeocodeCoordinate(Coordinate(latitude: 40, longitude: 116.2), datum: .gcj02)
        #expect(gcj.first?.locality == "Beijing")
    }

    @Test func preferredLocaleChoosesTheNames() async throws {
        struct Named: PlacemarkProvider {
            func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
                var p = Placemark(country: "中国", isoCountryCode: "CN", dataset: "named")
                p[.country].language = "zh"
                p[.country].names = ["en": "China", "zh-Hant": "中國"]
                return p
            }
        }
        let geocoder = Geocoder(Named())
        let here = Location(latitude: 1, longitude: 1)
        #expect(try await geocoder.reverseGeocodeLocation(here, preferredLocale: Locale(identifier: "en_GB")).first?.country == "China")
        #expect(try await geocoder.reverseGeocodeLocation(here, preferredLocale: Locale(identifier: "zh-Hant-TW")).first?.country == "中國")
        let own = try await geocoder.reverseGeocodeLocation(here).first
        #expect(own?.country == "中国" && own?.language(at: .country) == "zh")
    }
}
