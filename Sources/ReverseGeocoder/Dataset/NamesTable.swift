import Foundation

/// A dataset's names table: each unit's name in other languages, by level and code
/// (`DatasetManifest.names`; written by `Data/build_names.py`, format in `Data/README.md`, "Names tables").
///
/// ```text
/// # geocode names 1
/// country\tFR\tde=Frankreich\ten=France\tzh-CN=法国
/// province\t110000\ten=Beijing\tzh=北京市
/// ```
///
/// UTF-8; `#` lines and empty lines are skipped; every other line is a level name, the unit's code as the
/// dataset's code field writes it, then one or more `tag=name` (a BCP 47 tag, the first `=` splits). A
/// malformed line is an error naming the file and line: a silently half-read table would answer in
/// the wrong language without saying so.
struct NamesTable: Sendable {
    /// Names by level, then unit code, then language tag.
    private(set) var units: [AdminLevel: [String: [String: String]]] = [:]
    /// Every language tag the table uses, sorted.
    private(set) var languages: [String] = []

    /// The names of a unit (empty when the table has none for it).
    func names(at level: AdminLevel, code: String) -> [String: String] { units[level]?[code] ?? [:] }

    /// Reads a names table.
    static func load(from url: URL) throws -> NamesTable {
        let file = url.path
        let data = try FileReading.contents(of: file)
        guard let text = String(data: data, encoding: .utf8) else {
            throw GeocoderError.badManifest(file: file, reason: "names table is not UTF-8")
        }
        return try parse(text, file: file)
    }

    static func parse(_ text: String, file: String) throws -> NamesTable {
        var text = text
        return try text.withUTF8 { try parse(bytes: $0, file: file) }
    }

    /// The table's lines, columns and tags are cut at ASCII bytes (newline, tab, `=`), not by
    /// Characters: walking a table's megabytes as grapheme clusters was most of its read, and a cluster
    /// can swallow a delimiter (`\r\n` is one Character, so is a tab followed by a combining mark), where a
    /// byte cannot. A UTF-8 text cut at ASCII bytes stays valid UTF-8.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> NamesTable {
        let newline: UInt8 = 0x0A, carriageReturn: UInt8 = 0x0D, tab: UInt8 = 0x09, equals: UInt8 = 0x3D, hash: UInt8 = 0x23
        func string(_ s: Slice<UnsafeBufferPointer<UInt8>>) -> String { String(decoding: s, as: UTF8.self) }
        var table = NamesTable()
        var tags = Set<String>()
        var number = 0
        var lineStart = bytes.startIndex
        while lineStart <= bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: newline) ?? bytes.endIndex
            defer { lineStart = lineEnd + 1 }
            number += 1
            var line = bytes[lineStart..<lineEnd]
            if line.last == carriageReturn { line = line.dropLast() }
            if line.isEmpty || line.first == hash { continue }
            func bad(_ why: String) -> GeocoderError { .badManifest(file: file, reason: "line \(number): \(why)") }
            let columns = line.split(separator: tab, omittingEmptySubsequences: false)
            guard columns.count >= 3 else { throw bad("expected level, code and at least one tag=name, tab-separated") }
            guard let level = AdminLevel(rawValue: string(columns[0])) else {
                throw bad("unknown level \"\(string(columns[0]))\" (\(AdminLevel.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let code = string(columns[1])
            guard !code.isEmpty else { throw bad("empty code") }
            guard table.units[level]?[code] == nil else { throw bad("\(level.rawValue) \(code) listed twice") }
            var names: [String: String] = [:]
            for column in columns.dropFirst(2) {
                guard let eq = column.firstIndex(of: equals), eq != column.startIndex, eq + 1 != column.endIndex else {
                    throw bad("\"\(string(column))\" is not tag=name")
                }
                let tag = string(column[..<eq]), name = string(column[(eq + 1)...])
                guard Self.isLanguageTag(tag) else { throw bad("\"\(tag)\" is not a BCP 47 language tag") }
                guard names[tag] == nil else { throw bad("\(level.rawValue) \(code): language \(tag) twice") }
                names[tag] = name
                tags.insert(tag)
            }
            table.units[level, default: [:]][code] = names
        }
        table.languages = tags.sorted()
        return table
    }

    /// A BCP 47 tag as this table writes them: a 2–3 letter language, then subtags of 1–8 letters or digits.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
