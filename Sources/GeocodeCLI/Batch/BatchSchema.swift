import GeoModel

/// Everything a worker needs to turn input records into output rows, decided once before the workers
/// start (from the options and the first record) and then shared read-only.
struct BatchSchema: Sendable {
    var input: BatchFormat
    var output: BatchFormat
    /// Input name for messages.
    var inputName: String
    var datum: Datum

    // MARK: Delimited input
    /// Column names from the header; nil when the input has none.
    var header: [String]?
    /// Columns per row: the header's, or the first record's without a header.
    var columnCount = 0
    /// 0-based columns of the coordinates.
    var latColumn = 0
    var lonColumn = 1

    /// Field delimiter of delimited input (sniffed or `--delimiter`; the format's own by default).
    var delimiter: UInt8
    /// Values use a decimal comma (`48,8566`): `--decimal-comma`, or proven by the values of a `;` file.
    var decimalComma = false
    /// `--coords`: the 0-based column holding both coordinates (`lat,lon`, `lat lon`, `POINT(lon lat)`).
    var coordsColumn: Int?
    /// `--lon-first`: a pair column (and headerless default columns) give longitude first.
    var lonFirst = false
    /// GeoJSON positions read as `[lat, lon]`: only the swapped-coordinates check tries this (no option).
    var geojsonLatFirst = false
    /// What a GeoJSON document is: a FeatureCollection, or one Feature or bare Point (one record, and in
    /// GeoJSON output one Feature, not a collection).
    var geojsonTopLevel = GeoJSONFramer.TopLevel.collection
    /// The header record exactly as read (without its line end): delimited output repeats it byte for byte.
    var headerRecord: [UInt8]?
    /// Output header for headerless input (names for the input columns, then the added ones); nil with
    /// `--no-header-out`.
    var syntheticHeader: [String]?

    // MARK: JSON input
    /// Keys tried for the coordinates, in order of preference.
    var latKeys: [[UInt8]] = []
    var lonKeys: [[UInt8]] = []
    /// Whether the keys are the built-in names (matched in any ASCII case) rather than the user's (exact).
    var latKeysAreDefaults = true
    var lonKeysAreDefaults = true

    // MARK: JSON input → delimited output
    /// Output columns, taken from the first record (GeoJSON: ``featureNames``, then its property names).
    var jsonColumns: [[UInt8]] = []
    /// A GeoJSON feature's own columns in CSV output and keys in NDJSON output, given way to the first
    /// feature's properties (``OutputNames``).
    var featureNames = OutputNames.Feature.plain
    /// The line of the record the carried columns come from (a CSV header, or the first JSON record with
    /// keys), for messages about them.
    var columnsLine: Int?

    // MARK: Output
    var fields: [PlacemarkColumn] = PlacemarkColumn.defaults
    /// Prefix put before every added column/key name (`--prefix`), to avoid clashes with input columns.
    var prefix = ""
    /// CSV/TSV output line ending (CRLF when the CSV input used it).
    var lineEnding: [UInt8] = [0x0A]
    /// Delimiter of delimited output: the format's, or the input's own when both are the same format (a
    /// `;` CSV stays a `;` CSV).
    var outputDelimiter: UInt8
    /// `--coords` for NDJSON: the key (or dotted path) holding both coordinates.
    var coordsKey: [UInt8]?
    /// GeoJSON sequence output: each record starts with an RS (0x1E, RFC 8142), else it is one Feature a
    /// line. As the input sequence did, unless OUT's name says (``BatchFormat/recordSeparator(path:)``).
    var recordSeparator = false

    init(input: BatchFormat, output: BatchFormat, inputName: String, datum: Datum) {
        self.input = input
        self.output = output
        self.inputName = inputName
        self.datum = datum
        self.delimiter = input.delimiter ?? UInt8(ascii: ",")
        self.outputDelimiter = output.delimiter ?? UInt8(ascii: ",")
    }

    /// Added column/key names, in output order: the fields, then the error column.
    var addedNames: [String] { fields.map { prefix + $0.name } + [errorName] }
    var errorName: String { prefix + "geocode_error" }

    /// ``addedNames`` as a JSON object that carries `carried` keys writes them: each one `carried` has
    /// exactly gives way (``OutputNames/givenWay(_:taken:)``), since an object cannot hold a key twice.
    func addedNames(inJSONBeside carried: [[UInt8]]) -> [[UInt8]] {
        let added = addedNames.map { Array($0.utf8) }
        let exact = Set(carried)
        guard added.contains(where: exact.contains) else { return added }
        var taken = Set((carried + added).map(OutputNames.folded))
        return added.map { name in
            guard exact.contains(name) else { return name }
            let renamed = OutputNames.givenWay(name, taken: taken)
            taken.insert(OutputNames.folded(renamed))
            return renamed
        }
    }
    /// The keys JSON output gives delimited input's columns: the header's names (`colN` without one), a
    /// name the header repeats taking `name_2` at its later columns (``OutputNames/keys(forColumns:)``).
    var columnKeyNames: [[UInt8]] {
        OutputNames.keys(forColumns: (0..<columnCount).map { i in
            Array((header.flatMap { i < $0.count ? $0[i] : nil } ?? "col\(i + 1)").utf8)
        })
    }

    /// Key under which JSON output keeps an input record that could not be parsed at all.
    var rawInputName: String { prefix + "geocode_input" }

    /// How messages name the latitude/longitude column of delimited input.
    func columnLabel(_ column: Int) -> String {
        if let header, column < header.count { return "column \"\(header[column])\"" }
        return "column \(column + 1)"
    }
}
