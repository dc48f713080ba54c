import Foundation
import Synchronization
import Testing
@testable import ReverseGeocoder

/// Overlay datasets (time zones) and nearest-place layers, against oracles computed outside the engine:
/// real timezone-boundary-builder polygons with shapely's answer on 2,000 random points, and Python's
/// haversine for the place distances (`Fixtures/overlay`, made by its `make_fixture.py`).
struct OverlayTests {
    typealias R = TestShapefile.Record

    struct Oracle: Decodable {
        struct TimeZonePoint: Decodable { var latitude: Double; var longitude: Double; var tzid: String?; var timezonefinder: String? }
        struct PlacePoint: Decodable { var latitude: Double; var longitude: Double; var city: String?; var metres: Double?; var tzid: String? }
        var zones: [String]
        var timezone_points: [TimeZonePoint]
        var place_points: [PlacePoint]
    }

    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/overlay")
    static let oracle: Oracle = {
        let data = try! Data(contentsOf: fixtures.appendingPathComponent("oracle.json"))
        return try! JSONDecoder().decode(Oracle.self, from: data)
    }()

    /// Containment only: these expectations are shapely's point-in-polygon answers, so the coast
    /// fallback (nearest unit within Options.maxDistance) is off.
    static var containment: ReverseGeocoder.Options {
        var o = ReverseGeocoder.Options()
        o.maxDistance = 0
        return o
    }

    @Test func aTimeZoneOverlayAloneAnswersAsShapelyDoes() throws {
        let g = try ReverseGeocoder(directory: Self.fixtures.appendingPathComponent("timezones"))
        #expect(g.datasets.map(\.role) == [.overlay])
        var answered = 0
        for p in Self.oracle.timezone_points {
            let answer = try g.placemark(latitude: p.latitude, longitude: p.longitude)
            #expect(answer?.timeZone == p.tzid, "\(p.latitude), \(p.longitude)")
            if let answer {
                answered += 1
                // Only the overlay answered: no administrative unit, the overlay's name as the dataset.
                #expect(!answer.hasAdministrativeUnit)
                #expect(answer.country == nil && answer.locality == nil)
                #expect(answer.dataset == "fixture-timezones")
            }
        }
        // Every zone of the fixture is met, and the points are not all in one.
        #expect(answered == Self.oracle.timezone_points.filter { $0.tzid != nil }.count)
        #expect(Set(Self.oracle.timezone_points.compactMap(\.tzid)).count >= 8)
    }

    @Test func overlaysFillTheAdminAnswerAndPlacesGiveTheirDistance() throws {
        let g = try ReverseGeocoder(directory: Self.fixtures, options: Self.containment)
        #expect(g.datasets.map(\.name) == ["fixture-localities", "fixture-timezones"])
        #expect(g.datasets.map(\.role) == [.admin, .overlay])
        #expect(g.datasets[0].attribution == "Places: GeoNames, CC BY 4.0")
        var inCells = 0
        for p in Self.oracle.place_points {
            let answer = try #require(try g.placemark(latitude: p.latitude, longitude: p.longitude))
            #expect(answer.timeZone == p.tzid)
            #expect(answer.locality == p.city)
            if let metres = p.metres {
                inCells += 1
                #expect(answer.hasAdministrativeUnit)
                #expect(answer.dataset == "fixture-localities")
                #expect(answer.isoCountryCode == "LU")
                let got = try #require(answer.provenance(at: .city)?.distance)
                #expect(answer.provenance(at: .city)?.kind == .nearestPlace)
                #expect(abs(got - metres) <= 1e-6 * max(1, metres), "\(p.latitude), \(p.longitude): \(got) m, Python \(metres) m")
                // Levels not declared nearest_place stay inside.
                #expect(answer.provenance(at: .country) == .inside)
                // The distance is also what the field table (CLI, JSON) reads.
                #expect(PlacemarkField.level(.city, .distance).value(of: answer) == .number(got))
            } else {
                #expect(!answer.hasAdministrativeUnit)
                #expect(answer.dataset == "fixture-timezones")
            }
        }
        #expect(inCells > 100)
    }

    @Test func aPointAtSeaGetsTheOceanZoneAndNothingElse() throws {
        let g = try ReverseGeocoder(directory: Self.fixtures, options: Self.containment)
        // The North Sea, 100 km off the Dutch coast: in no admin unit, in timezone-boundary-builder's Etc/GMT.
        let sea = try #require(try g.placemark(latitude: 53.5, longitude: 3.0))
        #expect(sea.timeZone == "Etc/GMT")
        #expect(!sea.hasAdministrativeUnit)
        #expect(sea.name == nil)
        for level in AdminLevel.allCases { #expect(sea.provenance(at: level) == nil) }
        // Outside every dataset (the Gulf of Guinea is not in the fixture): nil, as before overlays.
        #expect(try g.placemark(latitude: 0, longitude: 0) == nil)
    }

    @Test func perQueryDistancesKeepValueSemantics() throws {
        let g = try ReverseGeocoder(directory: Self.fixtures, options: Self.containment)
        let a = try #require(try g.placemark(latitude: 49.6, longitude: 6.1))
        let b = try #require(try g.placemark(latitude: 49.65, longitude: 6.3))
        #expect(a.locality == "Luxembourg" && b.locality == "Luxembourg")
        let da = try #require(a.provenance(at: .city)?.distance), db = try #require(b.provenance(at: .city)?.distance)
        #expect(da != db)
        #expect(a != b)
        // Asked again, the same point answers equal (and hashes equal).
        let again = try #require(try g.placemark(latitude: 49.6, longitude: 6.1))
        #expect(again == a && again.hashValue == a.hashValue)
        // A mutated copy keeps its distance; the original keeps its own, and the next answer is untouched.
        var c = a
        c.locality = "Changed"
        #expect(c.provenance(at: .city)?.distance == da)
        #expect(a.locality == "Luxembourg")
        #expect(try g.placemark(latitude: 49.65, longitude: 6.3)?.provenance(at: .city)?.distance == db)
        // Codable carries the distance.
        let decoded = try JSONDecoder().decode(Placemark.self, from: JSONEncoder().encode(a))
        #expect(decoded == a)
    }

    @Test func threadsAnswerAsOneThreadDoes() throws {
        let g = try ReverseGeocoder(directory: Self.fixtures, options: Self.containment)
        let points = Self.oracle.place_points + Self.oracle.timezone_points.prefix(300).map {
            Oracle.PlacePoint(latitude: $0.latitude, longitude: $0.longitude, city: nil, metres: nil, tzid: $0.tzid)
        }
        let reference = try points.map { try g.placemark(latitude: $0.latitude, longitude: $0.longitude) }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for (i, p) in points.enumerated().shuffled() where (try? g.placemark(latitude: p.latitude, longitude: p.longitude)) != reference[i] {
                _ = t
                mismatches.withLock { $0 += 1 }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test func theIndexCacheKeepsOverlaysAndPlaces() throws {
        let cache = TestShapefile.directory()
        var options = ReverseGeocoder.Options()
        options.cacheDirectory = cache
        let fresh = try ReverseGeocoder(directory: Self.fixtures, options: options)
        #expect(fresh.datasets.allSatisfy { $0.cacheStatus?.hasPrefix("rebuilt") == true })
        let cached = try ReverseGeocoder(directory: Self.fixtures, options: options)
        #expect(cached.datasets.map(\.cacheStatus) == ["loaded", "loaded"])
        #expect(cached.datasets.map(\.role) == [.admin, .overlay])
        #expect(cached.datasets.map(\.attribution) == fresh.datasets.map(\.attribution))
        for p in Self.oracle.place_points + Self.oracle.timezone_points.prefix(500).map({
            Oracle.PlacePoint(latitude: $0.latitude, longitude: $0.longitude, city: nil, metres: nil, tzid: $0.tzid)
        }) {
            let a = try fresh.placemark(latitude: p.latitude, longitude: p.longitude)
            let b = try cached.placemark(latitude: p.latitude, longitude: p.longitude)
            #expect(a == b)
            #expect(a?.provenance(at: .city)?.distance == b?.provenance(at: .city)?.distance)
        }
    }

    @Test func overlaysByPriorityEachFieldFromTheFirstThatHasIt() throws {
        let root = TestShapefile.directory()
        func overlay(_ name: String, priority: Int, fields: [String], records: [R], mapping: [PlacemarkField: String]) throws {
            let dir = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let shp = TestShapefile.write(dir.appendingPathComponent(name), fields: fields, records: records)
            let m = DatasetManifest(name: name, priority: priority, role: .overlay,
                                    layers: [.init(file: shp.lastPathComponent, overlayFields: mapping)])
            try JSONEncoder().encode(m).write(to: dir.appendingPathComponent("manifest.json"))
        }
        try overlay("zones", priority: 200, fields: ["TZ"],
                    records: [R(rings: [TestShapefile.box(0, 0, 1, 1)], ["TZ": "Test/One"])], mapping: [.timeZone: "TZ"])
        try overlay("water", priority: 300, fields: ["TZ", "SEA"],
                    records: [R(rings: [TestShapefile.box(0, 0, 2, 1)], ["TZ": "Test/Two", "SEA": "Test Sea"])],
                    mapping: [.timeZone: "TZ", .ocean: "SEA"])
        let g = try ReverseGeocoder(directory: root)
        let both = try #require(try g.placemark(latitude: 0.5, longitude: 0.5))
        #expect(both.timeZone == "Test/One" && both.ocean == "Test Sea" && both.dataset == "zones")
        let second = try #require(try g.placemark(latitude: 0.5, longitude: 1.5))
        #expect(second.timeZone == "Test/Two" && second.ocean == "Test Sea" && second.dataset == "water")
        #expect(second.name == "Test Sea")
        #expect(try g.placemark(latitude: 0.5, longitude: 2.5) == nil)
    }

    @Test func aBadPlaceValueNamesFileRecordAndField() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("cells"), fields: ["NAME", "LAT", "LON"], records: [
            R(rings: [TestShapefile.box(0, 0, 1, 1)], ["NAME": "a", "LAT": "0.5", "LON": "0.5"]),
            R(rings: [TestShapefile.box(1, 0, 2, 1)], ["NAME": "b", "LAT": "north", "LON": "1.5"]),
        ])
        let m = DatasetManifest(name: "cells", layers: [.init(file: shp.path, level: .city, fields: [.city: .init(name: ["NAME"])],
                                                              provenance: [.city: .nearestPlace],
                                                              place: .init(latitude: "LAT", longitude: "LON"))])
        let error = #expect(throws: GeocoderError.self) { _ = try ReverseGeocoder(manifests: [(m, nil)]) }
        let text = error?.description ?? ""
        #expect(text.contains("cells.dbf") && text.contains("record 1") && text.contains("LAT") && text.contains("north"), "\(text)")
    }

    static let layerOK = #""file": "a.shp", "level": "city", "fields": {"city": {"name": "N"}}"#
    @Test(arguments: [
        (#"{"name": "x", "role": "both", "layers": [{"file": "a.shp", "fields": {"timeZone": {"name": "TZ"}}}]}"#, "unknown role \"both\""),
        (#"{"name": "x", "role": "overlay", "layers": [{"file": "a.shp", "level": "city", "fields": {"timeZone": {"name": "TZ"}}}]}"#, "layers[0].level: an overlay layer has no level"),
        (#"{"name": "x", "role": "overlay", "layers": [{"file": "a.shp", "fields": {"country": {"name": "TZ"}}}]}"#, "\"country\" is not an overlay field"),
        (#"{"name": "x", "role": "overlay", "layers": [{"file": "a.shp", "fields": {"timeZone": {"code": "TZ"}}}]}"#, "layers[0].fields.timeZone: missing \"name\""),
        (#"{"name": "x", "role": "overlay", "layers": [{"file": "a.shp", "fields": {}}]}"#, "fills at least one field"),
        (#"{"name": "x", "role": "overlay", "constants": {"country": {"name": "X"}}, "layers": [{"file": "a.shp", "fields": {"timeZone": {"name": "TZ"}}}]}"#, "constants"),
        (#"{"name": "x", "layers": [{"file": "a.shp", "fields": {"timeZone": {"name": "TZ"}}}]}"#, "layers[0]: missing \"level\""),
        (#"{"name": "x", "layers": [{"file": "a.shp", "level": "city", "fields": {"city": {"name": "N"}, "timeZone": {"name": "TZ"}}}]}"#, "timeZone is an overlay field"),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "provenance": {"city": "guessed"}}]}"#, "unknown provenance \"guessed\""),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "provenance": {"city": "nearest_place"}}]}"#, "layers[0].provenance.city: nearest_place needs"),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "provenance": {"district": "nearest_place"}, "place": {"latitude": "A", "longitude": "B"}}]}"#, "provenance: district is finer"),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "provenance": {"city": "nearest_place"}, "place": {"latitude": "", "longitude": "B"}}]}"#, "layers[0].place.latitude: empty"),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "place": {"latitude": "A", "longitude": "B"}}]}"#, "layers[0].place: no level's provenance"),
        (#"{"name": "x", "layers": [{"#  + layerOK + #", "place": {"latitude": "A"}}]}"#, "longitude"),
    ])
    func badOverlayAndPlaceManifestsAreExplained(json: String, mentions: String) throws {
        let dir = TestShapefile.directory("overlay\(mentions.hashValue)")
        let url = dir.appendingPathComponent("manifest.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        let error = #expect(throws: GeocoderError.self) { _ = try DatasetManifest.load(from: url) }
        #expect(error?.description.contains(mentions) == true, "\(String(describing: error))")
        #expect(error?.description.contains(url.path) == true)
    }
}
