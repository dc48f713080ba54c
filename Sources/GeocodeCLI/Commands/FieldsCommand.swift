import Foundation
import GeoModel
import ReverseGeocoder

/// `geocode fields`: the placemark field table (``PlacemarkField``) as the CLI and the library name it.
/// `--json` is what the Spark integration's schema is generated from (Integrations/spark/placemark_fields.json,
/// kept equal to this output by a test), so there is one source of truth for every consumer.
///
/// The table is the same whatever the data (every output carries every field, null when empty), so
/// plain `geocode fields` reads no data. Given a data option (`--data DIR`, also before the command
/// word, or `--skip-broken-datasets` / `--allow-modified-data`), it loads that data as every other
/// command does, failing the same way (exit 4 naming the folder), and adds what only the data can say:
/// which columns each dataset fills and the languages its names come in (what `--lang` accepts).
enum FieldsCommand: Command {
    static let name = "fields"
    static let summary = "List the placemark fields: column names, library keys, types and old names."
    static let usage = "geocode fields [--json] [--data DIR]"
    static let details = """
        Every field a placemark carries, in output order: its batch column / --fields name, its key in
        the library's JSON and in geocode --json, and its type (text, number in metres, or flag). Then
        the old names that --fields still accepts, and the default columns.

        With --data DIR (or --skip-broken-datasets / --allow-modified-data, on the default data) the
        data is loaded, as by every command that reads it, and each dataset is listed with the columns
        it fills from its files and the languages of its names (what --lang accepts); the columns every
        answer derives (name, dataset, the ..._source ones) are not listed. Without them no data is read.

        Examples:
          geocode fields
          geocode fields --json
          geocode fields --data ./my-data
        """
    static let options: [OptionSpec] = [
        OptionSpec("json", short: "j", help: "print JSON (the table, the old names and the defaults)"),
        .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    /// One dataset as `fields` describes it.
    struct DataEntry: Equatable {
        var name: String
        var role: String
        var fields: [PlacemarkField]
        var languages: [String]
    }

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // The table is the same whatever follows; a word after it is a mistake worth saying, not ignoring.
        try arguments.rejectPositionals()
        var data: (directory: String, datasets: [DataEntry])?
        if arguments.value("data") != nil || arguments.flag("skip-broken-datasets") || arguments.flag("allow-modified-data") {
            data = try describeData(arguments, context: context)
        }
        try context.stdout.emit(arguments.flag("json") ? json(data: data) : text(data: data))
        return .success
    }

    /// Loads the data the options name, as every command does (exit 4 when it cannot be), and lists
    /// each dataset's columns and languages.
    static func describeData(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError)
        -> (directory: String, datasets: [DataEntry]) {
        // Resolved here even when the lookup needs no data (the test grid): a folder that is not there is
        // named whatever answers the points.
        let directory = try context.dataDirectory(option: arguments.value("data"))
        let lookup = try context.openLookup(dataOption: directory.path)
        var entries: [DataEntry] = []
        for dataset in lookup.datasets {
            let fields: [PlacemarkField]
            if let manifest = try DatasetColumns.manifest(of: dataset) {
                fields = DatasetColumns.fields(of: manifest)
            } else {
                fields = dataset.layers.compactMap { $0.level.map { PlacemarkField.level($0, .name) } }
            }
            entries.append(DataEntry(name: dataset.name, role: dataset.role.rawValue, fields: fields,
                                     languages: dataset.languages ?? []))
        }
        return (directory.path, entries)
    }

    static func text(data: (directory: String, datasets: [DataEntry])? = nil) -> String {
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
        guard let data else { return out }
        out += "\ndata \(data.directory): the columns each dataset fills, and the languages it has names in (--lang)\n"
        if data.datasets.isEmpty { out += "  no datasets\n" }
        for d in data.datasets {
            out += "  \(d.name) (\(d.role)): " + (d.fields.isEmpty ? "none" : d.fields.map(\.column).joined(separator: ", "))
            out += d.languages.isEmpty ? "\n" : "; languages: " + d.languages.joined(separator: " ") + "\n"
        }
        return out
    }

    /// `{"fields":[{"column":…,"key":…,"kind":…},…],"aliases":[{"name":…,"column":…},…],"defaults":[…]}`,
    /// pretty-printed with one member per line so the checked-in copy diffs well. With `data`, one more
    /// member, `"data": {"directory": …, "datasets": [{"name", "role", "columns", "languages"}, …]}`; without
    /// it the bytes are the Spark schema's.
    static func json(data: (directory: String, datasets: [DataEntry])? = nil) -> String {
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
        var out = "{\n  \"fields\": [\n" + fields.joined(separator: ",\n") + "\n  ],\n"
            + "  \"aliases\": [\n" + aliases.joined(separator: ",\n") + "\n  ],\n"
            + "  \"defaults\": [" + defaults.joined(separator: ", ") + "]"
        if let data {
            let datasets = data.datasets.map { d in
                "    {\"name\": \(string(d.name)), \"role\": \(string(d.role)), "
                    + "\"columns\": [" + d.fields.map { string($0.column) }.joined(separator: ", ") + "], "
                    + "\"languages\": [" + d.languages.map(string).joined(separator: ", ") + "]}"
            }
            out += ",\n  \"data\": {\"directory\": \(string(data.directory)), \"datasets\": [\n"
                + datasets.joined(separator: ",\n") + (datasets.isEmpty ? "" : "\n") + "  ]}"
        }
        return out + "\n}\n"
    }
}
