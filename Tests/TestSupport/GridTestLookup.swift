import Foundation
import GeoModel
import GeocodeCLI
import ReverseGeocoder

/// A TEST DOUBLE for the engine: a made-up world of rectangles, so the CLI can be tested end to end with
/// exact, predictable answers and no data files. Lives in the TestSupport target, never in the product:
/// the CLI's tests use it in process, and the `geocode-testgrid` executable (the CLI with this in place
/// of the engine) for the binary tests.
///
/// The world (WGS-84 degrees, after converting the input from its datum):
/// - longitude in [0, 40): country "Testland" (TL);
/// - longitude in [100, 140): country "Gridonia" (GR), whose city names contain a comma and quotes so
///   that output quoting gets exercised;
/// - everything else: ocean (nil).
/// - province: one per 10° latitude band, "Band N" / code "TL-N" with N = floor((lat + 90) / 10);
/// - city: one per 5° of longitude, "Cell M" / code "TL-N-M" with M = floor(lon / 5);
/// - district: only north of the equator, "Quarter K" with K = floor(lat) mod 10.
/// - One point fails: (-66.6, -66.6) exactly, as given, throws ``GeocoderError/queryFailed(layer:reason:)``,
///   the engine failing mid-query (GEOS's exception value 2), so the CLI's exit-4 paths are tested.
///
/// All placemarks are built once up front, like a real engine's names, so that throughput measured with
/// this double is the pipeline's, not string formatting's.
public struct GridTestLookup: PlacemarkProvider, DatasetDescribing, AdministrativeUnitCatalog {
    private static let countries = [(name: "Testland", iso: "TL", firstCell: 0), (name: "Gridonia", iso: "GR", firstCell: 20)]
    private static let bands = 19, cells = 8, quarters = 11   // quarter 10 = south of the equator (no district)
    private let table: [Placemark]

    public init() {
        var table: [Placemark] = []
        table.reserveCapacity(Self.countries.count * Self.bands * Self.cells * Self.quarters)
        for country in Self.countries {
            for band in 0..<Self.bands {
                for offset in 0..<Self.cells {
                    for quarter in 0..<Self.quarters {
                        table.append(Self.make(country.name, country.iso, band, country.firstCell + offset, quarter))
                    }
                }
            }
        }
        self.table = table
    }

    private static func make(_ country: String, _ iso: String, _ band: Int, _ cell: Int, _ quarter: Int) -> Placemark {
        let city = iso == "GR" ? "Grid \"City\", \(cell)" : "Cell \(cell)"
        let north = quarter < 10
        return Placemark(country: country, isoCountryCode: iso,
                         administrativeArea: "Band \(band)", administrativeAreaCode: "\(iso)-\(band)",
                         locality: city, localityCode: "\(iso)-\(band)-\(cell)",
                         subLocality: north ? "Quarter \(quarter)" : nil,
                         subLocalityCode: north ? "\(iso)-\(band)-\(cell)-\(quarter)" : nil,
                         localityIsProvinceFallback: false, dataset: "testgrid")
    }

    /// Where the double fails as the engine would if GEOS threw.
    public static let failingPoint = Coordinate(latitude: -66.6, longitude: -66.6)

    /// Every placemark of the grid (one per quarter of a cell of a band), as the engine lists its units:
    /// what `track --region` checks a regions file's codes and names against.
    public func administrativeUnits() -> [Placemark] { table }

    /// No datasets: `info` and `index` say so.
    public var datasets: [DatasetInfo] { [] }
    public var loadTime: Duration { .zero }

    public func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        guard coordinate.isValid else { throw .invalidCoordinate(coordinate) }
        if coordinate == Self.failingPoint { throw .queryFailed(layer: "testgrid.shp", reason: "a GEOS exception (the test double's failing point)") }
        let c = Datum.convert(coordinate, from: datum, to: .wgs84)
        guard c.isValid else { return nil }
        let country: Int
        switch c.longitude {
        case 0..<40: country = 0
        case 100..<140: country = 1
        default: return nil
        }
        let band = Int(((c.latitude + 90) / 10).rounded(.down))
        let cell = Int((c.longitude / 5).rounded(.down)) - Self.countries[country].firstCell
        let quarter = c.latitude >= 0 ? Int(c.latitude.rounded(.down)) % 10 : 10
        return table[((country * Self.bands + band) * Self.cells + cell) * Self.quarters + quarter]
    }
}
