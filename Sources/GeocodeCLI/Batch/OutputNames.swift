/// The one rule for the names the batch output puts beside the input's, for every output format.
///
/// The input's names are the user's and are never changed. What the output adds may meet one of them:
/// - A GeoJSON feature's own columns (its `id` and its Point's `lat`, `lon`, written as columns of CSV
///   output and keys of NDJSON output) give way to a property of the same name, in any ASCII case:
///   `feature_id`, and `geometry_lat` with `geometry_lon` (both, so they read as a pair), then `_2`...
///   Silently: they are the input's data too, and the property usually holds the same position.
/// - An added field (or `geocode_error`) is warned about once, naming the file and line and `--prefix`.
///   A CSV header may hold a name twice (pandas reads `country.1`), so CSV/TSV output keeps both as
///   they are. A JSON object may not: readers keep the first, or the last, or refuse the file. So in
///   JSON output the added member gives way as the feature's own do: `geocode_country` (then `_2`...).
/// - A name that differs from an added one only in case (`Country` beside `country`) is distinct bytes
///   and so is kept, but DuckDB, PostgreSQL (unquoted), BigQuery, Spark SQL and Power Query fold case
///   and refuse or drop one of the two columns: the same one warning says so.
enum OutputNames {
    /// Names of a GeoJSON feature's own columns in CSV output and keys in NDJSON output.
    struct Feature: Equatable, Sendable {
        var id: [UInt8]
        var lat: [UInt8]
        var lon: [UInt8]

        static let plain = Feature(id: Array("id".utf8), lat: Array("lat".utf8), lon: Array("lon".utf8))

        /// The names beside properties named `keys`: each gives way to a property of its name.
        init(beside keys: some Sequence<[UInt8]>) {
            let taken = Set(keys.map(OutputNames.folded))
            let plain = Feature.plain
            id = taken.contains(plain.id) ? OutputNames.unused("feature_id", taken: taken) : plain.id
            if taken.contains(plain.lat) || taken.contains(plain.lon) {
                lat = OutputNames.unused("geometry_lat", taken: taken)
                lon = OutputNames.unused("geometry_lon", taken: taken)
            } else {
                lat = plain.lat
                lon = plain.lon
            }
        }

        private init(id: [UInt8], lat: [UInt8], lon: [UInt8]) {
            self.id = id
            self.lat = lat
            self.lon = lon
        }
    }

    /// `name`, or `name_2`, `name_3`, … when `taken` (folded) has it (a file made by an earlier run).
    static func unused(_ name: String, taken: Set<[UInt8]>) -> [UInt8] {
        var candidate = Array(name.utf8), n = 1
        while taken.contains(folded(candidate)) {
            n += 1
            candidate = Array("\(name)_\(n)".utf8)
        }
        return candidate
    }

    /// JSON keys for a header's columns, each once. A CSV/TSV header may give a name twice (`a,a,lat,lon`;
    /// CSV/TSV output keeps it so), a JSON object may not: the later columns of a name take `name_2`,
    /// `name_3`, … unused, in any case, by the header and the keys given before. `names` itself when no
    /// name repeats (nearly every header).
    static func keys(forColumns names: [[UInt8]]) -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        guard names.contains(where: { !seen.insert($0).inserted }) else { return names }
        var taken = Set(names.map(folded))
        var given = Set<[UInt8]>()
        return names.map { name in
            guard !given.insert(name).inserted else { return name }
            let key = unused(String(decoding: name, as: UTF8.self), taken: taken)
            taken.insert(folded(key))
            return key
        }
    }

    /// The one warning about a header that gives a name twice (``keys(forColumns:)``), naming the columns
    /// (1-based) and the keys JSON output writes the later ones under; nil when no name repeats.
    static func repeatedColumnsMessage(place: String, names: [String], keys: [[UInt8]]) -> String? {
        // The columns of each name (as bytes, as keys(forColumns:) compares them), in the order the names
        // first stand.
        var columnsOf: [[UInt8]: [Int]] = [:], order: [[UInt8]] = []
        for (i, name) in names.enumerated() {
            let bytes = Array(name.utf8)
            if columnsOf[bytes] == nil { order.append(bytes) }
            columnsOf[bytes, default: []].append(i)
        }
        guard order.count < names.count else { return nil }
        var repeats: [String] = [], renamed: [String] = []
        for name in order {
            let columns = columnsOf[name]!
            guard columns.count > 1 else { continue }
            repeats.append("\"\(String(decoding: name, as: UTF8.self))\" as columns " + columns.map { String($0 + 1) }.joined(separator: ", "))
            for column in columns.dropFirst() where column < keys.count {
                renamed.append("column \(column + 1) as \"\(String(decoding: keys[column], as: UTF8.self))\"")
            }
        }
        return "\(place): the header gives " + repeats.joined(separator: " and ") + "; a JSON object cannot hold a key "
            + "twice, so the JSON output writes " + renamed.joined(separator: ", ")
            + " (CSV/TSV output keeps the header as it is)"
    }

    /// The name an added JSON key takes in an object that already has a member of its name:
    /// `geocode_` before it (the geocoded country beside the input's), then `_2`, … when `taken`
    /// (folded: the object's keys and the other added names) has that too.
    static func givenWay(_ name: [UInt8], taken: Set<[UInt8]>) -> [UInt8] {
        let text = String(decoding: name, as: UTF8.self)
        return unused(text.hasPrefix("geocode_") ? text : "geocode_" + text, taken: taken)
    }

    /// `name` in ASCII lower case: how the tools that fold case compare names.
    static func folded(_ name: [UInt8]) -> [UInt8] {
        name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
    }

    /// The tools named when names differ only in case.
    static let caseFoldingTools = "DuckDB, PostgreSQL (unquoted), BigQuery, Spark SQL and Power Query"

    /// A carried name that differs from an added one only in ASCII case (`Country` beside `country`).
    struct CaseClash: Equatable, Sendable {
        var carried: String
        var added: String
    }

    /// The carried names that equal an added name in another case only, in the order carried.
    static func caseClashes(carried: [String], added: [String]) -> [CaseClash] {
        let exact = Set(added)
        var clashes: [CaseClash] = []
        for name in carried where !exact.contains(name) {
            let folded = folded(Array(name.utf8))
            if let match = added.first(where: { Self.folded(Array($0.utf8)) == folded }) {
                clashes.append(CaseClash(carried: name, added: match))
            }
        }
        return clashes
    }

    /// The one warning about names the input shares with the output's added ones, or nil for none.
    /// - Parameters:
    ///   - what: "column" or "key".
    ///   - exact: the added names the input has exactly.
    ///   - writtenInJSON: for JSON output, the names `exact` are written under instead (same order).
    ///   - caseOnly: the input's names that differ from an added one only in case.
    static func clashMessage(place: String, what: String, exact: [String], writtenInJSON: [String]?,
                             caseOnly: [CaseClash]) -> String? {
        guard !exact.isEmpty || !caseOnly.isEmpty else { return nil }
        func list(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
        func plural(_ count: Int) -> String { count == 1 ? what : what + "s" }
        var parts: [String] = []
        if !exact.isEmpty {
            let one = exact.count == 1
            if let written = writtenInJSON {
                parts.append("the input already has \(plural(exact.count)) \(list(exact)); a JSON object cannot hold a key twice, "
                             + "so the added \(one ? "one is" : "ones are") \(list(written))")
            } else {
                parts.append("the input already has \(plural(exact.count)) \(list(exact)); the output will have \(one ? "it" : "them") twice")
            }
        }
        if !caseOnly.isEmpty {
            let one = caseOnly.count == 1
            parts.append("the input's \(plural(caseOnly.count)) \(list(caseOnly.map(\.carried))) and the added "
                         + "\(list(caseOnly.map(\.added))) differ only in case, which \(caseFoldingTools) fold: "
                         + "loading the output there fails or drops \(one ? "one of the two" : "one of each pair")")
        }
        return "\(place): " + parts.joined(separator: "; ") + " (use --prefix to tell them apart)"
    }
}
