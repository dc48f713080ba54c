import Foundation
import ReverseGeocoder

/// A TEST DOUBLE for the engine: a made-up world of rectangles, so the CLI can be tested end to end with
/// exact, predictable answers and no data files. Never used unless a test asks for it (or the hidden
/// environment variable `GEOCODE_TEST_LOOKUP=grid` is set).
///
/// The world (WGS-84 degrees, after converting the input from its datum):
/// - longitude in [0, 40): country "Testland" (TL);
/// - longitude in [100, 140): country "Gridonia" (GR), whose city names contain a comma and quotes so
///   that output quoting gets exercised;
/// - everything else: ocean (nil).
/// - province: one per 10° latitude band, "Band N" / code "TL-N" with N = floor((lat + 90) / 10);
/// - city: one per 5° of longitude, "Cell M" / code "TL-N-M" with M = floor(lon / 5);
/// - district: only north of the equator, "Quarter K" with K = floor(lat) mod 10.
public struct GridTestLookup: PlacemarkLookup {
    public init() {}

    public func placemark(for coordinate: Coordinate, datum: Datum) -> Placemark? {
        let c = Datum.convert(coordinate, from: datum, to: .wgs84)
        guard c.isValid else { return nil }
        let country: String, iso: String
        switch c.longitude {
        case 0..<40: (country, iso) = ("Testland", "TL")
        case 100..<140: (country, iso) = ("Gridonia", "GR")
        default: return nil
        }
        let band = Int(((c.latitude + 90) / 10).rounded(.down))
        let cell = Int((c.longitude / 5).rounded(.down))
        let city = iso == "GR" ? "Grid \"City\", \(cell)" : "Cell \(cell)"
        var district: String?, districtCode: String?
        if c.latitude >= 0 {
            let quarter = Int(c.latitude.rounded(.down)) % 10
            district = "Quarter \(quarter)"
            districtCode = "\(iso)-\(band)-\(cell)-\(quarter)"
        }
        return Placemark(country: country, isoCountryCode: iso,
                         administrativeArea: "Band \(band)", administrativeAreaCode: "\(iso)-\(band)",
                         locality: city, localityCode: "\(iso)-\(band)-\(cell)",
                         subLocality: district, subLocalityCode: districtCode,
                         localityIsProvinceFallback: false, dataset: "testgrid")
    }
}
