/// Which of a unit's language tags answers a requested one: the one rule behind
/// ``Placemark/localized(to:)`` and the CLI's check of `--lang` against the loaded names tables.
///
/// Tags are compared without regard to case; `-` and `_` both separate subtags (`EN_us` finds `en`).
package enum LanguageMatch {
    /// The index in `tags` of the tag that answers `requested`, nil when none does: `requested` as
    /// written, then shortened subtag by subtag (`zh-Hans-CN`, `zh-Hans`, `zh`); then a longer tag of
    /// each of those (`zh` takes `zh-CN`), the first in sorted order, so the answer never depends on the
    /// order of `tags`. Equal tags: the first in `tags`.
    package static func best(for requested: String, among tags: [String]) -> Int? {
        var chain: [Substring] = []
        var candidate = Substring(requested)
        while !candidate.isEmpty {
            if let i = tags.firstIndex(where: { $0.caseInsensitivelyEquals(candidate) }) { return i }
            chain.append(candidate)
            guard let dash = candidate.lastIndex(where: { $0 == "-" || $0 == "_" }) else { break }
            candidate = candidate[..<dash]
        }
        // No tag is the request or a shorter form of it: a more specific tag of the same language
        // ("zh" finds "zh-CN"), the first in sorted order.
        for candidate in chain {
            var found: Int?
            for (i, tag) in tags.enumerated() where tag.count > candidate.count && tag.hasLanguagePrefix(candidate) {
                if found == nil || tag < tags[found!] { found = i }
            }
            if let found { return found }
        }
        return nil
    }
}
