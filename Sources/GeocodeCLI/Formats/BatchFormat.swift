/// The file formats `geocode batch` reads and writes.
public enum BatchFormat: String, Sendable, CaseIterable {
    /// Comma-separated values, RFC 4180 quoting.
    case csv
    /// Tab-separated values, read and written with the same quoting rules as CSV (so a tab or newline
    /// inside a value survives); plain IANA TSV without quotes reads the same.
    case tsv
    /// Newline-delimited JSON: one object per line.
    case ndjson
    /// A GeoJSON (RFC 7946) FeatureCollection of Point features, or one Feature, or one bare Point.
    case geojson

    /// Parses `--format` values, with the usual synonyms.
    public init?(name: String) {
        switch name.lowercased() {
        case "csv": self = .csv
        case "tsv", "tab": self = .tsv
        case "ndjson", "jsonl", "jsonlines", "ldjson": self = .ndjson
        case "geojson": self = .geojson
        default: return nil
        }
    }

    /// The format a file name's extension says, if it says one. `.json` says none: both JSON formats are
    /// written under it (mongoexport and BigQuery write NDJSON as `.json`, GIS tools GeoJSON), so the
    /// caller decides it (``isJSON(path:)``): an input by its content, an output by the input's format.
    public init?(path: String) {
        switch Self.fileExtension(path) {
        case "csv": self = .csv
        case "tsv", "tab": self = .tsv
        case "ndjson", "jsonl", "ldjson": self = .ndjson
        case "geojson": self = .geojson
        default: return nil
        }
    }

    /// Whether the file name ends in `.json`: NDJSON or GeoJSON, the name does not say which.
    public static func isJSON(path: String) -> Bool {
        fileExtension(path) == "json"
    }

    /// Whether the format is one of the two JSON ones.
    var isJSON: Bool { self == .ndjson || self == .geojson }

    private static func fileExtension(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    /// RFC 7946's object types other than FeatureCollection.
    private static let geoJSONTypes: Set<String> = ["Feature", "Point", "MultiPoint", "LineString", "MultiLineString",
                                                    "Polygon", "MultiPolygon", "GeometryCollection"]

    /// The field delimiter of the delimited formats.
    var delimiter: UInt8? {
        switch self {
        case .csv: return UInt8(ascii: ",")
        case .tsv: return UInt8(ascii: "\t")
        case .ndjson, .geojson: return nil
        }
    }

    /// Guesses the format from the first bytes of the input (for stdin or an unknown extension).
    ///
    /// `{` whose first line is a complete JSON object → NDJSON, unless that object is itself a
    /// FeatureCollection, or a Feature or geometry with nothing after it (a one-line GeoJSON document,
    /// which the GeoJSON reader takes or refuses by name); any other `{`/`[` start → GeoJSON; otherwise
    /// CSV, or TSV when the first line has tabs and no commas.
    public static func sniff(_ head: [UInt8]) -> BatchFormat {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let firstLine = bytes.prefix { $0 != 0x0A }
        let trimmed = firstLine.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        if trimmed.first == UInt8(ascii: "{") || trimmed.first == UInt8(ascii: "[") {
            if trimmed.first == UInt8(ascii: "{") {
                let shape = JSONScanner.sniffObjectLine(Array(firstLine))
                let rest = bytes.dropFirst(firstLine.count)
                let alone = rest.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
                let document = shape.type == "FeatureCollection" || (alone && shape.type.map(geoJSONTypes.contains) == true)
                if shape.isObject && !document { return .ndjson }
            }
            return .geojson
        }
        let hasTab = firstLine.contains(0x09), hasComma = firstLine.contains(UInt8(ascii: ","))
        return hasTab && !hasComma ? .tsv : .csv
    }
}
