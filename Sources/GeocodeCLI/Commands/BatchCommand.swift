import GeoModel

/// `geocode batch [IN] [-o OUT]`: geocodes every point of a CSV, TSV, NDJSON or GeoJSON file (a
/// FeatureCollection, one Feature, or a sequence of them).
enum BatchCommand: Command {
    static let name = "batch"
    static let summary = "Geocode every point of a CSV, TSV, NDJSON or GeoJSON file, adding the place to each row."
    static let usage = "geocode batch [IN] [-o OUT] [options]"
    static let options: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "OUT", help: "write here (default: stdout); replaced atomically at the end"),
        OptionSpec("format", short: "f", value: "FMT", help: "input format: csv, tsv, ndjson, geojson, geojsonseq (default: from IN's extension, else sniffed)"),
        OptionSpec("output-format", short: "F", value: "FMT", help: "output format (default: from OUT's extension, else the input's; OUT.json from CSV/TSV needs it)"),
        OptionSpec("lat-col", aliases: ["lat-key"], value: "COL", help: "latitude column: name or 1-based number (NDJSON: key)"),
        OptionSpec("lon-col", aliases: ["lon-key", "lng-col"], value: "COL", help: "longitude column: name or 1-based number (NDJSON: key)"),
        OptionSpec("coords", value: "COL", help: "one column (NDJSON: key) holding both: \"lat,lon\", \"lat lon\" or POINT(lon lat)"),
        OptionSpec("lon-first", help: "longitude comes first (in a --coords pair; in the first two columns without a header)"),
        OptionSpec("header", help: "the first CSV/TSV row is a header (default: detected)"),
        OptionSpec("no-header", help: "the first CSV/TSV row is data"),
        OptionSpec("no-header-out", help: "headerless input: write no header row (default: one naming the added columns)"),
        OptionSpec("delimiter", short: "d", value: "CHAR", help: "CSV field delimiter: , ; tab | or any one character (default: sniffed)"),
        OptionSpec("decimal-comma", help: "numbers use a decimal comma (48,8566); default: detected in ;-separated files"),
        OptionSpec("encoding", value: "ENC", help: "input text encoding: utf-8 (default), utf-16 (by its BOM; also detected), utf-16le, utf-16be, latin1, cp1252"),
        OptionSpec("fields", value: "LIST", help: "fields to add, comma-separated, or all (default: \(PlacemarkColumn.defaults.map(\.name).joined(separator: ",")))"),
        OptionSpec("prefix", value: "STR", help: "put STR before every added column name (avoids clashes with input columns)"),
        OptionSpec("datum", value: "DATUM", help: "datum of the input coordinates: wgs84 (default), gcj02, bd09"),
        OptionSpec("threads", short: "j", value: "N", help: "worker threads (default: the cores the process may use, e.g. 1 under taskset -c 0)"),
        OptionSpec("strict", help: "stop at the first bad row (exit 3, no output file) instead of flagging it"),
        OptionSpec("quiet", short: "q", help: "no progress bar, no summary (bad rows are still reported)"),
        MaxDistanceOption.spec,
        .lang, .worldview, .borders, .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]
    static let details = """
        Input is read as a stream and written in the same order, one output row per input row, using all
        cores; memory stays flat whatever the input size. IN and OUT may be - for stdin/stdout.

        Formats:
          csv, tsv   RFC 4180 quoting (delimiters, quotes, newlines inside quoted values), UTF-8 BOM
                     accepted (and kept). The delimiter (, ; tab |) is sniffed from the first rows, so a
                     TSV or a ;-file named .csv reads too (--delimiter to say it); CSV output keeps the
                     input's delimiter. Decimal commas (48,8566) are read in ;-files whose values prove
                     them, or with --decimal-comma. Coordinates from columns named lat/latitude/y and
                     lon/lng/long/longitude/x (any case, spaces around ignored), else from one column
                     whose name holds such a word (pickup_latitude, start_lat, "Lat (deg)", GPS
                     Latitude; two candidates are an error naming both), or --lat-col/--lon-col, or
                     --coords COL for one column holding both ("48.85,2.35", "48.85 2.35",
                     POINT(2.35 48.85)). Without a header, latitude is column 1 and longitude column 2
                     (--lon-first: the other way round), and the output gets a header naming the added
                     columns (--no-header-out: none). Header names are written back byte for byte;
                     a name the header gives twice (a,a,lat,lon) stays so in CSV/TSV output, and
                     JSON output writes the later column as a_2 (warned once). Empty lines are skipped.
          input      .gz and .zst files (by extension or content) are decompressed as a stream,
                     several gzip members included; truncated or corrupt ones stop the run with the
                     byte offset (exit 3). UTF-16 with a byte-order mark is decoded; Latin-1,
                     Windows-1252 and UTF-16 without a mark need --encoding (the error says which).
          output     OUT ending in .gz is written gzip-compressed, still atomically.
          ndjson     one JSON object per line, coordinates under the same names (numbers or numeric
                     strings), or a dotted path into nested objects (--lat-col location.lat); the
                     fields are added as keys. Blank lines are skipped. A key given twice in a record
                     (NDJSON, or a GeoJSON feature or its properties) is read by its last value, as
                     JavaScript and Python read JSON, and JSON output writes it once, with that value;
                     so are objects nested at any depth (also as JSON text in a CSV cell). One
                     warning names the first such record and the key (nested: its path, props.x.a).
          numbers    a CSV/TSV value or a JSON string may write the minus as − (U+2212, as documents
                     typeset it); a JSON number may not (JSON's grammar: every JSON reader refuses it).
                     A --coords pair may also be split by a full-width comma (，), and
                     an ideographic space (U+3000) separates as a space does.
          geojson    a FeatureCollection of Point features; the fields are added to each feature's
                     properties, everything else is kept. Read as a stream, feature by feature. A
                     document that is one Feature is one row (a Feature out); one bare Point is one
                     row, written as a Feature with that geometry and the fields as its properties.
                     Any other bare geometry (LineString, Polygon, ...) is refused by name (exit 3).
          geojsonseq a GeoJSON text sequence: one Feature (or bare Point) a record, each after an RS
                     (0x1E; RFC 8142, ogr2ogr -f GeoJSONSeq -lco RS=YES; a record may span lines, as
                     jq --seq writes it) or one a line (ogr2ogr's default, tippecanoe's input). Written
                     back one Feature a line, the fields in its properties, after an RS if the input
                     had them (OUT.geojsons: always, GDAL's rule; OUT.geojsonl or .ndjson: never). A
                     bad record is a flagged row in its place; blank lines and empty records are skipped.
          choosing   the input's format is --format, else IN's extension (.csv .tsv .ndjson .jsonl
                     .geojson .geojsons .geojsonl .geojsonseq, also before .gz/.zst), else sniffed from
                     its first bytes; the output's is --output-format, else OUT's extension, else the
                     input's. Lines of JSON (.ndjson, .jsonl, .json or sniffed) are a GeoJSON sequence
                     when the first record is a Feature or a Point, or starts with an RS; plain objects
                     are NDJSON (the first record decides; --lat-col, --lon-col or --coords name
                     NDJSON keys, so with them Feature lines stay NDJSON, as with --format ndjson,
                     where a warning says that Features have no latitude key). A .geojson file that
                     is such a sequence reads as one.
                     .json names no one format: an IN.json is NDJSON, GeoJSON or a sequence by its
                     content; an OUT.json keeps a JSON input's format (so does OUT.ndjson or .jsonl a
                     sequence's: a Feature a line is NDJSON too), and from CSV/TSV is an error (exit 2)
                     asking for --output-format geojson or ndjson.
          Converting (e.g. --output-format ndjson from CSV) maps columns to keys (CSV values become
          JSON strings; a row becomes a Feature of a FeatureCollection or a sequence); a GeoJSON
          feature's id and position become id, lat, lon columns or keys (the id a number or a
          string as it was; a feature without one: an empty cell, null in NDJSON), or
          feature_id, geometry_lat and geometry_lon when a property has the name in any
          case; JSON output has every key on every row (null when empty); CSV columns come
          from the first record (keys that later records add are reported and dropped).
          A feature's bbox and foreign members, its Point's bbox and foreign members and an
          altitude (a third coordinate) stay as they are in GeoJSON and GeoJSONSeq output,
          a FeatureCollection's in GeoJSON output; CSV, TSV and NDJSON output (and
          GeoJSONSeq, for the collection's) warn once a run for each kind that they are not
          written, naming the first line that has it: the collection's before its features
          before the rows. Warnings are said however the run ends (--strict: those of the
          rows before the bad one; a framing error: those of the rows written before it).
          An added column that the input already has (country) is warned about once,
          whatever the input format; CSV output has it twice, JSON output (which cannot hold
          a key twice) writes the added one as geocode_country. So is one that differs only
          in case (Country), which DuckDB, PostgreSQL, BigQuery and Spark SQL fold together.
          --prefix geo_ names the added columns geo_country, ..., geo_geocode_error.

        Fields (--fields): \(PlacemarkField.allCases.map(\.column).joined(separator: ", "));
          "all", or "default" for \(PlacemarkColumn.defaults.map(\.name).joined(separator: ",")).
          `geocode fields` lists them with their library keys. The names of before (country_code,
          province, province_code, city, city_code, district, district_code, city_is_province) still
          work and keep their names as headers. A point in no polygon gets the nearest unit within
          --max-distance (default \(MaxDistanceOption.defaultText); its *_source columns say nearest_unit, its
          *_distance columns the metres). Beyond that (open sea) it gets empty fields (null in JSON) except
          what the overlays know (the time zone), and counts as not found.
          utc_offset is the time zone's offset now, from the system's tzdata (CLI only).

        Bad rows (coordinate missing, not a number, NaN, outside ±90/±180, a row with too many fields
        (kept to the header's columns, the rest quoted in the message), unreadable JSON (a sequence's
        record cut short), a non-Point feature) are kept, with empty fields and a message in the
        geocode_error column/key, and reported on stderr as IN:LINE: message, LINE being the physical
        line where the record starts. --strict stops at the first one instead.

        OUT is written to a hidden temporary file next to it (.OUT.geocode-XXXXXX), flushed to disk and
        renamed over OUT only when everything succeeded: an interrupted or failed run leaves any previous
        OUT untouched (Ctrl-C also removes the temporary file; after kill -9 it may remain).

        Progress (rows, rows/s, elapsed; % and ETA when IN is a file) is shown on stderr when it is a
        terminal; a summary follows. Both are silenced by --quiet.

        Exit status: 0 done (even with bad rows), 2 bad command line (also a --lat-col/--lon-col/--coords
        that does not fit the header, or two columns that could be the latitude), 3 bad input (--strict
        bad row, a CSV/TSV header with no recognisable coordinate column and none named, an input that
        is not its format at all: GeoJSON that is no FeatureCollection, Feature or Point, or not one
        row a record of its format (CSV read as NDJSON), whose output is still written, every row
        flagged), 4 data unavailable, 5 cannot read IN or write OUT, 130 interrupted.

        Examples:
          geocode batch points.csv -o placed.csv
          geocode batch trips.tsv --lat-col pickup_lat --lon-col pickup_lon --fields all -o out.tsv
          cat points.ndjson | geocode batch --format ndjson - > placed.ndjson
          geocode batch stops.geojson -o stops.csv --prefix geo_
          ogr2ogr -f GeoJSONSeq stops.geojsonl stops.shp && geocode batch stops.geojsonl -o placed.geojsonl
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
            guard let format = BatchFormat(name: name) else { throw .usage("unknown format \"\(name)\" (csv, tsv, ndjson, geojson, geojsonseq)") }
            options.format = format
        }
        if let name = arguments.value("output-format") {
            guard let format = BatchFormat(name: name) else {
                throw .usage("unknown output format \"\(name)\" (csv, tsv, ndjson, geojson, geojsonseq)")
            }
            options.outputFormat = format
        }
        options.latColumn = arguments.value("lat-col")
        options.lonColumn = arguments.value("lon-col")
        if arguments.flag("header") && arguments.flag("no-header") { throw .usage("--header and --no-header contradict each other") }
        if arguments.flag("header") { options.header = true }
        if arguments.flag("no-header") { options.header = false }
        options.headerOut = !arguments.flag("no-header-out")
        options.encoding = arguments.value("encoding")
        if let text = arguments.value("delimiter") {
            guard let delimiter = DelimiterSniffer.parse(text) else {
                throw .usage("--delimiter needs one character (or tab, comma, semicolon, pipe), got \"\(text)\"")
            }
            options.delimiter = delimiter
        }
        options.decimalComma = arguments.flag("decimal-comma")
        if options.decimalComma && options.delimiter == UInt8(ascii: ",") {
            throw .usage("--decimal-comma with --delimiter , cannot tell a decimal comma from a field delimiter in unquoted values")
        }
        options.coordsColumn = arguments.value("coords")
        options.lonFirst = arguments.flag("lon-first")
        if options.coordsColumn != nil && (options.latColumn != nil || options.lonColumn != nil) {
            throw .usage("--coords names one column holding both coordinates; it does not go with --lat-col/--lon-col")
        }
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
