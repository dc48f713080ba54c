import Foundation
import Testing
@testable import ReverseGeocoder

/// Manifests from JSON, presets for Natural Earth and GADM, and loading a data directory.
struct ManifestTests {
    typealias R = TestShapefile.Record
    func box(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [(Double, Double)] { TestShapefile.box(a, b, c, d) }

    func write(_ json: String, in dir: URL) -> URL {
        let url = dir.appendingPathComponent("manifest.json")
        try! json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func directoryOfDatasetsLoadsEveryManifest() throws {
        let root = TestShapefile.directory()
        for (name, prio, x) in [("a", 5, 0.0), ("b", 50, 10.0)] {
            let dir = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"],
                                records: [R(rings: [box(x, 0, x + 1, 1)], ["NAME": "\(name)1", "CODE": "1"])])
            _ = write("""
            {"format": 1, "name": "\(name)", "priority": \(prio), "license": "test",
             "layers": [{"file": "units.shp", "level": "province", "fields": {"province": {"name": "NAME", "code": ["X", "CODE"]}}}]}
            """, in: dir)
        }
        let g = try ReverseGeocoder(directory: root)
        #expect(g.datasets.map(\.name) == ["a", "b"])
        #expect(g.datasets[0].license == "test")
        #expect(try g.placemark(latitude: 0.5, longitude: 10.5)?.administrativeArea == "b1")
        #expect(try g.placemark(latitude: 0.5, longitude: 0.5)?.administrativeAreaCode == "1")
    }

    @Test func badJSONNamesTheFile() throws {
        let dir = TestShapefile.directory()
        let url = write("{\"name\": \"x\", \"layers\": [", in: dir)
        let error = #expect(throws: GeocoderError.self) { _ = try DatasetManifest.load(from: url) }
        guard case .badManifest(let file, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(file == url.path)
    }

    @Test(arguments: [
        (#"{"name": "x", "layers": [{"file": "a.shp", "level": "county", "fields": {}}]}"#, "county"),
        (#"{"name": "x", "layers": [{"file": "a.shp", "level": "city", "fields": {"district": {"name": "N"}}}]}"#, "finer"),
        (#"{"name": "x", "layers": [{"file": "a.shp", "level": "city", "fields": {"province": {"name": "N"}}}]}"#, "own level"),
        (#"{"format": 2, "name": "x", "layers": [{"file": "a.shp", "level": "city", "fields": {"city": {"name": "N"}}}]}"#, "format 2"),
        (#"{"name": "x", "layers": []}"#, "no layers"),
        (#"{"name": "x", "datum": "nad27", "layers": []}"#, "datum"),
        // The border refinement's fields: each in its own kind of dataset, and well formed.
        (#"{"name": "x", "borderAccuracy": -1, "layers": [{"file": "a.shp", "level": "city", "fields": {"city": {"name": "N"}}}]}"#, "borderAccuracy: -1.0"),
        (#"{"name": "x", "role": "overlay", "borderAccuracy": 5000, "layers": [{"file": "t.shp", "fields": {"timeZone": {"name": "tzid"}}}]}"#, "an overlay dataset has no borders"),
        (#"{"name": "x", "timeZoneCountries": {"Europe/Paris": "FR"}, "layers": [{"file": "a.shp", "level": "city", "fields": {"city": {"name": "N"}}}]}"#, "only an overlay dataset"),
        (#"{"name": "x", "role": "overlay", "timeZoneCountries": {"Europe/Paris": "France"}, "layers": [{"file": "t.shp", "fields": {"timeZone": {"name": "tzid"}}}]}"#, "timeZoneCountries.Europe/Paris"),
        (#"{"name": "x", "role": "overlay", "disputedBorders": [["IL"]], "layers": [{"file": "t.shp", "fields": {"timeZone": {"name": "tzid"}}}]}"#, "disputedBorders[0]"),
    ])
    func invalidManifestsAreExplained(json: String, mentions: String) throws {
        let url = write(json, in: TestShapefile.directory("invalid\(mentions)"))
        let error = #expect(throws: GeocoderError.self) { _ = try DatasetManifest.load(from: url) }
        #expect(error?.description.contains(mentions) == true, "\(String(describing: error))")
    }

    @Test func manifestRoundTripsThroughJSON() throws {
        let m = DatasetManifest.naturalEarth(admin0: "a.shp", admin1: "b.shp")
        let back = try JSONDecoder().decode(DatasetManifest.self, from: JSONEncoder().encode(m))
        #expect(back == m)
    }

    @Test func naturalEarthAdmin0PresetHandlesMinus99AndAlpha3() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("ne_10m_admin_0_countries"),
                                      fields: ["ADMIN", "ISO_A2", "ISO_A2_EH", "ADM0_A3"], records: [
            R(rings: [box(0, 40, 5, 50)], ["ADMIN": "France", "ISO_A2": "-99", "ISO_A2_EH": "FR", "ADM0_A3": "FRA"]),
            R(rings: [box(5, 40, 10, 50)], ["ADMIN": "Norway", "ISO_A2": "-99", "ISO_A2_EH": "-99", "ADM0_A3": "NOR"]),
            R(rings: [box(10, 40, 15, 50)], ["ADMIN": "Germany", "ISO_A2": "DE", "ISO_A2_EH": "DE", "ADM0_A3": "DEU"]),
        ])
        let g = try ReverseGeocoder(shapefiles: [shp])  // detected as Natural Earth admin-0
        #expect(try g.placemark(latitude: 45, longitude: 2)?.isoCountryCode == "FR")
        #expect(try g.placemark(latitude: 45, longitude: 7)?.isoCountryCode == "NO")   // from ADM0_A3 "NOR"
        #expect(try g.placemark(latitude: 45, longitude: 12)?.country == "Germany")
        #expect(try g.placemark(latitude: 45, longitude: 12)?.administrativeArea == nil)
    }

    @Test func gadmFilesAreDetected() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("gadm41_DEU_1"),
                                      fields: ["GID_0", "COUNTRY", "GID_1", "NAME_1", "HASC_1"], records: [
            R(rings: [box(13, 52, 14, 53)], ["GID_0": "DEU", "COUNTRY": "Germany", "GID_1": "DEU.3_1", "NAME_1": "Berlin", "HASC_1": "DE.BE"]),
        ])
        let g = try ReverseGeocoder(shapefiles: [shp])
        let p = try #require(try g.placemark(latitude: 52.5, longitude: 13.4))
        #expect(p.country == "Germany" && p.isoCountryCode == "DE" && p.administrativeArea == "Berlin" && p.administrativeAreaCode == "DE.BE")
    }

    @Test func unrecognisedFieldsAskForAManifest() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("odd"), fields: ["FOO"],
                                      records: [R(rings: [box(0, 0, 1, 1)], ["FOO": "x"])])
        let error = #expect(throws: GeocoderError.self) { _ = try ReverseGeocoder(shapefiles: [shp]) }
        #expect(error?.description.contains("manifest") == true)
    }
}
