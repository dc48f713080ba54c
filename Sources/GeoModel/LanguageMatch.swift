/// Which of a unit's language tags answers a requested one: the one rule behind
/// ``Placemark/localized(to:)`` and the CLI's check of `--lang` against the loaded names tables.
///
/// Tags are compared without regard to case; `-` and `_` both separate subtags (`EN_us` finds `en`).
package enum LanguageMatch {
    /// The index in `tags` of the tag that answers `requested`, nil when none does. In order:
    ///
    /// 1. When `requested` has a script or a region subtag: a tag of the same language and script, by
    ///    the script each names or implies (``scripts``: `zh-TW`, `zh-HK`, `zh-MO` are Traditional, `zh`,
    ///    `zh-CN`, `zh-SG` Simplified; `sr-ME` and `sr-Latn` Latin). Among them `requested` as written,
    ///    then one of the same region (`zh-Hant-HK` takes `zh-HK`; a request without a region asks for the
    ///    script's usual one: `zh-Hant` takes `zh-TW`, `zh-Hans` `zh-CN`), then one of the script's usual
    ///    region (`zh-Hant-MO` takes `zh-TW`), then the first in sorted order. So `zh-Hant` never takes
    ///    `zh-CN` while a Traditional name is there, and `zh-HK` takes `zh-TW` before `zh-CN`.
    /// 2. `requested` as written, then shortened subtag by subtag (`zh-Hans-CN`, `zh-Hans`, `zh`).
    /// 3. A longer tag of each of those (`zh` takes `zh-CN`), the first in sorted order, so the answer
    ///    never depends on the order of `tags`.
    ///
    /// Steps 2 and 3 are the fallback when no name is in the script asked for (`zh-Hant` takes `zh` or
    /// `zh-CN`, Simplified, rather than the dataset's own name). A bare language (`zh`, `sr`) skips step 1.
    /// Equal tags: the first in `tags`.
    package static func best(for requested: String, among tags: [String]) -> Int? {
        if let i = sameScript(requested, tags) { return i }
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

    /// Step 1 of ``best(for:among:)``.
    private static func sameScript(_ requested: String, _ tags: [String]) -> Int? {
        let asked = Subtags(requested)
        guard asked.script != nil || asked.region != nil, let script = asked.impliedScript else { return nil }
        let usual = asked.usualRegion(of: script)
        let region = asked.region ?? usual
        var best: (index: Int, rank: (Int, Int, Int))?
        for (i, tag) in tags.enumerated() {
            // Only the language's own tags are taken apart (a country has ~150 tags, a few of them Chinese).
            guard tag.caseInsensitivelyEquals(asked.language) || tag.hasLanguagePrefix(asked.language) else { continue }
            let have = Subtags(tag)
            guard have.language == asked.language, have.impliedScript == script else { continue }
            let haveRegion = have.region ?? usual
            let rank = (tag.caseInsensitivelyEquals(requested) ? 0 : 1, haveRegion == region ? 0 : 1, haveRegion == usual ? 0 : 1)
            if let b = best, rank > b.rank || (rank == b.rank && tag >= tags[b.index]) { continue }
            best = (i, rank)
        }
        return best?.index
    }

    /// The scripts of the languages the bundled names tables write in more than one (`zh`: Simplified,
    /// Traditional and Pinyin; `sr` and `tt`: Cyrillic and Latin; `pa`: Gurmukhi and, for Pakistan,
    /// Shahmukhi), as CLDR's likely subtags give them (Foundation's `Locale.Language.maximalIdentifier`):
    /// the script a tag without one implies (by its region, else the language's own) and the region a
    /// script is usually written in. A language not here implies no script: only a tag naming one has it.
    static let scripts: [String: (script: String, byRegion: [String: String], usualRegion: [String: String])] = [
        "zh": ("Hans", ["TW": "Hant", "HK": "Hant", "MO": "Hant"], ["Hans": "CN", "Hant": "TW"]),
        "sr": ("Cyrl", ["ME": "Latn"], ["Cyrl": "RS", "Latn": "RS"]),
        "tt": ("Cyrl", [:], ["Cyrl": "RU", "Latn": "RU"]),
        "pa": ("Guru", ["PK": "Arab"], ["Guru": "IN", "Arab": "PK"]),
    ]

    /// A tag's language, script and region subtags, in their usual case (`zh`, `Hant`, `TW`); the rest ignored.
    struct Subtags {
        var language: String
        var script: String?
        var region: String?

        init(_ tag: String) {
            var parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" })[...]
            language = (parts.popFirst() ?? "").lowercased()
            if let s = parts.first, s.count == 4, s.allSatisfy(Self.isLetter) {
                script = s.prefix(1).uppercased() + s.dropFirst().lowercased()
                if script == "Aran" { script = "Arab" }  // Nastaliq, a style of Arabic (CLDR's pa-PK is pa-Aran-PK)
                parts = parts.dropFirst()
            }
            if let r = parts.first, (r.count == 2 && r.allSatisfy(Self.isLetter)) || (r.count == 3 && r.allSatisfy(Self.isDigit)) {
                region = r.uppercased()
            }
        }

        /// The script named, else the one the region or the language implies (``LanguageMatch/scripts``).
        var impliedScript: String? {
            if let script { return script }
            guard let entry = LanguageMatch.scripts[language] else { return nil }
            return region.flatMap { entry.byRegion[$0] } ?? entry.script
        }

        /// The region `script` is usually written in for this language, if known.
        func usualRegion(of script: String) -> String? { LanguageMatch.scripts[language]?.usualRegion[script] }

        private static func isLetter(_ c: Character) -> Bool { c.isASCII && c.isLetter }
        private static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
    }
}
