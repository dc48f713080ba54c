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
        var asked = NamesWhere { names.contains($0) }
        let some = try lazy.administrativeUnits(withCode: codes, orName: &asked)
        let all = try checked.administrativeUnits()
        let expected = all.filter { p in
            AdminLevel.allCases.contains { level in
                var names = NamesWhere { names.contains($0) }
                return p[level].has(codeIn: codes, orName: &names)
            }
        }
        #expect(some == expected)
        #expect(some.contains { $0.administrativeAreaCode == "710000" && $0.isoCountryCode == "TW" }, "台湾省 by TW")
        #expect(some.contains { p in AdminLevel.allCases.contains { p[$0].names.values.contains("Pechino") && p.name(at: $0) != "Pechino" } },
                "selected by a name it does not show")
        #expect(expected.count * 20 < all.count, "\(expected.count)")
        #expect(decoded() == some.count, "only the selected placemarks are decoded")
        #expect(asked.asked > 0)
    }

    /// The listing by code or name on a load checked on first use reads every unit's codes and names
    /// from the placemark slots and text (every block of both: bundled data, all 437 text blocks), so it
    /// checks both sections whole before it reads them: a byte flipped in the first or the last block of
    /// either is thrown as damage naming the cache file, whatever the query asks.
    @Test func aFlippedByteInThePlacemarkSectionsIsFoundByTheListing() async throws {
        try await offPool {
            let s = CacheDamageTests.Setup("listing-damage")
            _ = try s.engine(firstUse: false)
            let template = [UInt8](try Data(contentsOf: s.cacheFile))
            let sections = try IndexCache.meta(ofFile: template).sections.filter { $0.name.hasSuffix(" placemarks") || $0.name.hasSuffix(" placemark text") }
            #expect(sections.count == 2, "\(sections.map(\.name))")
            for (section, stride, name) in sections {
                for position in [0, section.count * stride - 1] {
                    var file = template
                    file[section.offset + position] ^= 0x40
                    try Data(file).write(to: s.cacheFile)
                    let g = try s.engine(firstUse: true)
                    var names = NamesIn(["no such name"])
                    let reason = "index cache damaged: checksum mismatch in \(name) (block \(position / CacheVerifier.blockSize))"
                    #expect(throws: GeocoderError.corrupt(file: s.cacheFile.path, record: nil, reason: reason), "\(name) byte \(position)") {
                        try g.administrativeUnits(withCode: ["no such code"], orName: &names)
                    }
                }
            }
        }
    }

    /// The selection by code or name has two paths: placemarks decoded (a checked load: a unit asked
    /// through `Placemark.Unit.has(codeIn:orName:)`) and codes and names read from the index cache's
    /// slots as bytes (a load checked on first use). Both go through one rule (`Placemark.Unit.selects`);
    /// the same queries through both, on the bundled data, must select the same placemarks, or the two
    /// have drifted apart: by code (TW, which only the worldview gives 台湾省's placemarks), by the name a
    /// unit shows, by names only in other languages, by a test that accepts many names (every name
    /// starting "Zh", at every level), and by names asked about as bytes (`TextSet`), one decomposed.
    /// The closure forms (the simple public API) select as the ``UnitNameTest`` forms they wrap.
    @Test func theClosureFormsSelectAsTheTestForms() async throws {
        try await offPool {
            let geocoder = try BundledDataTests.geocoder.get()
            let wanted = ["Zürich", "东城区", "Bavaria"], codes: Set<String> = ["DE-BE", "120000"]
            var test = NamesIn(wanted)
            let byTest = try geocoder.administrativeUnits(withCode: codes, orName: &test)
            let byClosure = try geocoder.administrativeUnits(withCode: codes, orName: { wanted.contains($0) })
            #expect(byClosure == byTest && byTest.count >= 4, "\(byTest.count) placemarks")
            let unit = Placemark.Unit(name: "München", code: "DE-BY-M", names: ["en": "Munich", "it": "Monaco di Baviera"])
            for (codes, names, selected) in [([], ["Munich"], true), ([], ["Monaco"], false), (["DE-BY-M"], [], true), ([], ["München"], true)] {
                var t = NamesIn(names)
                #expect(unit.has(codeIn: Set(codes), orName: { names.contains($0) }) == selected && unit.has(codeIn: Set(codes), orName: &t) == selected,
                        "\(codes) \(names)")
            }
        }
    }

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
        func compare<Names: UnitNameTest>(_ query: String, codes: Set<String>, _ names: Names, least: Int) throws {
            var a = names, b = names
            let decoded = try checked.administrativeUnits(withCode: codes, orName: &a)
            let stored = try lazy.administrativeUnits(withCode: codes, orName: &b)
            let same = stored == decoded  // not in the expectation: it would print thousands of placemarks
            #expect(same, "\(query): \(stored.count) placemarks read from the slots, \(decoded.count) decoded")
            #expect(decoded.count >= least, "\(query): \(decoded.count)")
        }
        try compare("codes", codes: ["TW", "DE-BE", "110000"], NamesWhere { _ in false }, least: 3)
        try compare("shown names", codes: [], NamesWhere { $0 == "东城区" || $0 == "Bavaria" }, least: 2)
        try compare("other languages", codes: [], NamesWhere { ["Allemagne", "Baviera", "Pechino", "Tientsin"].contains($0) }, least: 4)
        try compare("many", codes: ["CN"], NamesWhere { $0.hasPrefix("Zh") }, least: 500)
        try compare("as bytes", codes: [], NamesIn(["Zu\u{308}rich", "Pechino", "东城区"]), least: 3)
    }
}

/// Names asked about through a predicate on the String: the engine's bytes are made a String first (the
/// protocol's default).
struct NamesWhere: UnitNameTest {
    let accepts: (String) -> Bool
    /// How many names were asked about.
    var asked = 0

    mutating func hasName(_ name: String) -> Bool {
        asked += 1
        return accepts(name)
    }
}

/// Exactly these names, by String's equality, asked about as bytes where a catalog has them.
struct NamesIn: UnitNameTest {
    let names: TextSet

    init(_ names: [String]) { self.names = TextSet(names) }

    func hasName(_ name: String) -> Bool { names.contains(name) }
    func hasName(utf8 name: UnsafeRawBufferPointer) -> Bool { names.contains(utf8: name) }
}
