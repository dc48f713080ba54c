import GeoModel
import Testing

/// The documented fallback order of `Placemark.localized(to:)`: each preferred tag in order, each as
/// written then shortened subtag by subtag, case-insensitively; then the dataset's own name. Each level
/// says its language.
@Suite struct LanguageTests {
    func beijing() -> Placemark {
        var p = Placemark(country: "中国", isoCountryCode: "CN", administrativeArea: "北京市", administrativeAreaCode: "110000",
                          locality: "北京市", subLocality: "东城区", dataset: "china")
        p[.country].language = "zh"
        p[.country].names = ["en": "China", "fr": "Chine", "zh-Hant": "中國"]
        p[.province].names = ["en": "Beijing"]
        // The district has no other names; the city's own name has no recorded language.
        return p
    }

    @Test func firstPreferredLanguageWins() {
        let p = beijing().localized(to: ["fr", "en"])
        #expect(p.country == "Chine" && p.language(at: .country) == "fr")
        #expect(p.administrativeArea == "Beijing" && p.language(at: .province) == "en")   // no French: English next
        #expect(p.subLocality == "东城区" && p.language(at: .district) == nil)            // none: the dataset's own
        #expect(p.locality == "北京市" && p.language(at: .city) == nil)
    }

    @Test func tagsShortenSubtagBySubtag() {
        let traditional = beijing().localized(to: ["zh-Hant-TW"])
        #expect(traditional.country == "中國" && traditional.language(at: .country) == "zh-Hant")
        let simplified = beijing().localized(to: ["zh-Hans-CN"])
        // zh-Hans-CN → zh-Hans → zh: the dataset's own name is Chinese (language "zh").
        #expect(simplified.country == "中国" && simplified.language(at: .country) == "zh")
        let english = beijing().localized(to: ["EN_us"])
        #expect(english.country == "China" && english.language(at: .country) == "en")
    }

    @Test func unknownLanguagesKeepTheDatasetsNames() {
        let p = beijing()
        #expect(p.localized(to: ["de", "ja"]) == p)
        #expect(p.localized(to: []) == p)
        // The table writes the language next to each name.
        let q = p.localized(to: ["en"])
        #expect(PlacemarkField.level(.country, .language).value(of: q) == .text("en"))
        #expect(PlacemarkField.level(.district, .language).value(of: q) == .text(nil))
    }

    @Test func laterPreferencesOnlyWhenEarlierOnesAreMissing() {
        // "de" is missing everywhere, so each level takes the next one it has.
        let p = beijing().localized(to: ["de", "zh-Hant", "en"])
        #expect(p.country == "中國")
        #expect(p.administrativeArea == "Beijing")
    }
}
