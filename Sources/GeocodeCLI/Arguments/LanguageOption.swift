import GeoModel
import ReverseGeocoder

/// `--lang TAGS`: BCP 47 tags, comma-separated, most preferred first, checked against the languages the
/// loaded datasets' names tables have.
enum LanguageOption {
    /// The tags of a `--lang` value, in order, each trimmed; `_` written as `-` (`zh_TW` → `zh-TW`).
    static func tags(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-") }
            .filter { !$0.isEmpty }
    }

    /// The value as the environment carries it, after checking its syntax (a usage error otherwise).
    static func parse(_ value: String) throws(CLIError) -> String {
        let list = tags(value)
        guard !list.isEmpty else { throw .usage("--lang needs at least one language tag (e.g. en, zh, zh-TW)") }
        for tag in list where !isTag(tag) {
            throw .usage("--lang: \"\(tag)\" is not a BCP 47 language tag (e.g. en, zh, zh-TW, sr-Latn)")
        }
        return list.joined(separator: ",")
    }

    /// Every requested tag must find a language some loaded dataset has names in, by the rule
    /// `Placemark.localized(to:)` falls back by (`LanguageMatch`: `zh-Hans-CN` finds `zh`, `zh` finds
    /// `zh-CN`). Data without names tables (no datasets described) is not checked. A usage error lists
    /// the languages there are.
    static func check(_ requested: [String], against datasets: [DatasetInfo]) throws(CLIError) {
        guard !requested.isEmpty, !datasets.isEmpty else { return }
        let available = Set(datasets.flatMap { $0.languages ?? [] }).sorted()
        for tag in requested where !isAvailable(tag, in: available) {
            let list = available.isEmpty ? "none: the loaded data has no names tables" : available.joined(separator: ", ")
            throw .usage("unknown language \"\(tag)\" for --lang (available: \(list))")
        }
    }

    static func isAvailable(_ tag: String, in available: [String]) -> Bool {
        LanguageMatch.best(for: tag, among: available) != nil
    }

    private static func isTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
