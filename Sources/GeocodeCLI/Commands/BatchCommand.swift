import GeoModel

/// `geocode batch [IN] [-o OUT]`: geocodes every point of a CSV, TSV, NDJSON or GeoJSON file.
enum BatchCommand: Command {
    static let name = "batch"
    static let summary = "Geocode every point of a CSV, TSV, NDJSON or GeoJSON file, adding the place to each row."
    static let usage = "geocode batch [IN] [-o OUT] [options]"
    static let options: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "OUT", help: "write here (default: stdout); replaced atomically at the end"),
        OptionSpec("format", short: "f", value: "FMT", help: "input format: csv, tsv, ndjson, geojson (default: from IN's extension, else sniffed)"),
        OptionSpec("output-format", short: "F", value: "FMT", help: "output format (default: from OUT's extension, else the input's)"),
        OptionSpec("lat-col", aliases: ["lat-key"], value: "COL", help: "latitude column: name or 1-based number (NDJSON: key)"),
        OptionSpec("lon-col", aliases: ["lon-key", "lng-col"], value: "COL", help: "longitude column: name or 1-based number (NDJSON: key)"),
        OptionSpec("header", help: "the first CSV/TSV row is a header (default: detected)"),
        OptionSpec("no-header", help: "the first CSV/TSV row is data"),
        OptionSpec("fields", value: "LIST", help: "fields to add, comma-separated, or all (default: \(PlacemarkColumn.defaults.map(\.name).joined(separator: ",")))"),
        OptionSpec("prefix", value: "STR", help: "put STR before every added column name (avoids clashes with input columns)"),
        OptionSpec("datum", value: "DATUM", help: "datum of the input coordinates: wgs84 (default), gcj02, bd09"),
        OptionSpec("threads", short: "j", value: "N", help: "worker threads (default: number of cores)"),
        OptionSpec("strict", help: "stop at the first bad row (exit 3, no output file) instead of flagging it"),
        OptionSpec("quiet", short: "q", help: "no progress bar, no summary (bad rows are still reported)"),
        .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]
    static let details = """
        Input is read as a stream and written in the same order, one output row per input row, using all
        cores; memory stays flat whatever the input size. IN and OUT may be - for stdin/stdout.

        Formats:
          csv, tsv   RFC 4180 quoting (delimiters, quotes, newlines inside quoted values), UTF-8 BOM
                     accepted (and kept). Coordinates from columns named lat/latitude/y and
                     lon/lng/long/longitude/x (any case), or --lat-col/--lon-col. Without a header,
                     latitude is column 1 and longitude column 2 unless told otherwise. Empty lines are
                     skipped.
          ndjson     one JSON object per line, coordinates under the same names (numbers or numeric
                     strings); the fields are added as keys. Blank lines are skipped.
          geojson    a FeatureCollection of Point features; the fields are added to each feature's
                     properties, everything else is kept. Read as a stream, feature by feature.
          Converting (e.g. --output-format ndjson from CSV) maps columns to keys (CSV values become
          JSON strings); a GeoJSON feature's id and position become id, lat, lon columns; JSON output
          has every key on every row (null when empty); CSV columns come from the first
          record (keys that later records add are reported and dropped).

        Fields (--fields): \(PlacemarkField.allCases.map(\.column).joined(separator: ", "));
          "all", or "default" for \(PlacemarkColumn.defaults.map(\.name).joined(separator: ",")).
          `geocode fields` lists them with their library keys. The names of before (country_code,
          province, province_code, city, city_code, district, district_code, city_is_province) still
          work and keep their names as headers. A point in no polygon (ocean) gets empty fields (null
          in JSON).

        Bad rows (coordinate missing, not a number, NaN, outside ±90/±180, a row with too many fields
        (kept to the header's columns, the rest quoted in the message),
        unreadable JSON, a non-Point feature) are kept, with empty fields and a message in the
        geocode_error column/key, and reported on stderr as IN:LINE: message, LINE being the physical
        line where the record starts. --strict stops at the first one instead.

        OUT is written to a hidden temporary file next to it (.OUT.geocode-XXXXXX), flushed to disk and
        renamed over OUT only when everything succeeded: an interrupted or failed run leaves any previous
        OUT untouched (Ctrl-C also removes the temporary file; after kill -9 it may remain).

        Progress (rows, rows/s, elapsed; % and ETA when IN is a file) is shown on stderr when it is a
        terminal; a summary follows. Both are silenced by --quiet.

        Exit status: 0 done (even with bad rows), 2 bad command line, 3 bad input (--strict bad row,
        or an input that is not its format at all, e.g. no FeatureCollection), 4 data unavailable,
        5 cannot read IN or write OUT, 130 interrupted.

        Examples:
          geocode batch points.csv -o placed.csv
          geocode batch trips.tsv --lat-col pickup_lat --lon-col pickup_lon --fields all -o out.tsv
          cat points.ndjson | geocode batch --format ndjson - > placed.ndjson
          geocode batch stops.geojson -o stops.csv --prefix geo_
          geocode batch amap.csv --datum gcj02 --strict -o out.csv
        """

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        let options = try parseOptions(arguments)
        return try BatchRunner(options: options, context: context, dataOption: arguments.value("data")).run()
    }

    static func parseOptions(_ arguments: ParsedArguments) throws(CLIError) -> BatchOptions {
        var options = BatchOptions()
        guard arguments.positionals.count <= 1 else {
            throw .usage("batch takes one input file, got \(arguments.positionals.count): \(arguments.positionals.joined(separator: " "))")
        }
        options.inputPath = arguments.positionals.first
        options.outputPath = arguments.value("output")
        if let name = arguments.value("format") {
            guard let format = BatchFormat(name: name) else { throw .usage("unknown format \"\(name)\" (csv, tsv, ndjson, geojson)") }
            options.format = format
        }
        if let name = arguments.value("output-format") {
            guard let format = BatchFormat(name: name) else { throw .usage("unknown output format \"\(name)\" (csv, tsv, ndjson, geojson)") }
            options.outputFormat = format
        }
        options.latColumn = arguments.value("lat-col")
        options.lonColumn = arguments.value("lon-col")
        if arguments.flag("header") && arguments.flag("no-header") { throw .usage("--header and --no-header contradict each other") }
        if arguments.flag("header") { options.header = true }
        if arguments.flag("no-header") { options.header = false }
        if let list = arguments.value("fields") { options.fields = try PlacemarkColumn.parseList(list) }
        if let prefix = arguments.value("prefix") { options.prefix = prefix }
        options.datum = try ReverseCommand.parseDatum(arguments.value("datum"))
        if let text = arguments.value("threads") {
            guard let n = Int(text), (1...1024).contains(n) else { throw .usage("--threads needs a whole number from 1 to 1024, got \"\(text)\"") }
            options.threads = n
        }
        options.strict = arguments.flag("strict")
        options.quiet = arguments.flag("quiet")
        return options
    }
}
