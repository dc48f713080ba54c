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
    /// A sequence of GeoJSON Features, one record each: RFC 8142's text sequence (each record after an RS,
    /// 0x1E, as `ogr2ogr -f GeoJSONSeq -lco RS=YES` writes it) or one Feature per line (GDAL's default,
    /// tippecanoe's input). A record may also be one bare Point.
    case geojsonseq

    /// Parses `--format` values, with the usual synonyms.
    public init?(name: String) {
        switch name.lowercased() {
        case "csv": self = .csv
        case "tsv", "tab": self = .tsv
        case "ndjson", "jsonl", "jsonlines", "ldjson": self = .ndjson
        case "geojson": self = .geojson
        case "geojsonseq", "geojsons", "geojsonl", "geojson-seq": self = .geojsonseq
        default: return nil
        }
    }

    /// The format's name in messages: "CSV", "TSV", "NDJSON", "GeoJSON", "GeoJSONSeq" (GDAL's name).
    var displayName: String {
        switch self {
        case .csv, .tsv, .ndjson: rawValue.uppercased()
        case .geojson: "GeoJSON"
        case .geojsonseq: "GeoJSONSeq"
        }
    }

    /// What a row of the format is, for "none of its rows is …": "CSV", "NDJSON", "GeoJSON", "a GeoJSON Feature".
    var rowName: String {
        self == .geojsonseq ? "a GeoJSON Feature" : self == .geojson ? "GeoJSON" : rawValue.uppercased()
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
        case "geojsons", "geojsonl", "geojsonseq": self = .geojsonseq
        default: return nil
        }
    }

    /// Whether a sequence written to `path` puts an RS (0x1E) before each record, when its name says:
    /// `.geojsons` does (GDAL's rule for the name), a name for lines of JSON (`.geojsonl`, `.ndjson`,
    /// `.jsonl`, `.ldjson`) does not, as line tools (jq, `split -l`) would take the RS for the record's
    /// first byte. Nil: the name does not say (`.geojsonseq`, `.json`, any other).
    public static func recordSeparator(path: String) -> Bool? {
        switch fileExtension(path) {
        case "geojsons": return true
        case "geojsonl", "ndjson", "jsonl", "ldjson": return false
        default: return nil
        }
    }

    /// Whether the file name ends in `.json`: NDJSON or GeoJSON, the name does not say which.
    public static func isJSON(path: String) -> Bool {
        fileExtension(path) == "json"
    }

    /// Whether the format is one of the two JSON ones.
    var isJSON: Bool { self == .ndjson || self == .geojson || self == .geojsonseq }

    /// Whether records are GeoJSON Features (a collection's, a document's or a sequence's).
    var isGeoJSON: Bool { self == .geojson || self == .geojsonseq }

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
        case .ndjson, .geojson, .geojsonseq: return nil
        }
    }

    /// The RS (record separator, 0x1E) that starts each record of an RFC 8142 text sequence.
    static let recordSeparatorByte: UInt8 = 0x1E

    /// Whether the first record of the input (after a BOM and blank lines) is a GeoJSON sequence's: an
    /// RS, or a line that is one complete object whose `"type"` is `"Feature"` or `"Point"`. What tells a
    /// sequence of Features from NDJSON of plain objects, whatever the file is called.
    public static func startsSequence(_ head: [UInt8]) -> Bool {
        if startsWithRecordSeparator(head) { return true }
        let bytes = leadingBlanksDropped(head)
        guard bytes.first == UInt8(ascii: "{") else { return false }
        let type = JSONScanner.sniffObjectLine(Array(bytes.prefix { $0 != 0x0A })).type
        return type == "Feature" || type == "Point"
    }

    /// Whether the first byte after a BOM and blank space is an RS: RFC 8142's layout, which no NDJSON is.
    static func startsWithRecordSeparator(_ head: [UInt8]) -> Bool {
        leadingBlanksDropped(head).first == recordSeparatorByte
    }

    /// Whether `head` holds the whole of the first line that is not blank (its LF): enough to sniff.
    static func hasFirstLine(_ head: [UInt8]) -> Bool {
        leadingBlanksDropped(head).contains(0x0A)
    }

    /// Without a UTF-8 BOM and the blank space (lines included) before the first character.
    private static func leadingBlanksDropped(_ head: [UInt8]) -> ArraySlice<UInt8> {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.drop(while: JSONScanner.isWhitespace)
    }

    /// Guesses the format from the first bytes of the input (for stdin or an unknown extension), from
    /// its first line that is not blank.
    ///
    /// An RS (0x1E) → a GeoJSON text sequence. `{` whose first line is a complete JSON object: a
    /// FeatureCollection, or a Feature or geometry with nothing after it → GeoJSON (a one-line document,
    /// which the GeoJSON reader takes or refuses by name); a Feature or Point with more after it → a
    /// GeoJSON sequence (``startsSequence(_:)``); any other object → NDJSON. Any other `{`/`[` start →
    /// GeoJSON; otherwise CSV, or TSV when the first line has tabs and no commas.
    public static func sniff(_ head: [UInt8]) -> BatchFormat {
        let bytes = leadingBlanksDropped(head)
        if bytes.first == recordSeparatorByte { return .geojsonseq }
        let firstLine = bytes.prefix { $0 != 0x0A }
        if bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[") {
            if bytes.first == UInt8(ascii: "{") {
                let shape = JSONScanner.sniffObjectLine(Array(firstLine))
                let rest = bytes.dropFirst(firstLine.count)
                let alone = rest.allSatisfy(JSONScanner.isWhitespace)
                let document = shape.type == "FeatureCollection" || (alone && shape.type.map(geoJSONTypes.contains) == true)
                if shape.isObject && !document { return startsSequence(head) ? .geojsonseq : .ndjson }
            }
            return .geojson
        }
        // The delimiter by the first line as it is (a leading tab is an empty first column).
        let line = (head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]).prefix { $0 != 0x0A }
        let hasTab = line.contains(0x09), hasComma = line.contains(UInt8(ascii: ","))
        return hasTab && !hasComma ? .tsv : .csv
    }
}
