import GeoModel

/// Parses one input record (on a worker thread) into a ``DecodedRecord``.
struct RecordDecoder: Sendable {
    let schema: BatchSchema
    /// Labels of the coordinate columns, made once rather than per row.
    private let latLabel: String
    private let lonLabel: String

    /// Whether a plain row can go to the output as its own bytes: delimited output with the same delimiter.
    private let carriesRowsVerbatim: Bool

    /// `plainRows: false` sends every row through the general path (tests compare the two).
    init(schema: BatchSchema, plainRows: Bool = true) {
        self.schema = schema
        // Not for a --coords column: the pair's own parse is the general path's.
        carriesRowsVerbatim = plainRows && schema.input.delimiter != nil && schema.output.delimiter != nil
            && schema.outputDelimiter == schema.delimiter && schema.coordsColumn == nil
        latLabel = schema.columnLabel(schema.latColumn)
        lonLabel = schema.columnLabel(schema.lonColumn)
    }

    func decode(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        switch schema.input {
        case .csv, .tsv: return decodeDelimited(b, span)
        case .ndjson: return decodeObject(b, span)
        case .geojson: return schema.geojsonTopLevel == .point ? decodeGeometry(b, span) : decodeFeature(b, span)
        case .geojsonseq: return decodeSequenceRecord(b, span)
        }
    }

    // MARK: - CSV / TSV

    func decodeDelimited(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        if carriesRowsVerbatim, let record = decodePlainRow(b, span) { return record }
        let (values, unterminated) = CSVField.split(b, span, delimiter: schema.delimiter)
        var record = DecodedRecord(content: .fields(values))
        if unterminated {
            record.error = "a quoted field is not closed before the end of the input"
            return record
        }
        if values.count > schema.columnCount {
            // The row keeps the schema's columns (the output stays rectangular); what is beyond them goes
            // into the message, so nothing is lost.
            let expected = schema.header != nil ? "as in the header" : "as in the first row"
            var extra: [UInt8] = []
            for (i, value) in values[schema.columnCount...].enumerated() {
                if i > 0 { extra.append(schema.delimiter) }
                value.withBytes(in: b) { CSVField.append($0, delimiter: schema.delimiter, to: &extra) }
            }
            record.error = "the row has \(values.count) fields, expected \(schema.columnCount) (\(expected)); "
                + "an unquoted delimiter inside a value? The fields beyond column \(schema.columnCount): "
                + LineExcerpt.quote(extra)
            return record
        }
        if let column = schema.coordsColumn {
            decodePairColumn(b, values, column, into: &record)
            return record
        }
        let lat = delimitedValue(b, values, schema.latColumn)
        let lon = delimitedValue(b, values, schema.lonColumn)
        switch CoordinateCheck.coordinate(lat: lat, latWhere: latLabel, lon: lon, lonWhere: lonLabel) {
        case .success(let c):
            record.coordinate = c
            if values[schema.latColumn].owned == nil, values[schema.lonColumn].owned == nil {
                record.coordinateText = (values[schema.latColumn].span, values[schema.lonColumn].span)
            }
        case .failure(let e): record.error = e.message
        }
        return record
    }

    /// The common row, in one scan and without an array of fields: no quote anywhere, no value the
    /// output would have to quote, no more fields than the schema's. Nil sends the row to the general
    /// path (which also makes the messages about missing columns).
    @inline(__always)
    private func decodePlainRow(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord? {
        let delimiter = schema.delimiter, quote = UInt8(ascii: "\""), space = UInt8(ascii: " ")
        let latColumn = schema.latColumn, lonColumn = schema.lonColumn, columnCount = schema.columnCount
        var lat = 0..<0, lon = 0..<0
        var field = 0
        var start = span.lowerBound
        let end = span.upperBound
        while true {
            var i = start
            while i < end {
                let c = b[i]
                if c == delimiter { break }
                if c == quote { return nil }
                i += 1
            }
            if i > start && (b[start] == space || b[i - 1] == space) { return nil }
            if field == latColumn { lat = start..<i } else if field == lonColumn { lon = start..<i }
            field += 1
            if i >= end { break }
            start = i + 1
        }
        guard field <= columnCount, field > latColumn, field > lonColumn else { return nil }
        var record = DecodedRecord(content: .plainRow(span, fields: field))
        let latValue = coordinateValue(UnsafeBufferPointer(rebasing: b[lat]))
        let lonValue = coordinateValue(UnsafeBufferPointer(rebasing: b[lon]))
        switch CoordinateCheck.coordinate(lat: latValue, latWhere: latLabel, lon: lonValue, lonWhere: lonLabel) {
        case .success(let c):
            record.coordinate = c
            record.coordinateText = (lat, lon)
        case .failure(let e): record.error = e.message
        }
        return record
    }

    /// A plain row's coordinate and field count, without a ``DecodedRecord``: the worker's fused path for
    /// rows carried verbatim (``carriesRowsVerbatim``). Nil for anything else: a quote, a field with a
    /// space at either end, too few or too many fields, a number in any other shape than
    /// `[+-]digits[.digits]` (e.g. an exponent), a coordinate out of range. The row then takes
    /// ``decode(_:_:)``, which gives the same answer or the message, so this path only has to be right
    /// when it answers. `noQuotes`: the chunk holds no quote (an unframed chunk), so none is looked for.
    @inline(__always)
    func plainCoordinate(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>, noQuotes: Bool) -> PlainRow? {
        guard carriesRowsVerbatim else { return nil }
        let delimiter = schema.delimiter, space = UInt8(ascii: " ")
        let latColumn = schema.latColumn, lonColumn = schema.lonColumn, columnCount = schema.columnCount
        let p = b.baseAddress!
        var lat = 0..<0, lon = 0..<0
        var field = 0, start = span.lowerBound
        let end = span.upperBound
        while true {
            let i = noQuotes ? Self.nextByte(delimiter, p, from: start, to: end)
                             : Self.nextByteOrQuote(delimiter, p, from: start, to: end)
            if i < 0 { return nil }   // a quote
            if i > start && (p[start] == space || p[i - 1] == space) { return nil }
            if field == latColumn { lat = start..<i } else if field == lonColumn { lon = start..<i }
            field += 1
            if i >= end { break }
            start = i + 1
        }
        guard field <= columnCount, field > latColumn, field > lonColumn,
              !lat.isEmpty, !lon.isEmpty else { return nil }
        let separator = schema.decimalComma ? UInt8(ascii: ",") : UInt8(ascii: ".")
        guard let la = DecimalNumber.plain(p, lat.lowerBound, lat.upperBound, separator),
              let lo = DecimalNumber.plain(p, lon.lowerBound, lon.upperBound, separator),
              abs(la) <= 90, abs(lo) <= 180 else { return nil }
        return PlainRow(coordinate: Coordinate(latitude: la, longitude: lo), fields: field)
    }

    /// What ``plainCoordinate(_:_:noQuotes:)`` finds.
    struct PlainRow {
        var coordinate: Coordinate
        var fields: Int
    }

    /// The index of the first `byte` in `from..<to`, or `to`. Eight bytes at a time: fields are ~10 bytes,
    /// so this is one or two steps where a byte loop takes ten.
    @inline(__always)
    static func nextByte(_ byte: UInt8, _ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        let raw = UnsafeRawPointer(p)
        var i = from
        while i + 8 <= to {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
            // The lowest set high bit marks the first zero byte exactly (bits above it may be false hits).
            let hits = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if hits != 0 { return i + hits.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < to && p[i] != byte { i += 1 }
        return i
    }

    /// ``nextByte(_:_:from:to:)`` that also stops at a quote: -1 when a quote comes first.
    @inline(__always)
    static func nextByteOrQuote(_ byte: UInt8, _ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        while i < to {
            let c = p[i]
            if c == byte { return i }
            if c == UInt8(ascii: "\"") { return -1 }
            i += 1
        }
        return i
    }

    /// THE place where a coordinate's text becomes a number, for every input format (a field's bytes, a
    /// JSON number's, a JSON string's content): `--decimal-comma` is honoured here.
    @inline(__always)
    func coordinateValue(_ bytes: UnsafeBufferPointer<UInt8>) -> CoordinateCheck.Value {
        if let v = number(bytes) { return .number(v, text: .bytes(bytes)) }  // --decimal-comma: see number(_:)
        if bytes.allSatisfy(DecimalNumber.isPadding) { return .empty }
        return .notNumber(text: String(decoding: bytes, as: UTF8.self))
    }

    /// A coordinate from text that is not in the record's buffer (a quoted field, a JSON string).
    func coordinateValue(_ text: [UInt8]) -> CoordinateCheck.Value {
        text.withUnsafeBufferPointer { bytes in
            switch coordinateValue(bytes) {
            case .number(let v, _): return .number(v, text: .string(String(decoding: bytes, as: UTF8.self)))
            case let other: return other
            }
        }
    }

    private func delimitedValue(_ b: UnsafeBufferPointer<UInt8>, _ values: [CSVValue], _ column: Int) -> CoordinateCheck.Value {
        guard column < values.count else {
            let plural = values.count == 1 ? "field" : "fields"
            return .missing("the row has \(values.count) \(plural), so no \(schema.columnLabel(column))")
        }
        let value = values[column]
        // A quoted value's bytes live in its own array.
        if let owned = value.owned { return coordinateValue(owned) }
        return coordinateValue(UnsafeBufferPointer(rebasing: b[value.span]))
    }

    // MARK: - NDJSON

    func decodeObject(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        var scanner = JSONScanner(b, range: span)
        // Objects inside the members' values: this record's own members are checked exactly below.
        scanner.nestedKeyCheckDepth = 1
        scanner.skipWhitespace()
        guard scanner.position < scanner.end, b[scanner.position] == UInt8(ascii: "{") else {
            return DecodedRecord(content: .raw(span), error: "not a JSON object")
        }
        var members: [JSONMember]
        do throws(JSONError) {
            members = try scanner.objectMembers()
            scanner.skipWhitespace()
            if !scanner.atEnd { throw scanner.error("unexpected text after the JSON object") }
        } catch {
            return DecodedRecord(content: .raw(span), error: "invalid JSON: \(error.message) at column \(error.offset - span.lowerBound + 1)")
        }
        // A key given twice: read, and written, once with its last value (DistinctMembers).
        var repeated: [String] = []
        if let distinct = members.withoutRepeatedKeys(in: b) {
            members = distinct.members
            repeated = distinct.repeatedKeys
        }
        var record = DecodedRecord(content: .object(members))
        record.repeatedKeys = repeated
        if scanner.nestedKeyMayRepeat { DistinctJSON.repeatedPaths(in: members, at: "", b, into: &record.repeatedNestedKeys) }
        if let key = schema.coordsKey {
            decodePairKey(b, members, key, into: &record)
            return record
        }
        let lat = jsonValue(b, members, keys: schema.latKeys, anyCase: schema.latKeysAreDefaults)
        let lon = jsonValue(b, members, keys: schema.lonKeys, anyCase: schema.lonKeysAreDefaults)
        switch CoordinateCheck.coordinate(lat: lat.value, latWhere: keyLabel(b, lat.key),
                                          lon: lon.value, lonWhere: keyLabel(b, lon.key)) {
        case .success(let c):
            record.coordinate = c
            if let latSpan = lat.numberSpan, let lonSpan = lon.numberSpan { record.coordinateText = (latSpan, lonSpan) }
        case .failure(let e): record.error = e.message
        }
        return record
    }

    /// The value of the first of `keys` the object has; of a key given twice (at any level of a dotted
    /// path), the last value (``Swift/Array/lastMember(where:)``). Said by ``decodeObject(_:_:)``, which
    /// finds every repeated key, on the coordinates' path or not.
    private func jsonValue(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], keys: [[UInt8]], anyCase: Bool)
        -> (value: CoordinateCheck.Value, key: Range<Int>?, numberSpan: Range<Int>?) {
        for key in keys {
            let found = members.lastMember(where: { keyMatches(b, $0, key, anyCase: anyCase) }).map { members[$0.index] }
                ?? nestedMember(b, members, path: key)
            guard let member = found else { continue }
            switch member.kind {
            case .number:
                // A JSON number is never written with a decimal comma.
                let raw = UnsafeBufferPointer(rebasing: b[member.value])
                if let v = DecimalNumber.parse(raw) { return (.number(v, text: .bytes(raw)), member.key, member.value) }
                return (.notNumber(text: String(decoding: raw, as: UTF8.self)), member.key, nil)
            case .string:
                return (coordinateValue(JSONScanner.decodeString(b, member.value)), member.key, nil)
            default:
                return (.wrongKind(json: String(decoding: b[member.value], as: UTF8.self)), member.key, nil)
            }
        }
        let names = keys.map { "\"\(String(decoding: $0, as: UTF8.self))\"" }.joined(separator: ", ")
        return (.missing("the object has no key \(names)"), nil, nil)
    }

    /// The latitude and longitude keys an NDJSON object has (as written), if it has both.
    func coordinateKeys(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> (lat: String, lon: String)? {
        var scanner = JSONScanner(b, range: span)
        scanner.skipWhitespace()
        guard let members = try? scanner.objectMembers() else { return nil }
        guard let lat = jsonValue(b, members, keys: schema.latKeys, anyCase: schema.latKeysAreDefaults).key,
              let lon = jsonValue(b, members, keys: schema.lonKeys, anyCase: schema.lonKeysAreDefaults).key else { return nil }
        return (String(decoding: JSONScanner.decodeString(b, lat), as: UTF8.self),
                String(decoding: JSONScanner.decodeString(b, lon), as: UTF8.self))
    }

    /// `key "lat"`, for messages.
    private func keyLabel(_ b: UnsafeBufferPointer<UInt8>, _ key: Range<Int>?) -> String {
        guard let key else { return "" }
        return "key \"\(String(decoding: JSONScanner.decodeString(b, key), as: UTF8.self))\""
    }

    /// Built-in key names match in any ASCII case ("Lat", "LATITUDE"); a key the user named matches exactly.
    private func keyMatches(_ b: UnsafeBufferPointer<UInt8>, _ member: JSONMember, _ key: [UInt8], anyCase: Bool) -> Bool {
        anyCase ? member.keyEqualsIgnoringCase(b, key) : member.keyEquals(b, key)
    }

    // MARK: - GeoJSON

    /// One record of a GeoJSON text sequence: a Feature (or a bare Point), alone in its record. An RS
    /// before it (a line of an LF-separated sequence that has one anyway) is dropped, as GDAL drops it.
    func decodeSequenceRecord(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        var start = span.lowerBound
        // RS and JSON's white space, except LF, on purpose: neither layout leaves one before the text (a
        // line holds none; the framer trims an RS record), and skipping one would move the start past a
        // line that the record's line (the framer's) does not count, so "N lines into the feature" would
        // be off. (Inlined comparisons, not an array literal's `contains`: this runs for every byte it
        // skips, on every record.)
        while start < span.upperBound,
              b[start] == BatchFormat.recordSeparatorByte || JSONScanner.isLineWhitespace(b[start]) {
            start += 1
        }
        guard start < span.upperBound else { return DecodedRecord(content: .raw(span), error: "the record is empty") }
        return decodeFeature(b, start..<span.upperBound)
    }

    func decodeFeature(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        // A sequence's record is a whole JSON text; a collection's member was cut where its value ends.
        let sequence = schema.input == .geojsonseq
        guard b[span.lowerBound] == UInt8(ascii: "{") else {
            return DecodedRecord(content: .raw(span), error: sequence ? "the record is not a JSON object (a GeoJSON sequence holds "
                                 + "one Feature per record)" : "a member of \"features\" is not an object")
        }
        var scanner = JSONScanner(b, range: span)
        // Objects inside the properties' values and the geometry's: the feature's own members, the
        // properties' and the geometry's are checked exactly below.
        scanner.nestedKeyCheckDepth = 2
        var members: [JSONMember]
        do throws(JSONError) {
            members = try scanner.objectMembers()
            scanner.skipWhitespace()
            if sequence && !scanner.atEnd {
                throw scanner.error("unexpected text after the Feature's closing brace (two records on one line, or an RS missing?)")
            }
        } catch {
            let line = b[span.lowerBound..<error.offset].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            let whereText = line > 0 ? " (\(line) lines into the feature)"
                : sequence ? " at column \(error.offset - span.lowerBound + 1)" : ""
            return DecodedRecord(content: .raw(span), error: "invalid JSON in feature: \(error.message)\(whereText)")
        }
        // A member given twice, in the feature or its properties: the last is read (and gets the fields)
        // and written once, as other JSON readers read it (DistinctMembers).
        var repeated: [String] = []
        if let distinct = members.withoutRepeatedKeys(in: b) {
            members = distinct.members
            repeated = distinct.repeatedKeys
        }
        func member(_ name: [UInt8]) -> Int? { members.lastMember(named: name, in: b)?.index }
        let properties = member(GeoJSONBytes.properties), type = member(GeoJSONBytes.type), geometry = member(GeoJSONBytes.geometry)
        // The properties' members, read once here for every output (columns, keys, or the feature again).
        var propertyMembers: [JSONMember] = []
        if let properties, members[properties].kind == .object {
            var inner = JSONScanner(b, range: members[properties].value)
            propertyMembers = (try? inner.objectMembers()) ?? []
            if let distinct = propertyMembers.withoutRepeatedKeys(in: b) {
                propertyMembers = distinct.members
                repeated += distinct.repeatedKeys
            }
        }
        // The geometry's members, read once here for the nested check and the Point.
        var geometryMembers: [JSONMember]?
        var nestedMayRepeat = scanner.nestedKeyMayRepeat
        if let geometry, members[geometry].kind == .object {
            var inner = JSONScanner(b, range: members[geometry].value)
            geometryMembers = try? inner.objectMembers()
            if let distinct = geometryMembers?.withoutRepeatedKeys(in: b) {
                // Said by the nested check below ("geometry.type"); the Point is read from the last of each.
                geometryMembers = distinct.members
                nestedMayRepeat = true
            }
        }
        var record = DecodedRecord(content: .feature(members: members, properties: properties, propertyMembers: propertyMembers,
                                                     position: nil))
        record.repeatedKeys = repeated
        // The scanner left the keys of any other object member to this check (a foreign member's, rare).
        for i in members.indices where members[i].kind == .object && i != properties && i != geometry { nestedMayRepeat = true }
        if nestedMayRepeat {
            for (i, member) in members.enumerated() {
                if i == properties && member.kind == .object {
                    DistinctJSON.repeatedPaths(in: propertyMembers, at: "properties", b, into: &record.repeatedNestedKeys)
                } else {
                    DistinctJSON.repeatedPaths(in: [member], at: "", b, into: &record.repeatedNestedKeys)
                }
            }
        }
        guard let type, members[type].kind == .string,
              JSONScanner.decodeString(b, members[type].value) == GeoJSONBytes.feature else {
            // A sequence may hold bare Points too (RFC 8142 allows any GeoJSON object): each is one row.
            if sequence, let type, members[type].kind == .string, JSONScanner.decodeString(b, members[type].value) == GeoJSONBytes.point {
                return decodeGeometry(b, span)
            }
            record.error = "not a Feature (its \"type\" is \(typeDescription(b, members, type)))"
            // In a sequence it is no record of the format, and is carried as text in a new Feature: written
            // back as it is, readers of sequences (GDAL) would skip the line without a word.
            if sequence { record.content = .raw(span) }
            return record
        }
        if let properties, members[properties].kind != .object, members[properties].kind != .null {
            record.error = "\"properties\" is not an object or null"
            return record
        }
        guard let geometry else {
            record.error = "the feature has no \"geometry\""
            return record
        }
        guard members[geometry].kind == .object else {
            record.error = members[geometry].kind == .null ? "the feature's geometry is null" : "\"geometry\" is not an object"
            return record
        }
        guard let geometryMembers else {
            record.error = "\"geometry\" is not valid JSON"
            return record
        }
        let position = decodePoint(b, geometryMembers, into: &record)
        record.content = .feature(members: members, properties: properties, propertyMembers: propertyMembers, position: position)
        return record
    }

    /// A document that is one bare geometry: a Point is geocoded (and written as a Feature), any other
    /// type is a bad row. (The framer refuses the other geometry types before a record is made; this
    /// names them all the same.)
    func decodeGeometry(_ b: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> DecodedRecord {
        var scanner = JSONScanner(b, range: span)
        scanner.nestedKeyCheckDepth = 1
        guard var members = try? scanner.objectMembers() else {
            return DecodedRecord(content: .raw(span), error: "invalid JSON in the geometry")
        }
        var record = DecodedRecord(content: .geometry(span, position: nil))
        // The geometry is the record: its own repeated keys are the record's (written once, RecordEncoder).
        if let distinct = members.withoutRepeatedKeys(in: b) {
            members = distinct.members
            record.repeatedKeys = distinct.repeatedKeys
        }
        if scanner.nestedKeyMayRepeat { DistinctJSON.repeatedPaths(in: members, at: "", b, into: &record.repeatedNestedKeys) }
        let position = decodePoint(b, members, into: &record)
        record.content = .geometry(span, position: position)
        return record
    }

    /// The coordinate of a Point geometry's members (each key once: the callers said the repeated ones)
    /// into `record` (or its error); the position's raw numbers when it has at least two.
    private func decodePoint(_ b: UnsafeBufferPointer<UInt8>, _ geometryMembers: [JSONMember],
                             into record: inout DecodedRecord) -> (lon: Range<Int>, lat: Range<Int>)? {
        func member(_ name: [UInt8]) -> JSONMember? {
            geometryMembers.lastMember(named: name, in: b).map { geometryMembers[$0.index] }
        }
        let geometryType = member(GeoJSONBytes.type)
        guard let geometryType, geometryType.kind == .string,
              JSONScanner.decodeString(b, geometryType.value) == GeoJSONBytes.point else {
            let name = geometryType.map { String(decoding: Array(b[$0.value]), as: UTF8.self) } ?? "missing"
            record.error = "the geometry is not a Point (type \(name))"
            return nil
        }
        // Each key once: a third member is a bbox or a foreign member, told apart only then (two
        // comparisons a Point, none made for the common one).
        if geometryMembers.count > 2 { record.geometryExtras = Self.geometryExtras(b, geometryMembers) }
        guard let coordinates = member(GeoJSONBytes.coordinates), coordinates.kind == .array else {
            record.error = "the Point has no \"coordinates\" array"
            return nil
        }
        var positionScanner = JSONScanner(b, range: coordinates.value)
        guard let position = try? positionScanner.arrayElements(), position.count >= 2 else {
            record.error = "the Point's coordinates need at least [longitude, latitude]"
            return nil
        }
        if position.count > 2 { record.geometryExtras.insert(.altitude) }
        func value(_ element: (JSONKind, Range<Int>)) -> CoordinateCheck.Value {
            let raw = UnsafeBufferPointer(rebasing: b[element.1])
            guard element.0 == .number else { return .wrongKind(json: String(decoding: raw, as: UTF8.self)) }
            guard let v = DecimalNumber.parse(raw) else { return .notNumber(text: String(decoding: raw, as: UTF8.self)) }
            return .number(v, text: .bytes(raw))
        }
        let (latIndex, lonIndex) = schema.geojsonLatFirst ? (0, 1) : (1, 0)
        switch CoordinateCheck.coordinate(lat: value(position[latIndex]), latWhere: "coordinates[\(latIndex)]",
                                          lon: value(position[lonIndex]), lonWhere: "coordinates[\(lonIndex)]") {
        case .success(let c): record.coordinate = c
        case .failure(let e): record.error = e.message
        }
        return (lon: position[0].1, lat: position[1].1)
    }

    /// The bbox and foreign members among a Point geometry's members (each key once).
    static func geometryExtras(_ b: UnsafeBufferPointer<UInt8>, _ geometryMembers: [JSONMember]) -> DecodedRecord.GeometryExtras {
        var extras = DecodedRecord.GeometryExtras()
        for member in geometryMembers {
            if member.keyEquals(b, GeoJSONBytes.bbox) {
                extras.insert(.bbox)
            } else if !member.keyEquals(b, GeoJSONBytes.type) && !member.keyEquals(b, GeoJSONBytes.coordinates) {
                extras.insert(.foreignMembers)
            }
        }
        return extras
    }

    /// The members of a record's Point geometry (a feature's `geometry`, or the bare Point), each key
    /// once; none for any other record. Read again only for the rare message that names them.
    static func geometryMembers(_ b: UnsafeBufferPointer<UInt8>, of content: DecodedRecord.Content) -> [JSONMember] {
        let range: Range<Int>
        switch content {
        case .feature(let members, _, _, _):
            guard let (index, _) = members.lastMember(named: GeoJSONBytes.geometry, in: b) else { return [] }
            range = members[index].value
        case .geometry(let span, _):
            range = span
        default:
            return []
        }
        var scanner = JSONScanner(b, range: range)
        guard let members = try? scanner.objectMembers() else { return [] }
        return members.withoutRepeatedKeys(in: b)?.members ?? members
    }

    /// The names of a Point geometry's foreign members (not type, coordinates or bbox), decoded, in order.
    static func foreignMemberNames(_ b: UnsafeBufferPointer<UInt8>, _ geometryMembers: [JSONMember]) -> [[UInt8]] {
        geometryMembers.filter { member in
            ![GeoJSONBytes.type, GeoJSONBytes.coordinates, GeoJSONBytes.bbox].contains { member.keyEquals(b, $0) }
        }.map { JSONScanner.decodeString(b, $0.key) }
    }

    private func typeDescription(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], _ index: Int?) -> String {
        guard let index else { return "missing" }
        let raw = String(decoding: Array(b[members[index].value]), as: UTF8.self)
        return raw.count > 40 ? String(raw.prefix(40)) + "…" : raw
    }
}

/// The member names and type values a GeoJSON record is read by, as bytes made once: they were built
/// from string literals for every record (five or six arrays each), on the workers' path.
private enum GeoJSONBytes {
    static let type = Array("type".utf8)
    static let properties = Array("properties".utf8)
    static let geometry = Array("geometry".utf8)
    static let coordinates = Array("coordinates".utf8)
    static let bbox = Array("bbox".utf8)
    static let feature = Array("Feature".utf8)
    static let point = Array("Point".utf8)
}
