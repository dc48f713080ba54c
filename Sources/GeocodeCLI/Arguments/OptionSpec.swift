/// One option a command accepts, as the parser and the help text see it.
public struct OptionSpec: Sendable, Equatable {
    /// Long name without dashes (`threads` for `--threads`); the key the parsed value is stored under.
    public var long: String
    /// Other long names accepted for the same option (`lat-key` for `lat-col`).
    public var aliases: [String]
    /// Single-letter form (`o` for `-o`), if any.
    public var short: Character?
    /// Placeholder shown in help (`N`, `FILE`); nil for a flag that takes no value.
    public var valueName: String?
    /// One-line help.
    public var help: String

    public init(_ long: String, aliases: [String] = [], short: Character? = nil, value valueName: String? = nil,
                help: String) {
        self.long = long
        self.aliases = aliases
        self.short = short
        self.valueName = valueName
        self.help = help
    }

    /// Whether the option consumes a value.
    public var takesValue: Bool { valueName != nil }

    /// `-o, --output FILE`, as the help text shows the option.
    public var synopsis: String {
        var s = short.map { "-\($0), " } ?? "    "
        s += "--\(long)"
        if let valueName { s += " \(valueName)" }
        return s
    }

    /// Options every command accepts.
    public static let help = OptionSpec("help", short: "h", help: "show this help and exit")
    public static let data = OptionSpec("data", value: "DIR",
                                        help: "data directory (default: $GEOCODE_DATA, then the bundled Data/)")
    /// Options of every command that loads data (see ``LookupFactory/options(load:environment:)``).
    public static let skipBrokenDatasets = OptionSpec(
        "skip-broken-datasets",
        help: "warn about and skip a dataset folder that cannot be read or has no manifest (default: exit 4)")
    /// `--lang`: the languages of the names (see ``LookupFactory/languageVariable``).
    public static let lang = OptionSpec(
        "lang", value: "TAGS",
        help: "names in these languages where the data has them (BCP 47, e.g. en, zh, zh-TW, zh-Hant; comma-separated, "
            + "most preferred first; default: the data's own names)")
    /// `--worldview`: whose country codes (see ``LookupFactory/worldviewVariable``).
    public static let worldview = OptionSpec(
        "worldview", value: "VIEW",
        help: "iso (default): country codes per ISO 3166-1 (Taiwan TW, Hong Kong HK); dataset: the data's own codes")
    /// `--borders`: whether the time zones refine the world's borders (see ``LookupFactory/bordersVariable``).
    public static let borders = OptionSpec(
        "borders", value: "HOW",
        help: "refined (default): a point the generalized world borders put in the neighbouring country moves to "
            + "its time zone's country within 5 km (downtown El Paso: US); polygons: the datasets' polygons alone")
    public static let allowModifiedData = OptionSpec(
        "allow-modified-data",
        help: "warn about, but use, data files whose sha256 differs from their manifest (default: exit 4)")
}
