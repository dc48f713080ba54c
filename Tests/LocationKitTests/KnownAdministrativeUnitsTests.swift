import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// A region naming an administrative area no unit of the data has never fires. It used to be accepted
/// in silence (`geocode track --region` with a mistyped code ran to the end, exit 0, never a region
/// event); a monitor given the data's units (`KnownAdministrativeUnits`) now refuses it at start, naming
/// the region, the code and where the data does have it.
@Suite struct KnownAdministrativeUnitsTests {
    /// The test provider's world (Beijing and Tianjin, each with two districts), Beijing with an English
    /// name, and one unit of another country.
    static let units: KnownAdministrativeUnits = {
        var beijing = Placemark.haidian
        beijing[.province].names = ["en": "Beijing", "zh": "北京市"]
        let berlin = Placemark(country: "Germany", isoCountryCode: "DE", administrativeArea: "Berlin",
                               administrativeAreaCode: "DE-BE", dataset: "test")
        return KnownAdministrativeUnits([beijing, .chaoyang, .wuqing, .hexi, berlin])
    }()

    @Test func itKnowsWhatAFixsPlacemarkWouldMatch() {
        let u = Self.units
        // Every area a fix's placemark matches (AdministrativeArea.contains) is known, at its level or at any.
        for area: AdministrativeArea in [.code("110000", level: .city), .code("110000", level: .province), .code("110000"),
                                         .code("120114", level: .district), .name("Tianjin"), .name("tianjin ", level: .city),
                                         .name("北京市", level: .province), .name("beijing", level: .province),
                                         .code("DE-BE", level: .province, isoCountryCode: "de"), .name("Hexi", isoCountryCode: "CN")] {
            #expect(u.contains(area), "\(area)")
            #expect(u.problem(with: area) == nil, "\(area)")
        }
        // … and none it does not.
        for area: AdministrativeArea in [.code("131001"), .code("110000", level: .district), .code("DE-BE", level: .province, isoCountryCode: "CN"),
                                         .name("Atlantis"), .name("北京市", level: .city)] {
            #expect(!u.contains(area), "\(area)")
        }
    }

    @Test func theProblemNamesTheLevelTheKeyAndWhereTheDataHasIt() {
        let u = Self.units
        #expect(u.problem(with: .code("131001", level: .city)) == "no city in the loaded data has code \"131001\"")
        #expect(u.problem(with: .name("Atlantis")) == "no unit in the loaded data has name \"Atlantis\"")
        #expect(u.problem(with: .code("110108", level: .city))
                == "no city in the loaded data has code \"110108\" (the data has it as: district in CN)")
        #expect(u.problem(with: .code("DE-BE", level: .province, isoCountryCode: "cn"))
                == "no province in the loaded data has code \"DE-BE\" in country CN (the data has it as: province in DE)")
        #expect(u.problem(with: .circle("depot", center: Coordinate(latitude: 1, longitude: 2), radius: 5)) == nil)
    }

    /// The monitor refuses such a region at `init` and at `add`, as it refuses an invalid one, and adds
    /// none of the batch; without units (the default) it checks nothing, as before.
    @Test func aMonitorGivenTheUnitsRefusesAnUnknownArea() throws {
        let good = MonitoredRegion.administrative("beijing", .code("110000", level: .city))
        let bad = MonitoredRegion.administrative("langfang", .code("131000", level: .city))
        #expect(throws: RegionMonitor.Failure.invalidRegion(identifier: "langfang",
                                                           reason: "no city in the loaded data has code \"131000\"")) {
            try RegionMonitor(regions: [good, bad], knownUnits: Self.units)
        }
        let monitor = try RegionMonitor(regions: [good], knownUnits: Self.units)
        #expect(throws: RegionMonitor.Failure.self) { try monitor.add(contentsOf: [.circle("c", center: Coordinate(latitude: 1, longitude: 2), radius: 5), bad]) }
        #expect(monitor.regions == [good], "none of the batch added")
        try monitor.add(.circle("c", center: Coordinate(latitude: 1, longitude: 2), radius: 5))
        #expect(try RegionMonitor(regions: [good, bad]).regions.count == 2, "not checked without units")
    }

    /// A regions file: the error names the file, the region and the code.
    @Test func aRegionsFileNamingAnUnknownCodeIsRefusedNamingAll() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("regions.json")
        try Data(#"{"regions": [{"id": "beijing", "area": "city 110000"}, {"id": "langfang", "area": "city 131001"}]}"#.utf8).write(to: file)
        #expect(throws: RegionFile.Failure.invalid(path: file.path, "region \"langfang\": no city in the loaded data has code \"131001\"")) {
            try RegionMonitor.load(contentsOf: file, knownUnits: Self.units)
        }
        #expect(try RegionMonitor.load(contentsOf: file).regions.count == 2, "not checked without units")
    }

    /// With the engine on the bundled data: the example regions file (every area a unit of the data) is
    /// accepted; a Langfang with a digit wrong is not.
    @Test func theEngineListsItsUnits() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let units = try KnownAdministrativeUnits(geocoder)
        let example = try #require(Bundle.module.url(forResource: "Fixtures/regions-example", withExtension: "json"))
        #expect(try RegionMonitor.load(contentsOf: example, knownUnits: units).regions.count == 8)
        #expect(units.problem(with: .code("131001", level: .city)) == "no city in the loaded data has code \"131001\"")
        #expect(units.contains(.name("廊坊市", level: .city)) && units.contains(.code("DE-BE", level: .province, isoCountryCode: "DE")))
    }

    /// Only the units a regions file names (what `geocode track --region` builds): for each of its
    /// areas the same answer as with every unit of the data, the same text where one is missing (with
    /// where the data has it instead), from a small part of the units. Areas by code, by name in other
    /// languages and cases, decomposed, padded, at the wrong level or in the wrong country, and Taiwan's
    /// country code, which only the worldview gives the China data's 台湾省.
    @Test func onlyTheUnitsTheAreasNameAnswerAsEveryUnit() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let all = try KnownAdministrativeUnits(geocoder)
        let example = try #require(Bundle.module.url(forResource: "Fixtures/regions-example", withExtension: "json"))
        let file = try RegionFile.load(contentsOf: example)
        let areas: [AdministrativeArea] = file.regions.compactMap { if case .administrative(let a) = $0.area { a } else { nil } } + [
            .code("131001", level: .city), .code("110108", level: .city), .code("DE-BE", level: .province, isoCountryCode: "CN"),
            .code("TW", level: .country), .code("TW"), .code("710000", level: .province), .code("CN", level: .country, isoCountryCode: "TW"),
            .name("台湾省"), .name("Taiwan", level: .country), .name("PEKING"), .name("  PECHINO "), .name("Zu\u{308}rich", level: .province),
            .name("ZÜRICH"), .name("Tientsin", level: .city), .name("東京都"), .name("Atlantis"), .name("Berlin", level: .city),
            .name("Москва"), .name("中国", level: .province), .code("US-CA"), .name("California", isoCountryCode: "MX"),
        ]
        let some = try KnownAdministrativeUnits(geocoder, checking: areas)
        for area in areas {
            #expect(some.problem(with: area) == all.problem(with: area), "\(area)")
        }
        #expect(some.problem(with: .code("TW", level: .country)) == nil && some.problem(with: .name("Taiwan", level: .country)) == nil)
        #expect(some.problem(with: .name("  PECHINO ")) == nil && some.problem(with: .name("Zu\u{308}rich", level: .province)) == nil)
        #expect(some.problem(with: .code("131001", level: .city)) == "no city in the loaded data has code \"131001\"")
        #expect(try RegionMonitor.load(contentsOf: example, knownUnits: KnownAdministrativeUnits(geocoder, checking: file.regions)).regions.count == 8)
        // A small part of the units: the example file's are a few hundred placemarks of 40,000.
        let wanted = try geocoder.administrativeUnits(where: { _, unit in
            ["110000", "131000", "120000", "440300", "DE-BE"].contains(unit.code ?? "") || unit.name == "东城区"
        })
        #expect(wanted.count * 20 < (try geocoder.administrativeUnits()).count, "\(wanted.count)")
        // Nothing named by no area: no units, and none asked for.
        #expect(try KnownAdministrativeUnits(geocoder, checking: [MonitoredRegion.circle("c", center: Coordinate(latitude: 1, longitude: 2), radius: 5)])
            .problem(with: .code("110000")) != nil)
    }

    /// An area by a name in another language than the one the data shows (Beijing in Italian, padded and
    /// upper-cased; Tianjin's old romanization, which no city of the data has) and one by code select, through the engine's listing by
    /// code and name, the very units its listing by predicate selected (what the check used before, each
    /// unit as stored asked in full), and answer each area as every unit does.
    @Test func areasByAnotherLanguagesNameAndByCodeSelectTheSameUnits() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let areas: [AdministrativeArea] = [.name("  PECHINO "), .name("Tientsin", level: .city), .code("110000", level: .province), .code("TW")]
        var filter = AreaKeyFilter(areas)
        let byText = try geocoder.administrativeUnits(withCode: filter.codes, orName: &filter)
        var before = AreaKeyFilter(areas)
        let byPredicate = try geocoder.administrativeUnits(where: { _, unit in before.accepts(unit) })
        #expect(byText == byPredicate)
        #expect(byText.contains { p in AdminLevel.allCases.contains { p[$0].names.values.contains("Pechino") && p.name(at: $0) != "Pechino" } })
        #expect(byText.contains { $0.isoCountryCode == "TW" } && byText.contains { $0.administrativeAreaCode == "110000" })
        let all = try KnownAdministrativeUnits(geocoder), some = try KnownAdministrativeUnits(geocoder, checking: areas)
        for area in areas {
            #expect(some.problem(with: area) == all.problem(with: area), "\(area)")
        }
        #expect(some.problem(with: areas[0]) == nil && some.problem(with: areas[2]) == nil && some.problem(with: areas[3]) == nil)
    }
}
