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
    /// Coordinates are written with a decimal comma (`48,8566`): `--decimal-comma`, or detected for a
    /// `;` file whose values prove it. Honoured where the decoder parses coordinate text.
    var decimalComma = false

    // MARK: JSON input
    /// Keys tried for the coordinates, in order of preference.
    var latKeys: [[UInt8]] = []
    var lonKeys: [[UInt8]] = []
    /// Whether the keys are the built-in names (matched in any ASCII case) rather than the user's (exact).
    var latKeysAreDefaults = true
    var lonKeysAreDefaults = true

    // MARK: JSON input → delimited output
    /// Output columns, taken from the first record (GeoJSON: "lat", "lon", then its property names).
    var jsonColumns: [[UInt8]] = []

    // MARK: Output
    var fields: [PlacemarkColumn] = PlacemarkColumn.defaults
    /// Prefix put before every added column/key name (`--prefix`), to avoid clashes with input columns.
    var prefix = ""
    /// CSV/TSV output line ending (CRLF when the CSV input used it).
    var lineEnding: [UInt8] = [0x0A]

    init(input: BatchFormat, output: BatchFormat, inputName: String, datum: Datum) {
        self.input = input
        self.output = output
        self.inputName = inputName
        self.datum = datum
    }

    /// Added column/key names, in output order: the fields, then the error column.
    var addedNames: [String] { fields.map { prefix + $0.name } + [errorName] }
    var errorName: String { prefix + "geocode_error" }
    /// Key under which JSON output keeps an input record that could not be parsed at all.
    var rawInputName: String { prefix + "geocode_input" }

    /// How messages name the latitude/longitude column of delimited input.
    func columnLabel(_ column: Int) -> String {
        if let header, column < header.count { return "column \"\(header[column])\"" }
        return "column \(column + 1)"
    }
}
