import GeoModel

/// Writes one decoded record, with its placemark fields added, in the output format (on a worker thread).
///
/// Same-format output carries the input through: every column or key, in order, values unchanged
/// (JSON values minified, CSV values re-quoted only where needed). Converting formats maps columns to keys
/// and back; a GeoJSON feature's position becomes `lat`/`lon` and a row's coordinate becomes a Point.
struct RecordEncoder: Sendable {
    let schema: BatchSchema
    private let delimiter: UInt8
    /// `"name":` for each added field, and for the error and raw-input keys. JSON output of delimited
    /// input: the names given way to the header's (``BatchSchema/addedNames(inJSONBeside:)``).
    private let fieldKeys: [[UInt8]]
    private let errorKey: [UInt8]
    private let rawInputKey: [UInt8]
    /// `"column":` for each header column of delimited input (or `"colN":` without a header).
    private let columnKeys: [[UInt8]]
    /// The added keys' names (fields, then the error key) in ASCII lower case, to find the input keys
    /// that repeat them or differ from them only in case, and a bit per name length (below 64) so that
    /// most input keys are passed over after one test.
    let foldedAddedNames: [[UInt8]]
    let addedLengths: UInt64
    /// `"id":`, `"lat":` and `"lon":` of a GeoJSON feature in NDJSON output (``OutputNames/Feature``), and
    /// the names folded with a bit per length, to find a property that takes them.
    private let featureIdKey: [UInt8]
    private let featureLatKey: [UInt8]
    private let featureLonKey: [UInt8]
    let foldedFeatureNames: [[UInt8]]
    let featureNameLengths: UInt64
    /// Output rows end with CRLF (else LF); a flag rather than the schema's array, which every worker
    /// would otherwise retain per row (one shared reference count, bouncing between cores).
    private let crlf: Bool
    /// Whether fields are added, and the cells a delimited row carries before them: read per row, so kept
    /// here rather than asked of the schema's arrays (whose reference counts every worker would bump).
    private let hasFields: Bool
    private let carriedCells: Int
    /// How a GeoJSON feature's own columns start in delimited output: `id`, `lat`, `lon`, then properties.
    static let featureColumns = 3
    /// GeoJSON output of a single Feature or Point: the one row is the document, with no separator.
    private let singleFeature: Bool
    /// A GeoJSON sequence's rows start with an RS (RFC 8142), as the input's did or OUT's name says.
    private let recordSeparator: Bool

    init(schema: BatchSchema) {
        self.schema = schema
        self.delimiter = schema.outputDelimiter
        // A header's names are every row's keys, each once (a repeated column takes `name_2`), and the
        // added ones give way to them once, here.
        let headerNames = schema.columnKeyNames
        let key = Self.memberKey
        let added = schema.input.delimiter != nil ? schema.addedNames(inJSONBeside: headerNames)
            : schema.addedNames.map { Array($0.utf8) }
        fieldKeys = added.dropLast().map(key)
        errorKey = key(added.last!)
        rawInputKey = key(Array(schema.rawInputName.utf8))
        foldedAddedNames = schema.addedNames.map { OutputNames.folded(Array($0.utf8)) }
        addedLengths = foldedAddedNames.reduce(0) { $1.count < 64 ? $0 | 1 << UInt64($1.count) : $0 }
        featureIdKey = key(schema.featureNames.id)
        featureLatKey = key(schema.featureNames.lat)
        featureLonKey = key(schema.featureNames.lon)
        foldedFeatureNames = [schema.featureNames.id, schema.featureNames.lat, schema.featureNames.lon].map(OutputNames.folded)
        featureNameLengths = foldedFeatureNames.reduce(0) { $1.count < 64 ? $0 | 1 << UInt64($1.count) : $0 }
        crlf = schema.lineEnding == [0x0D, 0x0A]
        singleFeature = schema.input == .geojson && schema.geojsonTopLevel != .collection
        recordSeparator = schema.recordSeparator
        hasFields = !schema.fields.isEmpty
        // Only an empty JSON first record leaves no carried cell.
        carriedCells = schema.input.delimiter != nil ? schema.columnCount : schema.jsonColumns.count
        columnKeys = headerNames.map(key)
    }

    /// `"name":`, as a JSON object's member starts.
    static func memberKey(_ name: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendString(name, to: &out)
        out.append(UInt8(ascii: ":"))
        return out
    }

    /// The header row of delimited output, or nil when the output has none (delimited input without one).
    func headerRow() -> [UInt8]? {
        guard schema.output.delimiter != nil else { return nil }
        let columns: [String]
        switch schema.input {
        case .csv, .tsv:
            if let row = headerRowAsRead() { return row }
            guard let header = schema.header ?? schema.syntheticHeader else { return nil }
            columns = header
        case .ndjson, .geojson, .geojsonseq:
            columns = schema.jsonColumns.map { String(decoding: $0, as: UTF8.self) }
        }
        var out: [UInt8] = []
        for (i, name) in (columns + schema.addedNames).enumerated() {
            if i > 0 { out.append(delimiter) }
            CSVField.append(name, delimiter: delimiter, to: &out)
        }
        out += schema.lineEnding
        return out
    }

    /// Appends the output row for `record`. `first` is true for the very first row of the output (GeoJSON
    /// separates features with commas). Keys that cannot be carried are reported through `notices`.
    func encode(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, placemark: Placemark?, first: Bool,
                line: Int, notices: inout [Notice], cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        switch schema.output {
        case .csv, .tsv: encodeDelimited(b, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
        case .ndjson: encodeObject(b, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
        case .geojson:
            if singleFeature {
                // Nothing around it: the setup's closing ends the line.
            } else if first {
                out.append(0x0A)
            } else {
                out.append(UInt8(ascii: ","))
                out.append(0x0A)
            }
            encodeFeature(b, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
        case .geojsonseq:
            // One Feature a line, after an RS when the sequence has them.
            if recordSeparator { out.append(BatchFormat.recordSeparatorByte) }
            encodeFeature(b, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
            out.append(0x0A)
        }
    }

    /// A cache for one worker, encoding the added columns the way this encoder writes them.
    func makeCache() -> PlacemarkBytesCache {
        let fields = schema.fields, delimiter = self.delimiter, fieldKeys = self.fieldKeys
        let showsDistance = fields.contains { if case .level(_, .distance) = $0.field { true } else { false } }
        switch schema.output {
        case .csv, .tsv:
            return PlacemarkBytesCache(showsDistance: showsDistance) { placemark, out in
                Self.appendFieldCells(fields, placemark, delimiter: delimiter, to: &out)
            }
        case .ndjson, .geojson, .geojsonseq:
            return PlacemarkBytesCache(showsDistance: showsDistance) { placemark, out in
                Self.appendFieldMembers(fields, fieldKeys, placemark, to: &out)
            }
        }
    }

    /// `v1,v2,…,vn`: the placemark's cells, no delimiter before the first (none for no placemark).
    static func appendFieldCells(_ fields: [PlacemarkColumn], _ placemark: Placemark?, delimiter: UInt8, to out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(delimiter) }
            if let placemark, let text = field.text(of: placemark) { CSVField.append(text, delimiter: delimiter, to: &out) }
        }
    }

    /// `"k1":v1,…,"kn":vn`: every field's member, null when empty, no comma before the first.
    static func appendFieldMembers(_ fields: [PlacemarkColumn], _ keys: [[UInt8]], _ placemark: Placemark?, to out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += keys[i]
            field.field.appendJSON(of: placemark, to: &out)
        }
    }

    @inline(__always)
    private func appendLineEnding(_ out: inout [UInt8]) {
        if crlf { out.append(0x0D) }
        out.append(0x0A)
    }

    // MARK: - Delimited output

    private func encodeDelimited(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, _ placemark: Placemark?,
                                 line: Int, notices: inout [Notice], cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        var error = record.error
        switch record.content {
        case .plainRow(let range, let fields):
            // The row's own bytes, then the columns it lacks (empty).
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[range]))
            if fields < schema.columnCount {
                for _ in fields..<schema.columnCount { out.append(delimiter) }
            }
        case .fields(let values):
            // At most the schema's columns: a row with more is a bad row whose message holds the rest.
            for column in 0..<schema.columnCount {
                if column > 0 { out.append(delimiter) }
                if column < values.count { appendCSV(values[column], b, &out) }
            }
        case .object(let members):
            appendJSONColumns(b, members, columns: schema.jsonColumns[...], distinct: record.writesNestedDistinct, line: line,
                              notices: &notices, into: &out)
        case .feature(let members, _, let propertyMembers, let position):
            // id, lat, lon, then the property columns; a bbox or a foreign member is said, not written.
            noteUnwrittenMembers(b, members, line: line, notices: &notices)
            noteUnwrittenGeometry(b, record, line: line, notices: &notices)
            if let (index, _) = members.lastMember(named: Self.idKey, in: b) {
                appendJSONAsCSV(b, members[index].value, kind: members[index].kind, distinct: record.writesNestedDistinct, &out)
            }
            out.append(delimiter)
            if let position {
                appendJSONAsCSV(b, position.lat, kind: b[position.lat.lowerBound] == UInt8(ascii: "\"") ? .string : .number, distinct: false, &out)
                out.append(delimiter)
                appendJSONAsCSV(b, position.lon, kind: b[position.lon.lowerBound] == UInt8(ascii: "\"") ? .string : .number, distinct: false, &out)
            } else {
                out.append(delimiter)
            }
            let propertyColumns = schema.jsonColumns.dropFirst(Self.featureColumns)
            if !propertyColumns.isEmpty { out.append(delimiter) }
            appendJSONColumns(b, propertyMembers, columns: propertyColumns, distinct: record.writesNestedDistinct, line: line,
                              notices: &notices, into: &out)
        case .geometry(_, let position):
            // A bare Point: no id, its lat and lon, no properties; a bbox, a foreign member or an
            // altitude is said, not written.
            noteUnwrittenGeometry(b, record, line: line, notices: &notices)
            out.append(delimiter)
            if let position {
                appendJSONAsCSV(b, position.lat, kind: .number, distinct: false, &out)
                out.append(delimiter)
                appendJSONAsCSV(b, position.lon, kind: .number, distinct: false, &out)
            } else {
                out.append(delimiter)
            }
            out.append(contentsOf: repeatElement(delimiter, count: max(schema.jsonColumns.count - Self.featureColumns, 0)))
        case .raw(let range):
            out.append(contentsOf: repeatElement(delimiter, count: max(schema.jsonColumns.count - 1, 0)))
            error = (error ?? "unreadable record") + "; input (line \(line), \(NumberFormatting.grouped(range.count)) bytes): "
                + LineExcerpt.quote(UnsafeBufferPointer(rebasing: b[range]))
        }
        if carriedCells > 0 && hasFields { out.append(delimiter) }
        cache.append(placemark, to: &out)
        if carriedCells > 0 || hasFields { out.append(delimiter) }
        if let error { CSVField.append(error, delimiter: delimiter, to: &out) }
        appendLineEnding(&out)
    }

    /// The output row of a plain row that geocoded without error (``RecordDecoder/plainCoordinate(_:_:noQuotes:)``):
    /// what ``encodeDelimited`` writes for a `.plainRow` record with no error, without building one.
    ///
    /// Out of line: inlined into the worker's loop, its byte appends were compiled one way or another
    /// as the loop's other code changed (68 instructions a row more once, by callgrind, for a change
    /// elsewhere in the loop); on its own they are compiled the same way whatever the loop holds.
    @inline(never)
    func encodePlainRow(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>, fields: Int, placemark: Placemark?,
                        cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[span]))
        let columnCount = carriedCells
        if fields < columnCount {
            for _ in fields..<columnCount { out.append(delimiter) }
        }
        if columnCount > 0 && hasFields { out.append(delimiter) }
        cache.append(placemark, to: &out)
        if columnCount > 0 || hasFields { out.append(delimiter) }
        appendLineEnding(&out)
    }

    private static let idKey = Array("id".utf8)

    @inline(__always)
    private func appendCSV(_ value: CSVValue, _ b: UnsafeBufferPointer<UInt8>, _ out: inout [UInt8]) {
        value.withBytes(in: b) { CSVField.append($0, delimiter: delimiter, to: &out) }
    }

    /// Writes `members` under `columns` (matched by key; distinct names), reporting members that have
    /// no column. The members give each key once: a key the record gave twice holds its last value, the
    /// one JSON readers keep (the decoder made them so, and warned). `distinct`: the record repeats a
    /// key inside a value, whose JSON text then gives it once too (``DistinctJSON``).
    private func appendJSONColumns(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], columns: ArraySlice<[UInt8]>,
                                   distinct: Bool, line: Int, notices: inout [Notice], into out: inout [UInt8]) {
        // Fast path: the usual case, exactly the columns' keys in their order.
        let inPlace = members.count == columns.count
            && zip(members, columns).allSatisfy { $0.keyEquals(b, $1) }
        var matched = 0
        for (offset, column) in columns.enumerated() {
            if offset > 0 { out.append(delimiter) }
            let member: JSONMember?
            if inPlace {
                member = members[offset]
            } else if let (index, _) = members.lastMember(named: column, in: b) {
                member = members[index]
            } else {
                member = nil
            }
            if let member {
                matched += 1
                appendJSONAsCSV(b, member.value, kind: member.kind, distinct: distinct, &out)
            }
        }
        guard matched < members.count else { return }
        for member in members where !columns.contains(where: { member.keyEquals(b, $0) }) {
            let key = String(decoding: JSONScanner.decodeString(b, member.key), as: UTF8.self)
            notices.append(Notice(key: key, message: "\(schema.inputName):\(line): key \"\(key)\" is not a column of the "
                                  + "\(schema.output.rawValue.uppercased()) output (columns come from the first record); its values are dropped"))
        }
    }

    /// A JSON value in a CSV cell: strings decoded, null empty, anything else as compact JSON text (each
    /// key once when `distinct`, as ``appendValue(_:_:kind:distinct:_:)`` writes it).
    private func appendJSONAsCSV(_ b: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>, kind: JSONKind, distinct: Bool,
                                 _ out: inout [UInt8]) {
        switch kind {
        case .string:
            CSVField.append(JSONScanner.decodeString(b, raw), delimiter: delimiter, to: &out)
        case .null:
            break
        case .number, .bool:
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[raw]))
        case .object, .array:
            var json: [UInt8] = []
            appendValue(b, raw, kind: kind, distinct: distinct, &json)
            CSVField.append(json, delimiter: delimiter, to: &out)
        }
    }

    // MARK: - JSON output

    /// The members of the record as they go into an NDJSON object or a feature's properties, without braces.
    /// Returns whether anything was written (for comma placement). `addedKeys` is set when the added
    /// members must give way to a carried one (``addedKeys(_:_:feature:names:line:notices:)``).
    private func appendCarriedMembers(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, line: Int,
                                      notices: inout [Notice], addedKeys: inout AddedKeys?, into out: inout [UInt8]) -> Bool {
        var any = false
        func comma() {
            if any { out.append(UInt8(ascii: ",")) }
            any = true
        }
        switch record.content {
        case .fields(let values):
            // Every column, null where the row has no value; a row with more fields is a bad row whose
            // message holds the rest.
            for i in 0..<columnKeys.count {
                comma()
                out += columnKeys[i]
                if i < values.count {
                    values[i].withBytes(in: b) { JSONWriter.appendString($0, to: &out) }
                } else {
                    out.append(contentsOf: "null".utf8)
                }
            }
        case .plainRow:
            preconditionFailure("rows are carried verbatim only to delimited output")
        case .object(let members):
            addedKeys = self.addedKeys(b, members, feature: false, names: nil, line: line, notices: &notices)
            for member in members {
                comma()
                appendMember(b, member, distinct: record.writesNestedDistinct, &out)
            }
        case .feature(let members, _, let inner, let position):
            // The feature's id (null without one, so that every row has the key) and the Point's lat and
            // lon, under the names that give way to the properties' (OutputNames); a bbox or a foreign
            // member is said, not written.
            noteUnwrittenMembers(b, members, line: line, notices: &notices)
            noteUnwrittenGeometry(b, record, line: line, notices: &notices)
            let names = featureNames(b, inner)
            comma()
            if let names { out += Self.memberKey(names.id) } else { out += featureIdKey }
            if let (index, _) = members.lastMember(named: Self.idKey, in: b) {
                appendValue(b, members[index].value, kind: members[index].kind, distinct: record.writesNestedDistinct, &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(UInt8(ascii: ","))
            if let names { out += Self.memberKey(names.lat) } else { out += featureLatKey }
            if let position { JSONWriter.appendMinified(b, position.lat, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(UInt8(ascii: ","))
            if let names { out += Self.memberKey(names.lon) } else { out += featureLonKey }
            if let position { JSONWriter.appendMinified(b, position.lon, to: &out) } else { out.append(contentsOf: "null".utf8) }
            addedKeys = self.addedKeys(b, inner, feature: true, names: names, line: line, notices: &notices)
            for member in inner {
                comma()
                appendMember(b, member, distinct: record.writesNestedDistinct, &out)
            }
        case .geometry(_, let position):
            // A bare Point: a feature without id or properties (and what else the geometry has, said).
            noteUnwrittenGeometry(b, record, line: line, notices: &notices)
            comma()
            out += featureIdKey
            out.append(contentsOf: "null,".utf8)
            out += featureLatKey
            if let position { JSONWriter.appendMinified(b, position.lat, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(UInt8(ascii: ","))
            out += featureLonKey
            if let position { JSONWriter.appendMinified(b, position.lon, to: &out) } else { out.append(contentsOf: "null".utf8) }
        case .raw(let range):
            comma()
            out += rawInputKey
            JSONWriter.appendString(UnsafeBufferPointer(rebasing: b[range]), to: &out)
        }
        return any
    }

    @inline(__always)
    private func appendMember(_ b: UnsafeBufferPointer<UInt8>, _ member: JSONMember, distinct: Bool, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[member.key]))
        out.append(UInt8(ascii: ":"))
        appendValue(b, member.value, kind: member.kind, distinct: distinct, &out)
    }

    /// A carried value, minified; `distinct` (the record repeats a key inside its values): with each
    /// key of its objects once, where it first stood, with its last value, as the record's own keys are
    /// written (``DistinctJSON``). Otherwise as it came: no object then repeats a key.
    @inline(__always)
    private func appendValue(_ b: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, kind: JSONKind, distinct: Bool,
                             _ out: inout [UInt8]) {
        if distinct {
            DistinctJSON.appendMinified(b, value, kind: kind, to: &out)
        } else {
            JSONWriter.appendMinified(b, value, to: &out)
        }
    }

    /// `,"country":"…",…,"geocode_error":…`: every added key, null when empty (a found:false row has
    /// the same keys as a found one); `leadingComma` when members precede. `keys`: the keys the added
    /// members take in an object that has one of theirs already (nil: the usual ones, cached).
    private func appendAddedMembers(_ record: DecodedRecord, _ placemark: Placemark?, leadingComma: Bool, keys: AddedKeys? = nil,
                                    cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        if leadingComma && hasFields { out.append(UInt8(ascii: ",")) }
        if let keys {
            Self.appendFieldMembers(schema.fields, keys.fields, placemark, to: &out)
        } else {
            cache.append(placemark, to: &out)
        }
        if leadingComma || hasFields { out.append(UInt8(ascii: ",")) }
        out += keys?.error ?? errorKey
        if let error = record.error { JSONWriter.appendString(error, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    private func encodeObject(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, _ placemark: Placemark?,
                              line: Int, notices: inout [Notice], cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var keys: AddedKeys?
        let any = appendCarriedMembers(b, record, line: line, notices: &notices, addedKeys: &keys, into: &out)
        appendAddedMembers(record, placemark, leadingComma: any, keys: keys, cache: &cache, into: &out)
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    }

    private func encodeFeature(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, _ placemark: Placemark?,
                               line: Int, notices: inout [Notice], cache: inout PlacemarkBytesCache, into out: inout [UInt8]) {
        if case .geometry(let range, _) = record.content {
            // A bare geometry becomes the geometry of a Feature whose properties are the added fields.
            out.append(contentsOf: "{\"type\":\"Feature\",\"geometry\":".utf8)
            // The geometry is the record: its own repeated keys are written once too.
            appendValue(b, range, kind: .object, distinct: record.writesNestedDistinct || !record.repeatedKeys.isEmpty, &out)
            out.append(contentsOf: ",\"properties\":{".utf8)
            appendAddedMembers(record, placemark, leadingComma: false, cache: &cache, into: &out)
            out.append(contentsOf: "}}".utf8)
            return
        }
        guard case .feature(let members, let properties, _, _) = record.content else {
            // A row or an object (or unreadable text) becomes a new Feature; no coordinate, no geometry.
            out.append(contentsOf: "{\"type\":\"Feature\",\"geometry\":".utf8)
            if let c = record.coordinate {
                out.append(contentsOf: "{\"type\":\"Point\",\"coordinates\":[".utf8)
                appendCoordinate(b, record.coordinateText?.lon, c.longitude, &out)
                out.append(UInt8(ascii: ","))
                appendCoordinate(b, record.coordinateText?.lat, c.latitude, &out)
                out.append(contentsOf: "]}".utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(contentsOf: ",\"properties\":{".utf8)
            var keys: AddedKeys?
            let any = appendCarriedMembers(b, record, line: line, notices: &notices, addedKeys: &keys, into: &out)
            appendAddedMembers(record, placemark, leadingComma: any, keys: keys, cache: &cache, into: &out)
            out.append(contentsOf: "}}".utf8)
            return
        }
        // The feature as it was, member by member, with the fields added to its properties.
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            guard i == properties else {
                appendMember(b, member, distinct: record.writesNestedDistinct, &out)
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[member.key]))
            out.append(UInt8(ascii: ":"))
            appendProperties(b, member, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
        }
        if properties == nil {
            if !members.isEmpty { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"properties\":".utf8)
            appendProperties(b, nil, record, placemark, line: line, notices: &notices, cache: &cache, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A position number: the input's own digits when they are valid JSON (`45.500000` stays so), else the
    /// Double's shortest round-trip form (`+12.5`, `.5` or ` 7 ` are fine input but not JSON).
    private func appendCoordinate(_ b: UnsafeBufferPointer<UInt8>, _ text: Range<Int>?, _ value: Double, _ out: inout [UInt8]) {
        if let text {
            var scanner = JSONScanner(b, range: text)
            if (try? scanner.number()) != nil, scanner.atEnd {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[text]))
                return
            }
        }
        out.append(contentsOf: "\(value)".utf8)
    }

    private func appendProperties(_ b: UnsafeBufferPointer<UInt8>, _ member: JSONMember?, _ record: DecodedRecord,
                                  _ placemark: Placemark?, line: Int, notices: inout [Notice], cache: inout PlacemarkBytesCache,
                                  into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var any = false
        var keys: AddedKeys?
        if let member {
            switch member.kind {
            case .object:
                // Read by the decoder, each key once.
                guard case .feature(_, _, let members, _) = record.content else { preconditionFailure("properties of a feature") }
                keys = addedKeys(b, members, feature: false, names: nil, line: line, notices: &notices)
                for (i, inner) in members.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    appendMember(b, inner, distinct: record.writesNestedDistinct, &out)
                    any = true
                }
            case .null:
                break
            default:
                // Not an object: kept whole under geocode_input so nothing is lost.
                out += rawInputKey
                appendValue(b, member.value, kind: member.kind, distinct: record.writesNestedDistinct, &out)
                any = true
            }
        }
        appendAddedMembers(record, placemark, leadingComma: any, keys: keys, cache: &cache, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}
