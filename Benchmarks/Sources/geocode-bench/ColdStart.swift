import Foundation
import ReverseGeocoder

/// Stand-in for the `geocode` CLI's cold start when that binary cannot answer yet: loads every dataset in
/// a data directory the way the CLI does (`ReverseGeocoder(directory:)`), answers one point, prints it.
struct ColdStart {
    let data: URL
    let datum: Datum
    let latitude: Double
    let longitude: Double

    init(_ o: Options) throws {
        data = URL(fileURLWithPath: try o.string("data"))
        guard let d = Datum(name: o.optional("datum") ?? "wgs84") else { throw UsageError("unknown datum") }
        datum = d
        guard o.positional.count == 2, let lat = Double(o.positional[0]), let lon = Double(o.positional[1]) else {
            throw UsageError("cold-start needs LAT LON")
        }
        latitude = lat
        longitude = lon
    }

    func run() throws {
        let geocoder = try ReverseGeocoder(directory: data)
        let p = try! geocoder.placemark(latitude: latitude, longitude: longitude, datum: datum)
        let text = p.map { [$0.country, $0.administrativeArea, $0.locality, $0.subLocality].compactMap { $0 }.joined(separator: ", ") }
        print(text ?? "(no placemark)")
    }
}
