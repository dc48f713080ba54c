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

    /// How many records to look at, at most, for a first record that can define the output columns.
    static let lookahead = 1000

    static func prepare(input: ByteInput, format: BatchFormat, outputFormat: BatchFormat,
                        options: BatchOptions) throws(CLIError) -> BatchSetup {
        var schema = BatchSchema(input: format, output: outputFormat, inputName: options.inputName, datum: options.datum)
        schema.fields = options.fields
        schema.prefix = options.prefix
        var setup: BatchSetup
        switch format {
        case .csv, .tsv:
            setup = try delimited(input: input, delimiter: format.delimiter!, schema: schema, options: options)
        case .ndjson:
            setup = try ndjson(input: input, schema: schema, options: options)
        case .geojson:
            setup = try geojson(input: input, schema: schema, options: options)
        }
        // What surrounds the rows depends on the output format.
        let encoder = RecordEncoder(schema: setup.schema)
        switch outputFormat {
        case .csv, .tsv:
            if input.hadByteOrderMark { setup.preamble += [0xEF, 0xBB, 0xBF] }
            if let header = encoder.headerRow() { setup.preamble += header }
        case .ndjson:
            break
        case .geojson:
            if format != .geojson {
                setup.preamble += Array("{\"type\":\"FeatureCollection\",\"features\":[".utf8)
                setup.closing = { _ in Array("\n]}\n".utf8) }
            }
        }
        return setup
    }

    // MARK: - CSV / TSV

    private static func delimited(input: ByteInput, delimiter: UInt8, schema: BatchSchema,
                                  options: BatchOptions) throws(CLIError) -> BatchSetup {
        var notices: [String] = []
        var schema = schema
        let framer = CSVFramer(input: input, delimiter: delimiter)
        guard let first = try framer.nextChunk(targetBytes: 1, maxRecords: 1) else {
            // Empty input: empty output (there is not even a header to repeat).
            return BatchSetup(framer: framer, schema: schema, pending: [], preamble: [], closing: { _ in [] })
        }
        let values: [String] = first.bytes.withUnsafeBufferPointer { b in
            CSVField.split(b, first.records[0].range, delimiter: delimiter).fields.map { $0.string(in: b) }
        }
        let latSpec = ColumnSpec(options.latColumn), lonSpec = ColumnSpec(options.lonColumn)
        let hasHeader: Bool
        if let header = options.header {
            hasHeader = header
        } else if latSpec?.name != nil || lonSpec?.name != nil {
            hasHeader = true    // columns named by the user only make sense with a header
        } else if find(BatchOptions.latitudeNames, in: values) != nil && find(BatchOptions.longitudeNames, in: values) != nil {
            hasHeader = true
        } else {
            // No known names: the first row is data if its coordinate columns hold numbers.
            let lat = latSpec?.index ?? 0, lon = lonSpec?.index ?? 1
            let numeric = lat < values.count && lon < values.count
                && DecimalNumber.parse(values[lat]) != nil && DecimalNumber.parse(values[lon]) != nil
            hasHeader = !numeric
        }
        schema.header = hasHeader ? values : nil
        schema.columnCount = values.count
        schema.latColumn = try resolve(latSpec, option: "--lat-col", what: "latitude", names: BatchOptions.latitudeNames,
                                       header: schema.header, columnCount: values.count, fallback: 0)
        schema.lonColumn = try resolve(lonSpec, option: "--lon-col", what: "longitude", names: BatchOptions.longitudeNames,
                                       header: schema.header, columnCount: values.count, fallback: 1)
        guard schema.latColumn != schema.lonColumn else {
            throw .usage("latitude and longitude are the same column (\(schema.columnLabel(schema.latColumn)))")
        }
        if framer.usesCRLF == true { schema.lineEnding = [0x0D, 0x0A] }
        if let header = schema.header {
            let clashes = schema.addedNames.filter { header.contains($0) }
            if !clashes.isEmpty {
                notices.append("the input already has column\(clashes.count == 1 ? "" : "s") \(clashes.joined(separator: ", ")); "
                               + "the output will have \(clashes.count == 1 ? "it" : "them") twice (use --prefix to tell them apart)")
            }
        }
        return BatchSetup(framer: framer, schema: schema, pending: hasHeader ? [] : [first], preamble: [],
                          closing: { _ in [] }, notices: notices)
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

    private static func resolve(_ spec: ColumnSpec?, option: String, what: String, names: [String], header: [String]?,
                                columnCount: Int, fallback: Int) throws(CLIError) -> Int {
        if let index = spec?.index {
            guard index < columnCount else {
                throw .usage("\(option) \(index + 1): the input has only \(columnCount) column\(columnCount == 1 ? "" : "s")")
            }
            return index
        }
        if let name = spec?.name {
            guard let header else { throw .usage("\(option) \(name) names a column, but the input has no header; give a 1-based column number") }
            guard let index = find([name], in: header) else {
                throw .usage("\(option) \(name): no such column in the header (\(header.joined(separator: ", ")))")
            }
            return index
        }
        guard let header else { return fallback }
        guard let index = find(names, in: header) else {
            throw .usage("cannot find the \(what) column in the header (\(header.joined(separator: ", "))); "
                         + "recognised names are \(names.joined(separator: ", ")); use \(option) NAME or NUMBER")
        }
        return index
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
        let framer = NDJSONFramer(input: input)
        var pending: [RawChunk] = []
        if schema.output.delimiter != nil {
            // Delimited output needs columns: the keys of the first object.
            while pending.count < lookahead, let chunk = try framer.nextChunk(targetBytes: 1, maxRecords: 1) {
                pending.append(chunk)
                let keys: [[UInt8]]? = chunk.bytes.withUnsafeBufferPointer { b in
                    var scanner = JSONScanner(b, range: chunk.records[0].range)
                    guard let members = try? scanner.objectMembers() else { return nil }
                    return members.map { JSONScanner.decodeString(b, $0.key) }
                }
                if let keys {
                    schema.jsonColumns = keys
                    break
                }
            }
        }
        return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: [], closing: { _ in [] })
    }

    // MARK: - GeoJSON

    private static func geojson(input: ByteInput, schema: BatchSchema, options: BatchOptions) throws(CLIError) -> BatchSetup {
        var schema = schema
        if options.latColumn != nil || options.lonColumn != nil {
            throw .usage("--lat-col/--lon-col do not apply to GeoJSON (coordinates come from each Point)")
        }
        if options.header != nil {
            throw .usage("--header/--no-header apply to CSV and TSV input only")
        }
        let framer = GeoJSONFramer(input: input)
        let prefix = try framer.readPrefix()
        var pending: [RawChunk] = []
        if schema.output.delimiter != nil {
            // Delimited output: the feature's id, lat, lon (RecordEncoder.featureColumns), then the property
            // names of the first feature that has properties.
            schema.jsonColumns = [Array("id".utf8), Array("lat".utf8), Array("lon".utf8)]
            while pending.count < lookahead, let chunk = try framer.nextChunk(targetBytes: 1, maxRecords: 1) {
                pending.append(chunk)
                let keys: [[UInt8]]? = chunk.bytes.withUnsafeBufferPointer { b in
                    let record = RecordDecoder(schema: schema).decodeFeature(b, chunk.records[0].range)
                    guard case .feature(let members, let properties?, _) = record.content,
                          members[properties].kind == .object else { return nil }
                    var scanner = JSONScanner(b, range: members[properties].value)
                    return (try? scanner.objectMembers())?.map { JSONScanner.decodeString(b, $0.key) }
                }
                if let keys {
                    // A property called "id" keeps its name; the feature's own id column then says whose it is.
                    if keys.contains(Array("id".utf8)) { schema.jsonColumns[0] = Array("feature_id".utf8) }
                    schema.jsonColumns += keys
                    break
                }
            }
        }
        let sameFormat = schema.output == .geojson
        return BatchSetup(framer: framer, schema: schema, pending: pending, preamble: sameFormat ? prefix : [],
                          closing: { trailer in sameFormat ? [0x0A] + trailer + (trailer.last == 0x0A ? [] : [0x0A]) : [] })
    }
}
