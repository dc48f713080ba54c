/// Everything decided before the workers start: the framer, the schema (from the options and the first
/// record), chunks already read while deciding, and the bytes that open and close the output.
struct BatchSetup {
    var framer: any RecordFramer
    var schema: BatchSchema
    /// Records read while deciding the schema; they go through the pipeline first.
    var pending: [RawChunk]
    /// Output before the first row: BOM, header row, or the FeatureCollection's opening.
    var preamble: [UInt8]
    /// Output after the last row, given the framer's trailer (GeoJSON's closing).
    var closing: (_ framerTrailer: [UInt8]) -> [UInt8]
    /// Warnings found while deciding (e.g. an added column that the input already has).
    var notices: [String] = []
    /// The first data records of delimited input, read ahead for the swapped-columns check.
    var sample: InputSample?

    /// How many records to look at, at most, for a first record that can define the output columns.
    static let lookahead = 1000

    /// Decides the schema and reads the first records. Warnings go out in ``notices``, to be said before
    /// the rows; `warn` says at once what must reach the user although the setup then throws (a
    /// FeatureCollection's members named before a failure in its opening: ``GeoJSONFramer/readPrefix()``).
    static func prepare(input: ByteInput, format: BatchFormat, outputFormat: BatchFormat,
                        options: BatchOptions, warn: (String) -> Void = { _ in }) throws(CLIError) -> BatchSetup {
        var schema = BatchSchema(input: format, output: outputFormat, inputName: options.inputName, datum: options.datum)
        schema.fields = options.fields
        schema.prefix = options.prefix
        schema.recordSeparator = options.outputRecordSeparator ?? false
        var setup: BatchSetup
        do throws(CLIError) {
            switch format {
            case .csv, .tsv:
                setup = try delimited(input: input, format: format, schema: schema, options: options)
            case .ndjson:
                setup = try ndjson(input: input, schema: schema, options: options)
            case .geojson:
                setup = try geojson(input: input, schema: schema, options: options, warn: warn)
            case .geojsonseq:
                setup = try geojsonSequence(input: input, schema: schema, options: options)
            }
        } catch {
            // A read that failed while the setup looked ahead cut its sample short: a header cut in the
            // middle has no latitude column, a first record cut short is no JSON. The failed read is what
            // is wrong with the input, and what the user must hear (a truncated .csv.gz, an I/O error).
            if let failure = input.failure { throw failure }
            throw error
        }
        if let notice = repeatedColumnsNotice(setup.schema) { setup.notices.append(notice) }
        if let notice = clashNotice(setup.schema) { setup.notices.append(notice) }
        if let notice = unwrittenCollectionMembers(setup.framer, schema: setup.schema, afterFeatures: false) {
            setup.notices.append(notice)
        }
        // What surrounds the rows depends on the output format.
        let encoder = RecordEncoder(schema: setup.schema)
        switch outputFormat {
        case .csv, .tsv:
            if input.hadByteOrderMark { setup.preamble += [0xEF, 0xBB, 0xBF] }
            if let header = encoder.headerRow() { setup.preamble += header }
        case .ndjson, .geojsonseq:
            break
        case .geojson:
            if format != .geojson {
                setup.preamble += Array("{\"type\":\"FeatureCollection\",\"features\":[".utf8)
                setup.closing = { _ in Array("\n]}\n".utf8) }
            }
        }
        return setup
    }

    /// An added column whose name the input already uses, exactly or in another case: said once, before
    /// the rows, whatever the input format, with the remedy (``OutputNames`` has the rule). The carried
    /// names are a delimited input's header (any output), or the columns a JSON input gives delimited
    /// output; JSON input with JSON output is told per key by ``RecordEncoder``, since every record
    /// carries its own keys there.
    static func clashNotice(_ schema: BatchSchema) -> String? {
        let carried: [String]
        switch schema.input {
        case .csv, .tsv:
            guard let header = schema.header ?? schema.syntheticHeader else { return nil }
            carried = header
        case .ndjson, .geojson, .geojsonseq:
            guard schema.output.delimiter != nil else { return nil }
            carried = schema.jsonColumns.map { String(decoding: $0, as: UTF8.self) }
        }
        let names = Set(carried)
        let exact = schema.addedNames.filter { names.contains($0) }
        // The keys JSON output gives the columns: a header's repeated name is one key no more.
        let keys = schema.input.delimiter != nil && schema.header != nil ? schema.columnKeyNames : carried.map { Array($0.utf8) }
        let inJSON = schema.output.delimiter == nil
            ? zip(schema.addedNames, schema.addedNames(inJSONBeside: keys)).compactMap { name, written in
                names.contains(name) ? String(decoding: written, as: UTF8.self) : nil
            }
            : nil
        let caseOnly = OutputNames.caseClashes(carried: carried, added: schema.addedNames)
        let place = schema.inputName + (schema.columnsLine.map { ":\($0)" } ?? "")
        return OutputNames.clashMessage(place: place, what: "column", exact: exact, writtenInJSON: inJSON, caseOnly: caseOnly)
    }

    /// The FeatureCollection's bbox and foreign members (``GeoJSONFramer/collectionMembers``), which
    /// only GeoJSON output writes (around the features, as they came): for any other output, said once
    /// for those before `"features"`, before the rows (``prepare(input:format:outputFormat:options:)``),
    /// and once for those after the features (`afterFeatures`), once they are read; each names the
    /// first one's line.
    static func unwrittenCollectionMembers(_ framer: any RecordFramer, schema: BatchSchema, afterFeatures: Bool) -> String? {
        guard schema.output != .geojson, let framer = framer as? GeoJSONFramer else { return nil }
        let members = afterFeatures ? framer.collectionMembers[framer.membersBeforeFeatures...]
                                    : framer.collectionMembers[..<framer.membersBeforeFeatures]
        guard let first = members.first else { return nil }
        let names = distinct(members.map { RecordEncoder.spelled(member: $0.name) })
        return "\(schema.inputName):\(first.line): the FeatureCollection has \(names.joined(separator: ", "))"
            + (afterFeatures ? " after its features" : "") + ", which \(schema.output.displayName) output does not write "
            + "(it writes the features only); GeoJSON output keeps \(names.count == 1 ? "it" : "them")"
    }

    /// A CSV/TSV header that gives a name twice, for JSON output (which writes the later columns under
    /// other keys, ``OutputNames/keys(forColumns:)``): said once, before the rows.
    static func repeatedColumnsNotice(_ schema: BatchSchema) -> String? {
        guard schema.input.delimiter != nil, schema.output.delimiter == nil, let header = schema.header else { return nil }
        let place = schema.inputName + (schema.columnsLine.map { ":\($0)" } ?? "")
        return OutputNames.repeatedColumnsMessage(place: place, names: header, keys: schema.columnKeyNames)
    }

    // MARK: - CSV / TSV

    private static func delimited(input: ByteInput, format: BatchFormat, schema: BatchSchema,
                                  options: BatchOptions) throws(CLIError) -> BatchSetup {
        var schema = schema
        // The delimiter: --delimiter, else sniffed from the first records (a TSV or a ;-file named .csv).
        let sample = try InputSample.read(input, wait: options.sampleWaits)
        let delimiter = options.delimiter ?? DelimiterSniffer.sniff(sample) ?? format.delimiter!
        schema.delimiter = delimiter
        schema.outputDelimiter = schema.output == schema.input ? delimiter : (schema.output.delimiter ?? UInt8(ascii: ","))
        let framer = CSVFramer(input: input, delimiter: delimiter)
        guard let first = try framer.nextChunk(targetBytes: 1, maxRecords: 1) else {
            // Empty input: empty output (there is not even a header to repeat).
            return BatchSetup(framer: framer, schema: schema, pending: [], preamble: [], closing: { _ in [] })
        }
        let values: [String] = first.bytes.withUnsafeBufferPointer { b in
            CSVField.split(b, first.records[0].range, delimiter: delimiter).fields.map { $0.string(in: b) }
        }
        let latSpec = ColumnSpec(options.latColumn), lonSpec = ColumnSpec(options.lonColumn)
        let coordsSpec = ColumnSpec(options.coordsColumn)
        let commaPossible = delimiter != UInt8(ascii: ",")
        func isNumber(_ text: String) -> Bool {
            DecimalNumber.parse(text, decimalComma: commaPossible) != nil
        }
        let hasHeader: Bool
        if let header = options.header {
            hasHeader = header
        } else if latSpec?.name != nil || lonSpec?.name != nil || coordsSpec?.name != nil {
            hasHeader = true    // columns named by the user only make sense with a header
        } else if let coordsSpec {
            let c = coordsSpec.index ?? 0
            hasHeader = !(c < values.count && CoordinatePair.parse(values[c], lonFirst: options.lonFirst,
                                                                    decimalComma: commaPossible) != nil)
        } else if ColumnMatcher.find(.latitude, in: values) != .none && ColumnMatcher.find(.longitude, in: values) != .none {
            hasHeader = true
        } else {
            // No known names: the first row is data if its coordinate columns hold numbers.
            let lat = latSpec?.index ?? 0, lon = lonSpec?.index ?? 1
            hasHeader = !(lat < values.count && lon < values.count && isNumber(values[lat]) && isNumber(values[lon]))
        }
        schema.header = hasHeader ? values : nil
        schema.headerRecord = hasHeader ? Array(first.bytes[first.records[0].range]) : nil
        schema.columnCount = values.count
        schema.lonFirst = options.lonFirst
        // Messages about the columns name the file and the line of the row they were looked for in.
        let place = "\(options.inputName):\(first.records[0].line)"
        if let coordsSpec {
            let column = try resolve(coordsSpec, option: "--coords", what: "coordinates", axis: nil, header: schema.header,
                                     columnCount: values.count, fallback: 0, place: place)
            schema.coordsColumn = column
            schema.latColumn = column
            schema.lonColumn = column
        } else {
            schema.latColumn = try resolve(latSpec, option: "--lat-col", what: "latitude", axis: .latitude, header: schema.header,
                                           columnCount: values.count, fallback: options.lonFirst ? 1 : 0, place: place)
            schema.lonColumn = try resolve(lonSpec, option: "--lon-col", what: "longitude", axis: .longitude, header: schema.header,
                                           columnCount: values.count, fallback: options.lonFirst ? 0 : 1, place: place)
            guard schema.latColumn != schema.lonColumn else {
                throw .usage("latitude and longitude are the same column (\(schema.columnLabel(schema.latColumn)))")
            }
        }
        if framer.usesCRLF == true { schema.lineEnding = [0x0D, 0x0A] }
        let rows = Array(sample.records.dropFirst(hasHeader ? 1 : 0))
        schema.decimalComma = options.decimalComma
            || (commaPossible && DecimalComma.provenBy(sample, rows: Array(rows.prefix(InputSample.decidingRecords - 1)),
                                                       columns: [schema.latColumn, schema.lonColumn],
                                                       delimiter: delimiter))
        if !hasHeader && options.headerOut {
            schema.syntheticHeader = (0..<values.count).map { i in
                if i == schema.coordsColumn { return "coordinates" }
                if schema.coordsColumn == nil && i == schema.latColumn { return "lat" }
                if schema.coordsColumn == nil && i == schema.lonColumn { return "lon" }
                return "col\(i + 1)"
            }
        }
        schema.columnsLine = first.records[0].line
        var setup = BatchSetup(framer: framer, schema: schema, pending: hasHeader ? [] : [first], preamble: [],
                               closing: { _ in [] })
        setup.sample = InputSample(bytes: sample.bytes, records: rows)
        return setup
    }

    /// `--lat-col` as typed: a 1-based number or a name.
    private struct ColumnSpec {
        var index: Int?
        var name: String?
        init?(_ text: String?) {
            guard let text else { return nil }
            if let n = Int(text), n >= 1 { index = n - 1 } else { name = text }
        }
    }

    /// The column `spec` names, else the one the header's names give for `axis`, else `fallback`.
    ///
    /// Exit codes: what the user typed that does not fit the file (`--lat-col nope`, a column number past
    /// the end, two candidates to choose between) is a command-line matter, 2, as for any option. A
    /// header in which no column is recognisable as the coordinate, with no option given, is the input's:
    /// the same command reads every file that has one, so the file, not the command, is what cannot be
    /// geocoded, and exit 3 (bad input) lets a script over many files tell it from a mistyped command.
    private static func resolve(_ spec: ColumnSpec?, option: String, what: String, axis: ColumnMatcher.Axis?, header: [String]?,
                                columnCount: Int, fallback: Int, place: String) throws(CLIError) -> Int {
        if let index = spec?.index {
            guard index < columnCount else {
                throw .usage("\(place): \(option) \(index + 1): the input has only \(columnCount) column\(columnCount == 1 ? "" : "s")")
            }
            return index
        }
        if let name = spec?.name {
            guard let header else { throw .usage("\(option) \(name) names a column, but the input has no header; give a 1-based column number") }
            guard let index = find([name], in: header) else {
                throw .usage("\(place): \(option) \(name): no such column in the header (\(header.joined(separator: ", ")))")
            }
            return index
        }
        guard let header, let axis else { return fallback }
        switch ColumnMatcher.find(axis, in: header) {
        case .column(let index):
            return index
        case .ambiguous(let columns):
            let names = columns.map { "\"\(header[$0])\" (column \($0 + 1))" }
            throw .usage("\(place): \(columns.count) columns could be the \(what): \(names.joined(separator: " and ")); "
                         + "choose one with \(option) NAME or NUMBER")
        case .none:
            throw .badInput("\(place): cannot find the \(what) column in the header (\(header.joined(separator: ", "))); "
                            + "recognised names are \(axis.plainNames.joined(separator: ", ")) and names holding them "
                            + "(pickup_\(axis.plainNames[0]), start_\(axis.plainNames[1])); use \(option) NAME or NUMBER"
                            + (header.count == 1 ? ", or --delimiter if the file is not comma-separated" : ""))
        }
    }

    /// First of `names` (in order of preference) that a column is called, ignoring case and spaces.
    private static func find(_ names: [String], in header: [String]) -> Int? {
        let normalized = header.map { $0.trimmingSpaces.lowercased() }
        for name in names {
            if let i = header.firstIndex(of: name) { return i }
            if let i = normalized.firstIndex(of: name.lowercased()) { return i }
        }
        return nil
    }

    // MARK: - NDJSON

    private static func ndjson(input: ByteInput, schema: BatchSchema, options: BatchOptions) throws(CLIError) -> BatchSetup {
        var schema = schema
        if let lat = options.latColumn {
            schema.latKeys = [Array(lat.utf8)]
            schema.latKeysAreDefaults = false
        } else {
            schema.latKeys = BatchOptions.latitudeNames.map { Array($0.utf8) }
        }
        if let lon = options.lonColumn {
            schema.lonKeys = [Array(lon.utf8)]
            schema.lonKeysAreDefaults = false
        } else {
            schema.lonKeys = BatchOptions.longitudeNames.map { Array($0.utf8) }
        }
        if let coords = options.coordsColumn { schema.coordsKey = Array(coords.utf8) }
        schema.lonFirst = options.lonFirst
        let framer = NDJSONFramer(input: input)
        var pending: [RawChunk] = []
        var notices: [String] = []
        // The keys of the first object: the columns of delimited output, and the names to match prefixed
        // coordinate keys (`pickup_latitude`) against.
        while pending.count < lookahead, let chunk = try framer.nextChunk(targetBytes: 1, maxRecords: 1) {
            pending.append(chunk)
            let keys: [[UInt8]]? = chunk.bytes.withUnsafeBufferPointer { b in
                var scanner = JSONScanner(b, range: chunk.records[0].range)
                guard let members = try? scanner.objectMembers() else { return nil }
                return members.map { JSONScanner.decodeString(b, $0.key) }
            }
            if let keys {
                // A key the first object gives twice is one column (its last value: RecordEncoder).
                if schema.output.delimiter != nil { schema.jsonColumns = distinct(keys) }
                schema.columnsLine = chunk.records[0].line
                let place = "\(options.inputName):\(chunk.records[0].line)"
                if options.latColumn == nil && options.coordsColumn == nil
                    && BatchFormat.startsSequence(Array(chunk.bytes[chunk.records[0].range])) {
                    // Only --format ndjson gets here with Features: every row would say "no latitude".
                    notices.append("\(place): the records are GeoJSON (a Feature or a Point a line), which have no latitude "
                                   + "key as NDJSON; --format geojsonseq reads each one's Point")
                }
                if options.coordsColumn == nil {
                    let names = keys.map { String(decoding: $0, as: UTF8.self) }
                    if options.latColumn == nil, let key = try matchedKey(.latitude, names, option: "--lat-col", place: place) {
                        schema.latKeys = [Array(key.utf8)]
                        schema.latKeysAreDefaults = false
                    }
                    if options.lonColumn == nil, let key = try matchedKey(.longitude, names, option: "--lon-col", place: place) {
                        schema.lonKeys = [Array(key.utf8)]
                        schema.lonKeysAreDefaults = false
                    }
                }
                break
            }
        }
        readAhead(framer, into: &pending, options: options)
        return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: [], closing: { _ in [] }, notices: notices)
    }

    /// Up to ``ColumnGuess/rows`` records for the swapped-coordinates check, from a file only: a pipe may
    /// be a live feed, whose first records must not wait for a thousand more (it gets the check over what
    /// was read already).
    ///
    /// A framing error stops the reading ahead without a word: the framer throws it again to the
    /// pipeline's reader (``RecordFramer``), after the records read so far are written, as a pipe, read
    /// without looking ahead, writes them. Thrown here, it cost a file every row before it.
    private static func readAhead(_ framer: any RecordFramer, into pending: inout [RawChunk], options: BatchOptions) {
        guard options.sampleWaits else { return }
        nextRecords(framer, into: &pending, while: { $0.count < ColumnGuess.rows })
    }

    /// Reads one record a chunk into `pending` while `more` says so, up to the end of input or to a
    /// framing error, which is left for the framer to throw again (see ``readAhead(_:into:options:)``).
    /// `body` sees each chunk as it is added and returns false to stop.
    private static func nextRecords(_ framer: any RecordFramer, into pending: inout [RawChunk],
                                    while more: ([RawChunk]) -> Bool, _ body: (RawChunk) -> Bool = { _ in true }) {
        while more(pending) {
            guard let chunk = try? framer.nextChunk(targetBytes: 1, maxRecords: 1) else { return }
            pending.append(chunk)
            guard body(chunk) else { return }
        }
    }

    /// A key of the first object that holds a coordinate word among others (`pickup_latitude`), when
    /// no key has a plain name; two such keys are an error naming both.
    private static func matchedKey(_ axis: ColumnMatcher.Axis, _ names: [String], option: String, place: String) throws(CLIError) -> String? {
        // A key written twice is one key (its last value is the one read), not two candidates.
        let names = distinct(names)
        switch ColumnMatcher.find(axis, in: names) {
        case .column(let i):
            return axis.plainNames.contains(names[i].trimmingSpaces.lowercased()) ? nil : names[i]
        case .ambiguous(let found):
            let list = found.map { "\"\(names[$0])\"" }.joined(separator: " and ")
            throw .usage("\(place): \(found.count) keys could be the \(axis == .latitude ? "latitude" : "longitude"): \(list); "
                         + "choose one with \(option) KEY")
        case .none:
            return nil
        }
    }

    /// `items` without repeats, in the order of their first appearance.
    private static func distinct<T: Hashable>(_ items: [T]) -> [T] {
        var seen = Set<T>()
        return items.filter { seen.insert($0).inserted }
    }

    // MARK: - GeoJSON

    /// The options no GeoJSON input takes: its coordinates come from each Point, and it has no header.
    private static func refuseColumnOptions(_ options: BatchOptions) throws(CLIError) {
        if options.latColumn != nil || options.lonColumn != nil || options.coordsColumn != nil || options.lonFirst {
            throw .usage("--lat-col/--lon-col do not apply to GeoJSON, nor --coords or --lon-first (coordinates come from each Point)")
        }
        if options.header != nil {
            throw .usage("--header/--no-header apply to CSV and TSV input only")
        }
    }

    /// The feature's own names (``OutputNames/Feature``) beside the properties of the first feature that
    /// has properties (read into `pending`), for the outputs that write them: delimited output's columns
    /// (then the property names) and NDJSON's `id`/`lat`/`lon` keys. A framing error ends the search,
    /// for the pipeline to raise after the features before it (``readAhead(_:into:options:)``).
    private static func featureColumns(_ framer: any RecordFramer, schema: inout BatchSchema, pending: inout [RawChunk]) {
        let delimited = schema.output.delimiter != nil
        guard delimited || schema.output == .ndjson else { return }
        if delimited { schema.jsonColumns = [schema.featureNames.id, schema.featureNames.lat, schema.featureNames.lon] }
        nextRecords(framer, into: &pending, while: { $0.count < lookahead }) { chunk in
            let decoder = RecordDecoder(schema: schema)
            let keys: [[UInt8]]? = chunk.bytes.withUnsafeBufferPointer { b in
                let record = decoder.decode(b, chunk.records[0].range)
                guard case .feature(let members, let properties?, let propertyMembers, _) = record.content,
                      members[properties].kind == .object else { return nil }
                return propertyMembers.map { JSONScanner.decodeString(b, $0.key) }
            }
            guard let keys else { return true }
            schema.featureNames = OutputNames.Feature(beside: keys)
            if delimited {
                schema.jsonColumns = [schema.featureNames.id, schema.featureNames.lat, schema.featureNames.lon] + distinct(keys)
            }
            schema.columnsLine = chunk.records[0].line
            return false
        }
    }

    private static func geojson(input: ByteInput, schema: BatchSchema, options: BatchOptions,
                                warn: (String) -> Void) throws(CLIError) -> BatchSetup {
        var schema = schema
        try refuseColumnOptions(options)
        let framer = GeoJSONFramer(input: input)
        let prefix: [UInt8]
        do throws(CLIError) {
            prefix = try framer.readPrefix()
        } catch {
            // What the collection had is said however the run ends: its members before the failure too.
            if let notice = unwrittenCollectionMembers(framer, schema: schema, afterFeatures: false) { warn(notice) }
            throw error
        }
        schema.geojsonTopLevel = framer.topLevel
        var pending: [RawChunk] = []
        featureColumns(framer, schema: &schema, pending: &pending)
        readAhead(framer, into: &pending, options: options)
        let sameFormat = schema.output == .geojson
        if framer.topLevel != .collection {
            // One Feature or Point in, one Feature out: nothing around it but the line's end.
            return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: [],
                              closing: { _ in sameFormat ? [0x0A] : [] })
        }
        return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: sameFormat ? prefix : [],
                          closing: { trailer in sameFormat ? [0x0A] + trailer + (trailer.last == 0x0A ? [] : [0x0A]) : [] })
    }

    // MARK: - GeoJSON text sequence

    /// One Feature a record, RS-separated or a line each (``GeoJSONSeqFramer``); nothing around the rows.
    private static func geojsonSequence(input: ByteInput, schema: BatchSchema, options: BatchOptions) throws(CLIError) -> BatchSetup {
        var schema = schema
        try refuseColumnOptions(options)
        let framer = GeoJSONSeqFramer(input: input)
        // Written back in the shape it came in: with an RS before each record if it had them.
        let hadRS = try framer.start()
        if options.outputRecordSeparator == nil { schema.recordSeparator = hadRS }
        var pending: [RawChunk] = []
        featureColumns(framer, schema: &schema, pending: &pending)
        readAhead(framer, into: &pending, options: options)
        return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: [], closing: { _ in [] })
    }
}
