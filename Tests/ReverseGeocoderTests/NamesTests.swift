import Foundation
import Testing
@testable import ReverseGeocoder

/// Names in languages and the worldview, on a small dataset written here: the names table reaches
/// `Placemark.Unit.names` (fresh and through the index cache), a changed table makes the cache stale,
/// languages fall back as documented and say which one they are, and `isoCountryCodes` in the manifest
/// drives `isoCountryCode` under each worldview.
struct NamesTests {
    struct Setup {
        let dir: URL
        let shp: URL
        let names: URL
        let cache: URL

        init(_ name: String = #function, table: String = Setup.table) {
            dir = TestShapefile.directory(name)
            shp = TestShapefile.write(dir.appendingPathComponent("two"), fields: ["NAME", "CODE"], records: [
                .init(rings: [TestShapefile.box(0, 0, 1, 1)], ["NAME": "Eins", "CODE": "P1"]),
                .init(rings: [TestShapefile.box(1, 0, 2, 1)], ["NAME": "Zwei", "CODE": "P2"]),
            ])
            names = dir.appendingPathComponent("names.tsv")
            try! table.write(to: names, atomically: true, encoding: .utf8)
            cache = dir.appendingPathComponent("cache")
        }

        static let table = """
            # geocode names 1
            country\tXA\ten=Testland\tzh-CN=测试国\tzh-TW=測試國
            province\tP1\ten=One\tfr=Un\tzh-CN=一
            province\tP2\ten=Two

            """

        var manifest: DatasetManifest {
            var m = TestShapefile.manifest("two", file: shp, constants: [.country: .init(name: "Testland-own", code: "XA")])
            m.names = names.path
            m.isoCountryCodes = ["province": ["P2": "TW"]]
            return m
        }

        func engine(_ options: ReverseGeocoder.Options = .init(cellSize: 0.1)) throws -> ReverseGeocoder {
            try ReverseGeocoder(manifests: [(manifest, nil)], options: options)
        }
    }

    @Test func theTableFillsEachLevelsNamesByCode() throws {
        let g = try Setup().engine()
        let p = try #require(try g.placemark(latitude: 0.5, longitude: 0.5))
        #expect(p.administrativeArea == "Eins")  // the data's own name by default
        #expect(p.language(at: .province) == nil)
        #expect(p[.province].names == ["en": "One", "fr": "Un", "zh-CN": "一"])
        #expect(p[.country].names == ["en": "Testland", "zh-CN": "测试国", "zh-TW": "測試國"])
        #expect(g.languages == ["en", "fr", "zh-CN", "zh-TW"])
        #expect(g.datasets[0].languages == ["en", "fr", "zh-CN", "zh-TW"])
    }

    @Test func preferredLanguagesNameEveryLevelAndSayWhichLanguage() throws {
        let g = try Setup().engine(.init(cellSize: 0.1, preferredLanguages: ["fr", "en"]))
        let p = try #require(try g.placemark(latitude: 0.5, longitude: 0.5))
        #expect(p.administrativeArea == "Un")
        #expect(p.language(at: .province) == "fr")
        #expect(p.country == "Testland")  // no French name: the next preferred language
        #expect(p.language(at: .country) == "en")
        let q = try #require(try g.placemark(latitude: 0.5, longitude: 1.5))
        #expect(q.administrativeArea == "Two")
        #expect(q.language(at: .province) == "en")
    }

    @Test func aLanguageTheTableLacksFallsBackToTheDatasetsOwnNames() throws {
        let g = try Setup().engine(.init(cellSize: 0.1, preferredLanguages: ["ja"]))
        let p = try #require(try g.placemark(latitude: 0.5, longitude: 1.5))
        #expect(p.administrativeArea == "Zwei")
        #expect(p.language(at: .province) == nil)
        #expect(p.country == "Testland-own")
        #expect(p.language(at: .country) == nil)
    }

    @Test func aShortTagFindsALongerTagAndALongTagItsShorterForms() throws {
        let p = try #require(try Setup().engine().placemark(latitude: 0.5, longitude: 0.5))
        // "zh" has no name of its own: the first longer tag in sorted order, zh-CN.
        let zh = p.localized(to: ["zh"])
        #expect(zh.country == "测试国")
        #expect(zh.language(at: .country) == "zh-CN")
        // "zh-TW" exactly; "en-GB" shortened to "en"; case does not matter.
        #expect(p.localized(to: ["zh-tw"]).country == "測試國")
        let en = p.localized(to: ["en-GB"])
        #expect(en.country == "Testland")
        #expect(en.language(at: .country) == "en")
    }

    @Test func worldviewFollowsTheManifestsISOCodesByDefault() throws {
        let s = Setup()
        let iso = try s.engine()
        #expect(try iso.placemark(latitude: 0.5, longitude: 0.5)?.isoCountryCode == "XA")
        let p2 = try #require(try iso.placemark(latitude: 0.5, longitude: 1.5))
        #expect(p2.isoCountryCode == "TW")
        #expect(p2.country == "Testland-own")  // names stay the dataset's
        let own = try s.engine(.init(cellSize: 0.1, worldview: .dataset))
        #expect(try own.placemark(latitude: 0.5, longitude: 1.5)?.isoCountryCode == "XA")
    }

    @Test func namesRoundTripThroughTheIndexCacheAndAChangedTableMakesItStale() throws {
        let s = Setup()
        let options = ReverseGeocoder.Options(cellSize: 0.1, cacheDirectory: s.cache)
        let fresh = try s.engine(options)
        #expect(fresh.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
        let cached = try s.engine(options)
        #expect(cached.datasets[0].cacheStatus == "loaded")
        #expect(cached.datasets[0].languages == fresh.datasets[0].languages)
        for lon in [0.5, 1.5] {
            #expect(try cached.placemark(latitude: 0.5, longitude: lon) == fresh.placemark(latitude: 0.5, longitude: lon))
        }
        // Same size, other contents: only the hash can tell.
        let changed = Setup.table.replacingOccurrences(of: "en=One", with: "en=Uno")
        #expect(changed.utf8.count == Setup.table.utf8.count)
        try changed.write(to: s.names, atomically: true, encoding: .utf8)
        let after = try s.engine(options)
        #expect(after.datasets[0].cacheStatus?.hasPrefix("rebuilt (stale: ") == true)
        #expect(after.datasets[0].cacheStatus?.contains("names.tsv") == true)
        #expect(try after.placemark(latitude: 0.5, longitude: 0.5)?[.province].names["en"] == "Uno")
    }

    /// Every unit repeats its country's names: the cache writes each distinct names text once per layer
    /// and decodes it once, and what it reads back is what was written.
    @Test func theCacheWritesRepeatedNamesOnce() throws {
        var a = Placemark(country: "X", isoCountryCode: "XA", administrativeArea: "A", dataset: "d")
        a[.country].names = ["en": "Testland", "fr": "Testlande", "zh-CN": "测试国"]
        var b = a
        b.administrativeArea = "B"
        b[.province].names = ["en": "Bee"]
        var slots: [UInt32] = [], text: [UInt8] = [], pool = PlacemarkSlots.NamesPool()
        for p in [a, b, a] { PlacemarkSlots.append(p, slots: &slots, text: &text, pool: &pool) }
        let country = "en\u{1F}Testland\u{1E}fr\u{1F}Testlande\u{1E}zh-CN\u{1F}测试国"
        let occurrences = String(decoding: text, as: UTF8.self).components(separatedBy: country).count - 1
        #expect(occurrences == 1)
        try slots.withUnsafeBufferPointer { s in
            try text.withUnsafeBytes { bytes in
                var readPool = PlacemarkSlots.NamesPool()
                let back = try (0..<3).map { try PlacemarkSlots.read($0, slots: s, bytes: bytes, dataset: "d", pool: &readPool) }
                #expect(back == [a, b, a])
                #expect(readPool.decoded.count == 2)  // the country's names and B's province names
            }
        }
    }

    @Test func aNamesTableDigestMismatchIsAModifiedFile() throws {
        let s = Setup()
        var m = s.manifest
        m.files = [s.names.path: .init(bytes: 1, sha256: String(repeating: "0", count: 64))]
        #expect(throws: GeocoderError.self) { try ReverseGeocoder(manifests: [(m, nil)], options: .init(cellSize: nil)) }
        let allowed = try ReverseGeocoder(manifests: [(m, nil)], options: .init(cellSize: nil, allowModifiedData: true))
        #expect(allowed.datasets[0].modifiedFiles?.map(\.file) == [s.names.path])
    }

    @Test(arguments: [
        ("province\tP1", "line 1: expected level, code and at least one tag=name"),
        ("town\tP1\ten=x", "line 1: unknown level \"town\""),
        ("# c\nprovince\tP1\ten", "line 2: \"en\" is not tag=name"),
        ("province\tP1\te1=x", "line 1: \"e1\" is not a BCP 47 language tag"),
        ("province\tP1\ten=x\nprovince\tP1\tfr=y", "line 2: province P1 listed twice"),
        ("province\tP1\ten=x\ten=y", "line 1: province P1: language en twice"),
    ])
    func aMalformedTableIsAnErrorNamingTheLine(text: String, reason: String) {
        #expect {
            _ = try NamesTable.parse(text, file: "/x/names.tsv")
        } throws: { error in
            "\(error)".contains("/x/names.tsv") && "\(error)".contains(reason)
        }
    }

    /// A table saved with Windows line ends reads as the same table. Cut as Characters, `\r\n` is one
    /// Character, so the lines did not split and the table was refused.
    @Test func windowsLineEndsReadAsTheSameTable() throws {
        let lines = ["# geocode names 1", "province\tP1\ten=Beijing\tzh=北京市", "city\tC1\tfr=Évreux\tru=Эврё", ""]
        let unix = try NamesTable.parse(lines.joined(separator: "\n"), file: "/x/names.tsv")
        let windows = try NamesTable.parse(lines.joined(separator: "\r\n"), file: "/x/names.tsv")
        #expect(windows.units == unix.units && windows.languages == unix.languages)
        #expect(unix.names(at: .province, code: "P1") == ["en": "Beijing", "zh": "北京市"])
        #expect(unix.names(at: .city, code: "C1")["ru"] == "Эврё")
        #expect(unix.languages == ["en", "fr", "ru", "zh"])
    }

    @Test func aMissingTableIsAnErrorNamingTheFile() throws {
        let s = Setup()
        try FileManager.default.removeItem(at: s.names)
        #expect {
            _ = try s.engine()
        } throws: { error in "\(error)".contains(s.names.path) }
    }

    @Test func manifestChecksItsISOCountryCodes() throws {
        var m = Setup().manifest
        m.isoCountryCodes = ["town": ["P1": "TW"]]
        #expect(throws: GeocoderError.self) { try m.validate(file: "m.json") }
        m.isoCountryCodes = ["province": ["P1": "Taiwan"]]
        #expect(throws: GeocoderError.self) { try m.validate(file: "m.json") }
        // Both keys survive a JSON round trip (the index cache hashes the encoded manifest).
        m.isoCountryCodes = ["province": ["P2": "TW"]]
        let back = try JSONDecoder().decode(DatasetManifest.self, from: JSONEncoder().encode(m))
        #expect(back.names == m.names && back.isoCountryCodes == m.isoCountryCodes)
    }
}
