import GeoModel

/// A placemark column of the CLI's output: a field of the one table (``PlacemarkField``) under the name
/// the user asked for it by.
///
/// Column names are the table's snake_case columns (`administrative_area`, `time_zone`), so they work
/// unquoted as CSV headers, SQL columns and JSON keys. `--fields` also takes each field's library key
/// (`administrativeArea`), any case, with or without `_`/`-`, and the names of before Placemark v2
/// (``legacyAliases``): a column asked for by an old name keeps that name as its header, so scripts
/// written for the old output (and the default columns, which use them) read the same header as before.
public struct PlacemarkColumn: Hashable, Sendable {
    /// The field of the table (for a derived column: the field it is computed from).
    public let field: PlacemarkField
    /// A CLI-only column computed from ``field`` (``DerivedColumn``), or nil for the field itself.
    public let derived: DerivedColumn?
    /// The header / JSON key written.
    public let name: String

    public init(_ field: PlacemarkField, name: String? = nil) {
        self.field = field
        self.derived = nil
        self.name = name ?? field.column
    }

    /// A derived column, under its own name.
    public init(_ derived: DerivedColumn) {
        field = derived.source
        self.derived = derived
        name = derived.rawValue
    }

    /// The CLI names of before the field table, each still accepted by `--fields` and written as asked.
    public static let legacyAliases: [(name: String, field: PlacemarkField)] = [
        ("country_code", .level(.country, .code)),
        ("province", .level(.province, .name)),
        ("province_code", .level(.province, .code)),
        ("city", .level(.city, .name)),
        ("city_code", .level(.city, .code)),
        ("district", .level(.district, .name)),
        ("district_code", .level(.district, .code)),
        ("city_is_province", .localityIsProvinceFallback),
    ]

    /// What `--fields` means when not given: the names a person reads, plus the country code that
    /// joins with other data, under the column names they have always had.
    public static let defaults: [PlacemarkColumn] = ["country", "country_code", "province", "city", "district"]
        .map { PlacemarkColumn(name: $0)! }

    /// `--fields all`: every field of the table, under its column name, in table order, then the
    /// derived columns.
    public static var all: [PlacemarkColumn] {
        PlacemarkField.allCases.map { PlacemarkColumn($0) } + DerivedColumn.allCases.map { PlacemarkColumn($0) }
    }

    /// Other names people type (`state`, `admin1`, `iso`, `county`, `sublocality`...), matched loosely.
    private static let synonyms: [String: PlacemarkField] = [
        "iso": .level(.country, .code), "countrycode": .level(.country, .code),
        "state": .level(.province, .name), "admin1": .level(.province, .name), "statecode": .level(.province, .code),
        "admin2": .level(.subAdministrativeArea, .name),
        "county": .level(.district, .name), "countycode": .level(.district, .code),
        "timezone": .timeZone, "tz": .timeZone,
    ]

    /// Loose form of a name: lower case without `_` and `-`.
    private static func loose(_ name: String) -> String { name.lowercased().filter { $0 != "_" && $0 != "-" } }

    private static let byLooseName: [String: PlacemarkColumn] = {
        var map: [String: PlacemarkColumn] = [:]
        for (name, field) in synonyms { map[loose(name)] = PlacemarkColumn(field) }
        for field in PlacemarkField.allCases { map[loose(field.key)] = PlacemarkColumn(field) }
        for derived in DerivedColumn.allCases { map[loose(derived.rawValue)] = PlacemarkColumn(derived) }
        for (name, field) in legacyAliases { map[loose(name)] = PlacemarkColumn(field, name: name) }
        return map
    }()

    /// Accepts the column name, the library key, an old name or a synonym; any case, `-` or `_`.
    public init?(name: String) {
        guard let column = Self.byLooseName[Self.loose(name)] else { return nil }
        self = column
    }

    /// Parses a `--fields` list: comma-separated names, or `all`, or `default`.
    public static func parseList(_ text: String) throws(CLIError) -> [PlacemarkColumn] {
        var columns: [PlacemarkColumn] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: " ")
            switch name.lowercased() {
            case "all": columns += all
            case "default", "defaults": columns += defaults
            default:
                guard let column = PlacemarkColumn(name: name) else {
                    let known = all.map(\.name).joined(separator: ", ")
                    let old = legacyAliases.map(\.name).joined(separator: ", ")
                    throw .usage("unknown field \"\(name)\" in --fields (known: \(known), all, default; old names: \(old))")
                }
                columns.append(column)
            }
        }
        // One column per field: the first name it was asked by wins.
        var seen = Set<Column>()
        return columns.filter { seen.insert(Column(field: $0.field, derived: $0.derived)).inserted }
    }

    /// What a column shows, without the name it was asked by.
    private struct Column: Hashable { var field: PlacemarkField; var derived: DerivedColumn? }

    /// The value as text (nil when the placemark has none).
    public func text(of placemark: Placemark) -> String? {
        if let derived { return derived.text(of: placemark) }
        return field.value(of: placemark).text
    }

    /// Appends the value as JSON (null when there is no placemark or no value).
    func appendJSON(of placemark: Placemark?, to out: inout [UInt8]) {
        guard let derived else { return field.appendJSON(of: placemark, to: &out) }
        if let text = placemark.flatMap(derived.text(of:)) { JSONWriter.appendString(text, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}

extension PlacemarkField {
    /// Appends the value as JSON: a string, a number, a boolean, or null (every field when there is no
    /// placemark).
    func appendJSON(of placemark: Placemark?, to out: inout [UInt8]) {
        guard let placemark else {
            out.append(contentsOf: "null".utf8)
            return
        }
        switch value(of: placemark) {
        case .text(let s):
            if let s { JSONWriter.appendString(s, to: &out) } else { out.append(contentsOf: "null".utf8) }
        case .number(let d):
            if let d, d.isFinite { out.append(contentsOf: (PlacemarkField.Value.number(d).text ?? "null").utf8) } else { out.append(contentsOf: "null".utf8) }
        case .flag(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        }
    }
}
