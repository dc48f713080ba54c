import Foundation
import GeoModel

/// `geocode fields`: the placemark field table (``PlacemarkField``) as the CLI and the library name it.
/// `--json` is what the Spark integration's schema is generated from (Integrations/spark/placemark_fields.json,
/// kept equal to this output by a test), so there is one source of truth for every consumer.
enum FieldsCommand: Command {
    static let name = "fields"
    static let summary = "List the placemark fields: column names, library keys, types and old names."
    static let usage = "geocode fields [--json]"
    static let details = """
        Every field a placemark carries, in output order: its batch column / --fields name, its key in
        the library's JSON and in geocode --json, and its type (text, number in metres, or flag). Then
        the old names that --fields still accepts, and the default columns.

        Examples:
          geocode fields
          geocode fields --json
        """
    static let options: [OptionSpec] = [
        OptionSpec("json", short: "j", help: "print JSON (the table, the old names and the defaults)"),
        .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // The table is the same whatever follows; a word after it is a mistake worth saying, not ignoring.
        try arguments.rejectPositionals()
        context.stdout.write(arguments.flag("json") ? json() : text())
        return .success
    }

    static func text() -> String {
        let width = PlacemarkField.allCases.map(\.column.count).max() ?? 0
        var out = "column".padding(to: width) + "  key / type\n"
        for field in PlacemarkField.allCases {
            out += field.column.padding(to: width) + "  \(field.key) (\(field.kind.rawValue))\n"
        }
        for derived in DerivedColumn.allCases {
            out += derived.rawValue.padding(to: width) + "  \(derived.key) (\(derived.kind.rawValue), CLI only: from \(derived.source.column))\n"
        }
        out += "\nold names: " + PlacemarkColumn.legacyAliases.map { "\($0.name) = \($0.field.column)" }.joined(separator: ", ") + "\n"
        out += "default: " + PlacemarkColumn.defaults.map(\.name).joined(separator: ",") + "\n"
        return out
    }

    /// `{"fields":[{"column":…,"key":…,"kind":…},…],"aliases":[{"name":…,"column":…},…],"defaults":[…]}`,
    /// pretty-printed with one member per line so the checked-in copy diffs well.
    static func json() -> String {
        func string(_ s: String) -> String {
            var out: [UInt8] = []
            JSONWriter.appendString(s, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        let fields = PlacemarkField.allCases.map {
            "    {\"column\": \(string($0.column)), \"key\": \(string($0.key)), \"kind\": \(string($0.kind.rawValue))}"
        } + DerivedColumn.allCases.map {
            "    {\"column\": \(string($0.rawValue)), \"key\": \(string($0.key)), \"kind\": \(string($0.kind.rawValue)), \"derived\": \"cli\"}"
        }
        let aliases = PlacemarkColumn.legacyAliases.map {
            "    {\"name\": \(string($0.name)), \"column\": \(string($0.field.column))}"
        }
        let defaults = PlacemarkColumn.defaults.map { string($0.name) }
        return "{\n  \"fields\": [\n" + fields.joined(separator: ",\n") + "\n  ],\n"
            + "  \"aliases\": [\n" + aliases.joined(separator: ",\n") + "\n  ],\n"
            + "  \"defaults\": [" + defaults.joined(separator: ", ") + "]\n}\n"
    }
}
