import GeoModel
import Testing

/// The documented fallback order of `Placemark.localized(to:)`: each preferred tag in order, each first
/// in the script it names or implies, then as written and shortened subtag by subtag, case-insensitively;
/// then the dataset's own name. Each level says its language.
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

    // MARK: Scripts (Hant/Hans, sr-Latn, pa-Arab): the names are the bundled tables' own rows.

    /// Abu Dhabi as the world data names it: the United Arab Emirates (Hong Kong and Taiwan write it
    /// differently) and the emirate, which has a Simplified name only.
    func abuDhabi() -> Placemark {
        var p = Placemark(country: "United Arab Emirates", isoCountryCode: "AE", administrativeArea: "Abu Dhabi",
                          administrativeAreaCode: "AE-AZ", dataset: "world")
        p[.country].names = ["en": "United Arab Emirates", "zh-CN": "阿联酋", "zh-HK": "阿拉伯聯合酋長國",
                             "zh-TW": "阿拉伯聯合大公國", "sr": "Уједињени Арапски Емирати",
                             "sr-Latn": "Ujedinjeni Arapski Emirati"]
        p[.province].names = ["zh-CN": "阿布扎比"]
        return p
    }

    /// What Apple platforms put in `Locale.preferredLanguages` (`zh-Hant-TW`, `zh-Hans-CN`): the script
    /// picks the names, the region the variant; never Simplified while a Traditional name is there.
    @Test func aScriptSubtagTakesANameInThatScript() {
        for (tag, name, language) in [
            ("zh-Hant", "阿拉伯聯合大公國", "zh-TW"),      // no region: Traditional's usual one, Taiwan
            ("zh-Hant-TW", "阿拉伯聯合大公國", "zh-TW"),
            ("zh-Hant-HK", "阿拉伯聯合酋長國", "zh-HK"),   // the region asked for first
            ("zh-Hant-MO", "阿拉伯聯合大公國", "zh-TW"),   // no zh-MO: Traditional's usual region
            ("ZH_hant_hk", "阿拉伯聯合酋長國", "zh-HK"),
            ("zh-Hans", "阿联酋", "zh-CN"),
            ("zh-Hans-CN", "阿联酋", "zh-CN"),
            ("zh-Hans-SG", "阿联酋", "zh-CN"),            // no zh-SG: Simplified all the same
            ("zh-Hans-HK", "阿联酋", "zh-CN"),            // the script before the region
        ] {
            let p = abuDhabi().localized(to: [tag])
            #expect(p.country == name && p.language(at: .country) == language, "\(tag)")
        }
        // The emirate has no Traditional name: the fallback as for `zh`, and it says it is zh-CN.
        let p = abuDhabi().localized(to: ["zh-Hant", "en"])
        #expect(p.administrativeArea == "阿布扎比" && p.language(at: .province) == "zh-CN")
        // A bare `zh` is as before: the first longer tag in sorted order.
        #expect(abuDhabi().localized(to: ["zh"]).language(at: .country) == "zh-CN")
    }

    /// A region without a script implies one (`zh-HK`, `zh-MO`: Traditional): California has a Taiwan
    /// name and no Hong Kong one, so Hong Kong takes Taiwan's, not the Simplified name.
    @Test func aRegionImpliesItsScript() {
        var p = Placemark(country: "United States", isoCountryCode: "US", administrativeArea: "California",
                          administrativeAreaCode: "US-CA", dataset: "world")
        p[.province].names = ["en": "California", "zh-CN": "加利福尼亚州", "zh-TW": "加利福尼亞"]
        for (tag, name, language) in [("zh-HK", "加利福尼亞", "zh-TW"), ("zh-MO", "加利福尼亞", "zh-TW"),
                                      ("zh-SG", "加利福尼亚州", "zh-CN"), ("zh-TW", "加利福尼亞", "zh-TW")] {
            let l = p.localized(to: [tag])
            #expect(l.administrativeArea == name && l.language(at: .province) == language, "\(tag)")
        }
    }

    /// The dataset's own name counts in the script its language implies (China's own names are `zh`,
    /// Simplified): `zh-Hans` keeps it, `zh-Hant` takes the table's Traditional name.
    @Test func theDatasetsOwnNameHasTheScriptOfItsLanguage() {
        var p = Placemark(country: "中国", isoCountryCode: "CN", administrativeArea: "北京市",
                          administrativeAreaCode: "110000", dataset: "china")
        p[.country].language = "zh"
        p[.country].names = ["en": "China", "zh-CN": "中国", "zh-HK": "中國", "zh-TW": "中國"]
        let traditional = p.localized(to: ["zh-Hant-TW"])
        #expect(traditional.country == "中國" && traditional.language(at: .country) == "zh-TW")
        let hongKong = p.localized(to: ["zh-Hant-HK"])
        #expect(hongKong.country == "中國" && hongKong.language(at: .country) == "zh-HK")
        let simplified = p.localized(to: ["zh-Hans"])
        #expect(simplified.country == "中国" && simplified.language(at: .country) == "zh")
    }

    /// The other languages the tables write in two scripts follow the same rule: Montenegro's Serbian is
    /// Latin (CLDR), Pakistan's Punjabi Shahmukhi (`pa-PK`; `Aran`, Nastaliq, is Arabic).
    @Test func otherLanguagesScriptsFollowTheSameRule() {
        for (tag, name, language) in [("sr-ME", "Ujedinjeni Arapski Emirati", "sr-Latn"),
                                      ("sr-Latn-RS", "Ujedinjeni Arapski Emirati", "sr-Latn"),
                                      ("sr-Cyrl-ME", "Уједињени Арапски Емирати", "sr"),
                                      ("sr-RS", "Уједињени Арапски Емирати", "sr")] {
            let p = abuDhabi().localized(to: [tag])
            #expect(p.country == name && p.language(at: .country) == language, "\(tag)")
        }
        var punjab = Placemark(country: "India", isoCountryCode: "IN", administrativeArea: "Punjab", dataset: "test")
        punjab[.province].names = ["pa": "ਪੰਜਾਬ", "pa-PK": "پنجاب"]
        for (tag, language) in [("pa-Arab", "pa-PK"), ("pa-Aran-PK", "pa-PK"), ("pa-Guru", "pa"), ("pa", "pa")] {
            #expect(punjab.localized(to: [tag]).language(at: .province) == language, "\(tag)")
        }
    }
}
