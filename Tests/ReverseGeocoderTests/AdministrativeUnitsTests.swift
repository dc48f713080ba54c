import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// `administrativeUnits()`: the engine's list of its units, what a region file's codes and names are
/// checked against. Every unit shapely finds for the oracle's points (Fixtures/data-oracle, computed
/// outside the engine) must be in it, with its code and name at its level and its country; it has one
/// placemark per unit of each admin layer (the load statistics' count), none of an overlay.
@Suite(.serialized)
struct AdministrativeUnitsTests {
    /// "level|code|country" and "level|name|country" of every unit listed.
    static func keys(_ units: [Placemark]) -> Set<String> {
        var keys = Set<String>()
        for p in units {
            for level in AdminLevel.allCases {
                let country = p.isoCountryCode ?? ""
                if let code = p.code(at: level) { keys.insert("\(level)|code \(code)|\(country)") }
                if let name = p.name(at: level) { keys.insert("\(level)|name \(name)|\(country)") }
            }
        }
        return keys
    }

    @Test func everyUnitTheOracleFindsIsListed() async throws {
        try await offPool { try Self.everyUnitTheOracleFindsIsListedBody() }
    }

    static func everyUnitTheOracleFindsIsListedBody() throws {
        let geocoder = try BundledDataTests.geocoder.get()
        let units = try geocoder.administrativeUnits()
        let admin = geocoder.datasets.filter { $0.role == .admin }
        #expect(units.count == admin.flatMap(\.layers).map(\.units).reduce(0, +))
        #expect(Set(units.map(\.dataset)) == Set(admin.map(\.name)), "no overlay (time zone) units")
        let keys = Self.keys(units)
        let points = try BundledDataTests.fixture("random_points") + BundledDataTests.fixture("spot_checks")
        var checked = 0, missing: [String] = []
        for expected in points.compactMap(\.expect) {
            let country = expected.isoCountryCode ?? ""
            let wanted: [(AdminLevel, String, String?)] = [
                (.country, "name", expected.country), (.country, "code", expected.isoCountryCode),
                (.province, "name", expected.administrativeArea), (.province, "code", expected.administrativeAreaCode),
                (.city, "name", expected.locality), (.city, "code", expected.localityCode),
                (.district, "name", expected.subLocality), (.district, "code", expected.subLocalityCode),
            ]
            for (level, kind, value) in wanted {
                guard let value else { continue }
                checked += 1
                if !keys.contains("\(level)|\(kind) \(value)|\(country)") { missing.append("\(level) \(kind) \(value) in \(country)") }
            }
        }
        #expect(checked > 5000)
        #expect(missing.isEmpty, "\(missing.prefix(10))")
        // As answers show them: Taiwan's province is TW under the ISO worldview (the default).
        #expect(keys.contains("province|code 710000|TW") && !keys.contains("province|code 710000|CN"))
        #expect(!keys.contains { $0.hasPrefix("city|code 131001|") }, "no made-up code")
    }

    /// `administrativeUnits(where:)`: the placemarks of `administrativeUnits()` with a level the
    /// predicate accepts, in the same order, each as answers show it, though it is asked once per
    /// distinct unit and sees the units as stored: a country's code as the worldview gives it (the China
    /// data's 台湾省 is in TW), names as the dataset gives them.
    @Test func aSelectionIsTheListFiltered() async throws {
        try await offPool { try Self.aSelectionIsTheListFilteredBody() }
    }

    static func aSelectionIsTheListFilteredBody() throws {
        let geocoder = try BundledDataTests.geocoder.get()
        let all = try geocoder.administrativeUnits()
        let codes: Set<String> = ["TW", "110000", "DE-BE", "US-CA"]
        var asked = 0
        let some = try geocoder.administrativeUnits(where: { _, unit in
            asked += 1
            return codes.contains(unit.code ?? "") || unit.name == "东城区" || unit.names.values.contains("Zürich")
        })
        let expected = all.filter { p in
            AdminLevel.allCases.contains { codes.contains(p.code(at: $0) ?? "") || p.name(at: $0) == "东城区" || p[$0].names.values.contains("Zürich") }
        }
        #expect(some == expected)
        #expect(some.contains { $0.administrativeAreaCode == "710000" && $0.isoCountryCode == "TW" }, "台湾省 by TW")
        #expect(some.contains { $0.administrativeAreaCode == "CH-ZH" } && some.contains { $0.subLocality == "东城区" })
        // Asked once per unit, not once per level of every placemark (a country recurs in each of its localities').
        let levels = all.reduce(0) { n, p in n + AdminLevel.allCases.filter { p.code(at: $0) != nil || p.name(at: $0) != nil }.count }
        #expect(expected.count * 20 < all.count && asked * 2 < levels, "\(expected.count) placemarks; \(asked) units asked, of \(levels) levels")
    }

    /// `administrativeUnits(withCode:orName:)` on the bundled data mapped and checked on first use (what
    /// `geocode track --region` loads): the units a code or a name in another language selects are the
    /// full list's (a checked load's) filtered, and only their placemarks are decoded, where the listing
    /// through `administrativeUnits(where:)` decoded every one of them.
    @Test func aLazyLoadSelectsByCodeAndNameDecodingOnlyWhatItSelects() async throws {
        try await offPool { try Self.aLazyLoadSelectsByCodeAndNameBody() }
    }

    static func aLazyLoadSelectsByCodeAndNameBody() throws {
        let checked = try BundledDataTests.geocoder.get()
        _ = try BundledData.geocoder()  // the shared cache's files, with the default cell size
        let lazy = try ReverseGeocoder(directory: BundledData.directory,
                                       options: .init(cacheDirectory: BundledData.cacheDirectory, hugePages: false, verifyOnFirstUse: true))
        let adminLayers = lazy.loaded.filter { $0.manifest.role == .admin }.flatMap(\.layers)
        let firstUse = adminLayers.compactMap(\.firstUse)
        #expect(firstUse.count == adminLayers.count && !firstUse.isEmpty)
        func decoded() -> Int { firstUse.reduce(0) { n, layer in n + (0..<layer.units).filter { layer.placemark($0) != nil }.count } }
        #expect(decoded() == 0)
        // Codes (TW: 台湾省's country as the worldview gives it), and names in other languages than the
        // one shown: Beijing in Italian, Tianjin's old romanization, Zürich's own spelling.
        let codes: Set<String> = ["110000", "TW", "DE-BE"]
        let names: Set<String> = ["Pechino", "Tientsin", "Zürich"]
        var asked = 0
        let some = try lazy.administrativeUnits(withCode: codes, orName: { asked += 1; return names.contains($0) })
        let all = try checked.administrativeUnits()
        let expected = all.filter { p in
            AdminLevel.allCases.contains { level in
                (p.code(at: level) != nil || p.name(at: level) != nil) && p[level].has(codeIn: codes, orName: { names.contains($0) })
            }
        }
        #expect(some == expected)
        #expect(some.contains { $0.administrativeAreaCode == "710000" && $0.isoCountryCode == "TW" }, "台湾省 by TW")
        #expect(some.contains { p in AdminLevel.allCases.contains { p[$0].names.values.contains("Pechino") && p.name(at: $0) != "Pechino" } },
                "selected by a name it does not show")
        #expect(expected.count * 20 < all.count, "\(expected.count)")
        #expect(decoded() == some.count, "only the selected placemarks are decoded")
        #expect(asked > 0)
    }

    /// The selection by code or name has two paths: placemarks decoded (a checked load: a unit asked
    /// through `Placemark.Unit.has(codeIn:orName:)`) and codes and names read from the index cache's
    /// slots (a load checked on first use). Both go through one rule (`Placemark.Unit.selects`); the same
    /// queries through both, on the bundled data, must select the same placemarks, or the two have
    /// drifted apart: by code (TW, which only the worldview gives 台湾省's placemarks), by the name a unit
    /// shows, by names only in other languages, and by a test that accepts many names (every name
    /// starting "Zh", at every level).
    @Test func bothPathsSelectTheSameUnits() async throws {
        try await offPool { try Self.bothPathsSelectTheSameUnitsBody() }
    }

    static func bothPathsSelectTheSameUnitsBody() throws {
        let checked = try BundledDataTests.geocoder.get()
        _ = try BundledData.geocoder()
        let lazy = try ReverseGeocoder(directory: BundledData.directory,
                                       options: .init(cacheDirectory: BundledData.cacheDirectory, hugePages: false, verifyOnFirstUse: true))
        #expect(checked.loaded.flatMap(\.layers).allSatisfy { $0.firstUse == nil })
        #expect(lazy.loaded.filter { $0.manifest.role == .admin }.flatMap(\.layers).allSatisfy { $0.firstUse != nil })
        let queries: [(codes: Set<String>, names: (String) -> Bool, least: Int)] = [
            (["TW", "DE-BE", "110000"], { _ in false }, 3),
            ([], { $0 == "东城区" || $0 == "Bavaria" }, 2),
            ([], { ["Allemagne", "Baviera", "Pechino", "Tientsin"].contains($0) }, 4),
            (["CN"], { $0.hasPrefix("Zh") }, 500),
        ]
        for (k, query) in queries.enumerated() {
            let decoded = try checked.administrativeUnits(withCode: query.codes, orName: query.names)
            let stored = try lazy.administrativeUnits(withCode: query.codes, orName: query.names)
            let same = stored == decoded  // not in the expectation: it would print tens of thousands of placemarks
            #expect(same, "query \(k): \(stored.count) placemarks read from the slots, \(decoded.count) decoded")
            #expect(decoded.count >= query.least, "query \(k): \(decoded.count)")
        }
    }
}
