import Foundation
import Testing
@testable import ReverseGeocoder

/// The manifest's `completedBelow`: a unit a dataset has no finer division of is answered by it down to its
/// own level, and the levels below by the next admin dataset (by priority) that contains the point.
struct CompletedBelowTests {
    typealias R = TestShapefile.Record
    func box(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [(Double, Double)] { TestShapefile.box(a, b, c, d) }

    /// Dataset "a" (priority 10): provinces P1 (x 0…2, listed) and P2 (x 2…4, not listed), and a city layer
    /// with one city inside P2 (x 3…4). Dataset "b" (priority 50): cities B1 (x 0…1), B2 (x 2…3), with
    /// their own province B. A listed unit takes b's city; an unlisted one does not, even where b has one.
    func datasets(_ listed: String = #"{"province": ["P1"]}"#) throws -> URL {
        let root = TestShapefile.directory()
        let a = root.appendingPathComponent("a"), b = root.appendingPathComponent("b")
        for dir in [a, b] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        TestShapefile.write(a.appendingPathComponent("prov"), fields: ["NAME", "CODE"], records: [
            R(rings: [box(0, 0, 2, 1)], ["NAME": "Pone", "CODE": "P1"]),
            R(rings: [box(2, 0, 4, 1)], ["NAME": "Ptwo", "CODE": "P2"]),
        ])
        TestShapefile.write(a.appendingPathComponent("city"), fields: ["NAME", "CODE", "PN", "PC"], records: [
            R(rings: [box(3, 0, 4, 1)], ["NAME": "Acity", "CODE": "A1", "PN": "Ptwo", "PC": "P2"]),
        ])
        try """
        {"format": 1, "name": "a", "priority": 10, "completedBelow": \(listed),
         "layers": [{"file": "city.shp", "level": "city", "fields": {"city": {"name": "NAME", "code": "CODE"},
                                                                       "province": {"name": "PN", "code": "PC"}}},
                    {"file": "prov.shp", "level": "province", "fields": {"province": {"name": "NAME", "code": "CODE"}}}]}
        """.write(to: a.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        TestShapefile.write(b.appendingPathComponent("city"), fields: ["NAME", "CODE", "SUB", "PN", "PC"], records: [
            R(rings: [box(0, 0, 1, 1)], ["NAME": "Bone", "CODE": "B1", "SUB": "Bcounty", "PN": "Bprov", "PC": "BP"]),
            R(rings: [box(2, 0, 3, 1)], ["NAME": "Btwo", "CODE": "B2", "SUB": "Bcounty", "PN": "Bprov", "PC": "BP"]),
        ])
        try """
        {"format": 1, "name": "b", "priority": 50,
         "layers": [{"file": "city.shp", "level": "city", "fields": {"city": {"name": "NAME", "code": "CODE"},
                                                                       "subadministrativearea": {"name": "SUB"},
                                                                       "province": {"name": "PN", "code": "PC"}}}]}
        """.write(to: b.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        return root
    }

    @Test func aListedUnitTakesTheLevelsBelowItFromTheNextDataset() throws {
        let g = try ReverseGeocoder(directory: try datasets())
        let p = try #require(try g.placemark(latitude: 0.5, longitude: 0.5))
        // Down to the province: a's. Below: b's city and sub-administrative area, not b's province.
        #expect(p.administrativeArea == "Pone" && p.administrativeAreaCode == "P1")
        #expect(p.locality == "Bone" && p.localityCode == "B1" && p.subAdministrativeArea == "Bcounty")
        #expect(p.provenance(at: .city) == .inside && !p.localityIsProvinceFallback && p.dataset == "a")
        // In P1 where b has nothing: the levels below stay empty.
        let alone = try #require(try g.placemark(latitude: 0.5, longitude: 1.5))
        #expect(alone.administrativeAreaCode == "P1" && alone.locality == nil && alone.subAdministrativeArea == nil)
        // P2 is not listed: a's answer as it is, without b's city there.
        let unlisted = try #require(try g.placemark(latitude: 0.5, longitude: 2.5))
        #expect(unlisted.administrativeAreaCode == "P2" && unlisted.locality == nil)
        #expect(try g.placemark(latitude: 0.5, longitude: 3.5)?.locality == "Acity")
        // Without the key, a listed unit is a's alone (what the old engine answered).
        let plain = try ReverseGeocoder(directory: try datasets("{}"))
        #expect(try plain.placemark(latitude: 0.5, longitude: 0.5)?.locality == nil)
    }

    /// A unit with a record in a finer layer of its own dataset would be answered by that record and never
    /// completed: the load says so instead.
    @Test func aListedUnitWithAFinerRecordIsAnError() throws {
        let root = try datasets(#"{"province": ["P2"]}"#)
        let error = #expect(throws: GeocoderError.self) { _ = try ReverseGeocoder(directory: root) }
        #expect(error?.description.contains("completedBelow.province: P2 has a record in city.shp") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        (#""completedBelow": {"county": ["1"]}"#, "unknown level \"county\""),
        (#""completedBelow": {"district": ["1"]}"#, "no finer level"),
        (#""completedBelow": {"city": ["1"]}"#, "no layer of level city"),
        (#""completedBelow": {"province": [""]}"#, "empty code"),
        (#""completedBelow": {"province": ["11"]}, "municipalityCodes": ["11"]"#, "also in municipalityCodes"),
    ])
    func badEntriesAreExplained(json: String, mentions: String) throws {
        let dir = TestShapefile.directory("completed\(mentions)")
        let url = dir.appendingPathComponent("manifest.json")
        try """
        {"name": "x", \(json), "layers": [{"file": "a.shp", "level": "province", "fields": {"province": {"name": "N"}}}]}
        """.write(to: url, atomically: true, encoding: .utf8)
        let error = #expect(throws: GeocoderError.self) { _ = try DatasetManifest.load(from: url) }
        #expect(error?.description.contains(mentions) == true, "\(String(describing: error))")
    }
}
