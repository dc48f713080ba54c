@testable import GeocodeCLI
import Testing

/// `--lang`'s check against the loaded names tables accepts exactly the tags `Placemark.localized(to:)`
/// finds a name for (the same rule, `LanguageMatch`), so no tag that would be answered is refused.
@Suite struct LanguageOptionTests {
    /// The world dataset's Chinese tags alone (no bare `zh`: that is the China dataset's).
    let world = ["de", "en", "pa-PK", "sr", "sr-Latn", "zh-CN", "zh-HK", "zh-TW"]

    @Test func tagsTheNamesAnswerAreAvailable() {
        // What Apple platforms put in Locale.preferredLanguages: refused before, though named.
        for tag in ["zh-Hant", "zh-Hant-TW", "zh-Hans", "zh-Hans-CN", "zh-Hant-HK"] {
            #expect(LanguageOption.isAvailable(tag, in: world), "\(tag)")
        }
        for tag in ["zh", "zh-TW", "ZH-tw", "en-GB", "sr-Latn-RS", "sr-Cyrl", "pa", "pa-Arab"] {
            #expect(LanguageOption.isAvailable(tag, in: world), "\(tag)")
        }
        for tag in ["qq", "fr", "e"] { #expect(!LanguageOption.isAvailable(tag, in: world), "\(tag)") }
    }
}
