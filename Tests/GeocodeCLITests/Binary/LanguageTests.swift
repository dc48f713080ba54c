import Foundation
import Testing

/// `--lang` and `--worldview` through the real binary on the bundled Data/: the done-when
/// examples, the error for a language no dataset has, and a language a level lacks.
@Suite(.serialized)
struct LanguageTests {
    /// `input`: stdin, a pipe that holds it (as `producer | geocode batch -` gives it); nil: /dev/null.
    static func run(_ arguments: [String], input: String? = nil) async throws -> GeocodeBinary.Result {
        if let input { return try await GeocodeBinary.run(arguments, piped: input, environment: TrackAndInfoTests.realData) }
        return try await GeocodeBinary.run(arguments, environment: TrackAndInfoTests.realData)
    }

    static func placemark(_ r: GeocodeBinary.Result) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return try #require(object["placemark"] as? [String: Any])
    }

    @Test func englishNamesBeijing() async throws {
        let r = try await Self.run(["--json", "--lang", "en", "39.9087", "116.3975"])
        #expect(r.status == 0, "\(r.err)")
        let p = try Self.placemark(r)
        #expect(p["country"] as? String == "China")
        #expect(p["administrativeArea"] as? String == "Beijing")
        #expect(p["locality"] as? String == "Beijing")
        #expect(p["administrativeAreaLanguage"] as? String == "en")
        // The district has no English name in the data: the dataset's own, language unknown (null).
        #expect(p["subLocality"] as? String == "东城区")
        #expect(p["subLocalityLanguage"] is NSNull)
    }

    @Test func chineseNamesFrance() async throws {
        let r = try await Self.run(["--json", "--lang", "zh", "48.8566", "2.3522"])
        #expect(r.status == 0, "\(r.err)")
        let p = try Self.placemark(r)
        #expect(p["country"] as? String == "法国")
        #expect(p["countryLanguage"] as? String == "zh-CN")
        #expect(p["isoCountryCode"] as? String == "FR")
    }

    /// QA's case: the tags Apple platforms put in the preferred languages (`zh-Hant`, `zh-Hant-TW`)
    /// answered Simplified names (法国, zh-CN) though the data has Traditional ones.
    @Test func chineseNamesFranceByScript() async throws {
        for (tag, name, language) in [("zh-Hant", "法國", "zh-TW"), ("zh-Hant-TW", "法國", "zh-TW"),
                                      ("zh-Hant-HK", "法國", "zh-HK"), ("zh-Hans", "法国", "zh-CN"),
                                      ("zh-Hans-CN", "法国", "zh-CN")] {
            let r = try await Self.run(["--json", "--lang", tag, "48.85", "2.35"])
            #expect(r.status == 0, "\(tag): \(r.err)")
            let p = try Self.placemark(r)
            #expect(p["country"] as? String == name, "\(tag)")
            #expect(p["countryLanguage"] as? String == language, "\(tag)")
        }
    }

    @Test func withoutLangTheDatasNamesStay() async throws {
        let p = try Self.placemark(try await Self.run(["--json", "48.8566", "2.3522"]))
        #expect(p["country"] as? String == "France")
        #expect(p["countryLanguage"] is NSNull)
    }

    @Test func severalLanguagesFallBackInOrder() async throws {
        // isiXhosa has a name for France, none for Île-de-France (the localities' admin-1, ISO FR-IDF):
        // the next language, French, names it (iso-codes' fr catalogue; the names table lists every
        // ISO 3166-2 code, not only the world dataset's own provinces).
        let r = try await Self.run(["--json", "--lang", "xh,fr", "48.8566", "2.3522"])
        #expect(r.status == 0, "\(r.err)")
        let p = try Self.placemark(r)
        #expect(p["country"] as? String == "Franisi")  // iso-codes xh (isiXhosa) for France
        #expect(p["countryLanguage"] as? String == "xh")
        #expect(p["administrativeArea"] as? String == "Île-de-France")
        #expect(p["administrativeAreaLanguage"] as? String == "fr")
        // The locality (a GeoNames place) has names in neither: the data's own, language not recorded.
        #expect(p["locality"] is String)
        #expect(p["localityLanguage"] is NSNull)
    }

    @Test func anUnknownLanguageIsAUsageErrorListingTheAvailableOnes() async throws {
        let r = try await Self.run(["--lang", "qq", "48.8566", "2.3522"])
        #expect(r.status == 2)
        #expect(r.out.isEmpty)
        #expect(r.err.contains("unknown language \"qq\" for --lang (available: "))
        for tag in ["en", "fr", "zh", "zh-CN", "zh-TW", "de"] { #expect(r.err.contains(" \(tag),") || r.err.contains(" \(tag))")) }
        let bad = try await Self.run(["--lang", "e1", "48.8566", "2.3522"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("\"e1\" is not a BCP 47 language tag"))
    }

    @Test func worldview() async throws {
        let iso = try Self.placemark(try await Self.run(["--json", "25.034", "121.5645"]))
        #expect(iso["isoCountryCode"] as? String == "TW" && iso["country"] as? String == "中国")
        let own = try Self.placemark(try await Self.run(["--json", "--worldview", "dataset", "25.034", "121.5645"]))
        #expect(own["isoCountryCode"] as? String == "CN")
        let hk = try Self.placemark(try await Self.run(["--json", "22.2783", "114.1747"]))
        #expect(hk["isoCountryCode"] as? String == "HK")
        let bad = try await Self.run(["--worldview", "mars", "1", "2"])
        #expect(bad.status == 2 && bad.err.contains("unknown worldview \"mars\""))
    }

    @Test func batchTakesLang() async throws {
        let r = try await Self.run(["batch", "-", "-q", "--fields", "country,province,city", "--lang", "en"],
                                   input: "lat,lon\n39.9087,116.3975\n48.8566,2.3522\n")
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n").map(String.init)
        #expect(rows.count == 3)
        #expect(rows[1].contains("China") && rows[1].contains("Beijing"))
        #expect(rows[2].contains("France"))
        let unknown = try await Self.run(["batch", "-", "-q", "--lang", "qq"], input: "lat,lon\n1,2\n")
        #expect(unknown.status == 2 && unknown.err.contains("unknown language \"qq\""))
    }

    @Test func trackTakesLang() async throws {
        let gpx = TrackAndInfoTests.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let r = try await Self.run(["track", "--gpx", gpx, "--speed", "max", "--lang", "en"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.filter { $0.contains("city changed") }.map { $0.split(separator: " ", maxSplits: 1)[1] }
                == ["city changed Beijing → Langfang", "city changed Langfang → Tianjin"])
        #expect(lines.dropFirst().first == "2023-11-14T22:13:20Z placemark China / Beijing / Beijing / 东城区")
    }
}
