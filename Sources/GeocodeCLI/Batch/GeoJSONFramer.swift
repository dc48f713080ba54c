/// Frames a GeoJSON FeatureCollection as a stream: the features are the records, read one by one without
/// ever holding the whole document, so a multi-gigabyte collection runs in the same memory as a small one.
///
/// The framer only tracks nesting and strings to find where each feature ends; workers validate each
/// feature fully. Everything around the features array (the collection's other members, such as `name`,
/// `crs` or `bbox`) is kept as raw text: ``prefix`` (up to and including `"features": [`) and ``trailer``
/// (from the closing `]` to the end), so a GeoJSON → GeoJSON run preserves them.
///
/// A document that is one `Feature`, or one bare `Point` geometry, is one record: the whole object
/// (``topLevel`` says which). Any other bare geometry is refused by name: it is no point to geocode.
///
/// A malformed collection (not an object, no `features` array, text after the end) is a fatal error,
/// since no row can be trusted then; a malformed feature inside the array is just a bad row.
final class GeoJSONFramer: RecordFramer {
    /// What the document is: a FeatureCollection (a record per feature), or a single record.
    enum TopLevel: Sendable {
        case collection
        case feature
        case point
    }

    let input: ByteInput
    private(set) var line = 1
    private var previousWasCR = false
    private var expectComma = false
    private var done = false
    /// The collection's raw text before the first feature (empty for a single object).
    private(set) var prefix: [UInt8] = []
    private(set) var trailer: [UInt8] = []
    private(set) var topLevel = TopLevel.collection
    /// The collection's members besides `type` and `features` (its `bbox`, foreign members such as
    /// `name` or `crs`), before and after the features, in order: GeoJSON output keeps them (in
    /// ``prefix`` and ``trailer``); the other outputs have no place for them and say so. Complete once
    /// ``nextChunk`` returned nil.
    private(set) var collectionMembers: [CollectionMember] = []
    /// How many of ``collectionMembers`` come before `"features"`: known once ``readPrefix()`` returned,
    /// so they are said before the rows.
    private(set) var membersBeforeFeatures = 0

    /// A member of the FeatureCollection other than `type` and `features`, and the line its name is on.
    struct CollectionMember: Sendable, Equatable {
        var name: String
        var line: Int
    }
    /// A single object's one record, framed by ``readPrefix()`` and handed out by the first ``nextChunk``.
    private var single: RawChunk?

    /// RFC 7946's geometry types other than Point: a document that is one of them has no point to geocode.
    private static let otherGeometries = ["MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon",
                                          "GeometryCollection"]

    init(input: ByteInput) {
        self.input = input
    }

    private func fail(_ message: String) -> CLIError {
        .badInput("\(input.name):\(line): GeoJSON: \(message)")
    }

    /// Whether the top-level `"type"` read last said FeatureCollection.
    private var saysCollection = false

    /// Reads the collection up to and including the `[` of `"features"`. Call once, before ``nextChunk``.
    /// For a single Feature or Point, reads the whole object (the one record) and returns an empty prefix.
    ///
    /// When it throws (the text cut short or malformed there, a failed read), ``collectionMembers`` and
    /// ``membersBeforeFeatures`` are the collection's members named before the failure, so the caller can
    /// still say them: none unless the object said it is a FeatureCollection (a Feature's own members are
    /// no collection's).
    func readPrefix() throws(CLIError) -> [UInt8] {
        do throws(CLIError) {
            return try readOpening()
        } catch {
            if !saysCollection { collectionMembers = [] }
            membersBeforeFeatures = collectionMembers.count
            throw error
        }
    }

    private func readOpening() throws(CLIError) -> [UInt8] {
        try skipWhitespace()
        let opening = try peek()
        if opening == BatchFormat.recordSeparatorByte {
            // Only when --format geojson said so: otherwise an RS start is read as the sequence it is.
            throw fail("the input starts with an RS (0x1E): a GeoJSON text sequence (RFC 8142), one Feature a record; "
                       + "read it with --format geojsonseq")
        }
        guard opening == UInt8(ascii: "{") else {
            throw fail("expected a FeatureCollection, a Feature or a Point object at the top level")
        }
        let objectStart = input.cursor - input.mark, objectLine = line
        advance()
        var first = true
        var single: TopLevel?
        var type: String?
        while true {
            try skipWhitespace()
            if !first {
                guard let c = try peek() else { throw fail("unexpected end of input in the top-level object") }
                if c == UInt8(ascii: "}") {
                    advance()
                    break
                }
                guard c == UInt8(ascii: ",") else { throw fail("expected ',' between members of the top-level object") }
                advance()
                try skipWhitespace()
            } else if try peek() == UInt8(ascii: "}") {
                advance()
                break
            }
            first = false
            let keyLine = line
            let key = try memberName()
            noteCollectionMember(key, line: keyLine)
            if key == Array("features".utf8) && single == nil {
                guard try peek() == UInt8(ascii: "[") else { throw fail("\"features\" is not an array") }
                advance()
                prefix = input.take(upTo: input.cursor)
                membersBeforeFeatures = collectionMembers.count
                return prefix
            }
            if key == Array("type".utf8) {
                let (name, kind) = try topLevelType()
                // Readers disagree on a repeated member (most keep the last): two types are refused.
                if let type, type != name {
                    throw fail("the top-level object gives \"type\" twice: \(CoordinateCheck.quoted(type)), then \(CoordinateCheck.quoted(name))")
                }
                type = name
                single = kind
                saysCollection = kind == nil
            } else {
                try skipValue()
            }
        }
        // The object ended without a "features" array: one Feature or Point, or nothing to read.
        guard let single else {
            throw fail(type != nil ? "the FeatureCollection has no \"features\" array"
                                : "the top-level object has no \"type\": expected a FeatureCollection, a Feature or a Point")
        }
        let objectEnd = input.cursor - input.mark
        // Those were the one record's own members (the feature's are said per record).
        collectionMembers = []
        try skipWhitespace()
        if try peek() != nil {
            throw fail("unexpected data after the end of the \(single == .feature ? "Feature" : "Point") (a GeoJSON document "
                       + "is one object: put several in a FeatureCollection, or read one a line with --format geojsonseq)")
        }
        let bytes = input.take(upTo: input.cursor)
        topLevel = single
        self.single = RawChunk(sequence: 0, bytes: bytes, records: [RecordSpan(range: objectStart..<objectEnd, line: objectLine)],
                               inputOffset: input.offset)
        return []
    }

    /// Reads the top-level `"type"` value: its name, and nil for a FeatureCollection, the single record's
    /// kind for a Feature or a Point; any other type is an error that names it.
    private func topLevelType() throws(CLIError) -> (String, TopLevel?) {
        let start = input.cursor - input.mark
        try skipValue()
        let raw = Array(input.buffer[(input.mark + start)..<input.cursor])
        guard raw.first == UInt8(ascii: "\""), raw.count >= 2 else { throw fail("top-level \"type\" is not a string") }
        let name = String(decoding: raw.withUnsafeBufferPointer { JSONScanner.decodeString($0, 0..<raw.count) }, as: UTF8.self)
        switch name {
        case "FeatureCollection": return (name, nil)
        case "Feature": return (name, .feature)
        case "Point": return (name, .point)
        case let other where Self.otherGeometries.contains(other):
            throw fail("the document is a \(other) geometry, which has no point to geocode; batch reads a Point, a Feature "
                       + "with a Point geometry, or a FeatureCollection of them")
        default:
            throw fail("top-level \"type\" is \(CoordinateCheck.quoted(name)), expected \"FeatureCollection\", \"Feature\" or \"Point\"")
        }
    }

    /// The error a call threw, which every later call throws again (``RecordFramer``).
    private var failure = FramingFailure()

    func nextChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        try failure.check()
        do throws(CLIError) { return try frameChunk(targetBytes: targetBytes, maxRecords: maxRecords) } catch { throw failure.keep(error) }
    }

    private func frameChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        if let chunk = single {
            single = nil
            done = true
            return chunk
        }
        if done { return nil }
        var records: [RecordSpan] = []
        do throws(CLIError) {
            while true {
                try skipWhitespace()
                guard let c = try peek() else { throw fail("unexpected end of input inside the \"features\" array") }
                if expectComma {
                    if c == UInt8(ascii: ",") {
                        advance()
                        expectComma = false
                        continue
                    }
                    guard c == UInt8(ascii: "]") else { throw fail("expected ',' or ']' after a feature") }
                }
                if c == UInt8(ascii: "]") {
                    // End of the features (a trailing comma before ']' is forgiven). Cut the chunk here, then
                    // read the rest of the document as the trailer.
                    let chunk = records.isEmpty ? nil : makeChunk(records)
                    if chunk == nil { input.discard() }
                    do throws(CLIError) {
                        try readTrailer()
                    } catch {
                        // The features are whole: they go out, and the trailer's error with the next call.
                        guard let chunk else { throw error }
                        failure.keep(error)
                        return chunk
                    }
                    done = true
                    return chunk
                }
                let start = input.cursor - input.mark
                let startLine = line
                try skipValue()
                records.append(RecordSpan(range: start..<(input.cursor - input.mark), line: startLine))
                expectComma = true
                if records.count >= maxRecords || input.cursor - input.mark >= targetBytes {
                    return makeChunk(records)
                }
            }
        } catch {
            // The features framed before the error are whole records: they go out as a chunk and the error
            // comes with the next call (``nextChunk``), as when the chunk was cut just before it. Thrown
            // now, they were lost, from a pipe but not from a file (read ahead a record a chunk).
            guard !records.isEmpty else { throw error }
            failure.keep(error)
            return makeChunk(records)
        }
    }

    private func makeChunk(_ records: [RecordSpan]) -> RawChunk {
        let bytes = input.take(upTo: input.cursor)
        return RawChunk(sequence: 0, bytes: bytes, records: records, inputOffset: input.offset)
    }

    /// From the `]` closing the features to the end of input: the collection's remaining members, its
    /// closing brace, and nothing but whitespace after it.
    private func readTrailer() throws(CLIError) {
        advance()   // ]
        while true {
            try skipWhitespace()
            guard let c = try peek() else { throw fail("unexpected end of input in the FeatureCollection") }
            if c == UInt8(ascii: "}") {
                advance()
                break
            }
            guard c == UInt8(ascii: ",") else { throw fail("expected ',' or '}' after the \"features\" array") }
            advance()
            try skipWhitespace()
            let keyLine = line
            let key = try memberName()
            noteCollectionMember(key, line: keyLine)
            // A second "features" would pass through unread, and most JSON readers keep the last of a
            // repeated member: they would see its features, not the geocoded ones.
            if key == Array("features".utf8) { throw fail("the FeatureCollection has a second \"features\" member") }
            try memberValue(key: key)
        }
        try skipWhitespace()
        if try peek() != nil { throw fail("unexpected data after the end of the FeatureCollection") }
        trailer = input.take(upTo: input.cursor)
    }

    /// Keeps `key` in ``collectionMembers`` unless it is `type` or `features`.
    private func noteCollectionMember(_ key: [UInt8], line: Int) {
        guard key != Array("type".utf8) && key != Array("features".utf8) else { return }
        collectionMembers.append(CollectionMember(name: String(decoding: key, as: UTF8.self), line: line))
    }

    /// Reads `"name" :` and returns the decoded name.
    private func memberName() throws(CLIError) -> [UInt8] {
        guard try peek() == UInt8(ascii: "\"") else { throw fail("expected a quoted member name in the FeatureCollection") }
        let start = input.cursor - input.mark
        try skipString()
        let raw = Array(input.buffer[(input.mark + start)..<input.cursor])
        try skipWhitespace()
        guard try peek() == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
        advance()
        try skipWhitespace()
        return raw.withUnsafeBufferPointer { JSONScanner.decodeString($0, 0..<raw.count) }
    }

    /// Skips a member's value; checks `type` is "FeatureCollection".
    private func memberValue(key: [UInt8]) throws(CLIError) {
        let start = input.cursor - input.mark
        try skipValue()
        guard key == Array("type".utf8) else { return }
        let raw = Array(input.buffer[(input.mark + start)..<input.cursor])
        guard raw.first == UInt8(ascii: "\""), raw.count >= 2 else { throw fail("top-level \"type\" is not a string") }
        let name = raw.withUnsafeBufferPointer { JSONScanner.decodeString($0, 0..<raw.count) }
        guard name == Array("FeatureCollection".utf8) else {
            throw fail("top-level \"type\" is \"\(String(decoding: name, as: UTF8.self))\", expected \"FeatureCollection\"")
        }
    }

    // MARK: - Byte-level streaming

    private func peek() throws(CLIError) -> UInt8? {
        if input.cursor >= input.count, try !input.fill() { return nil }
        return input[input.cursor]
    }

    /// Moves past the byte at the cursor, counting physical lines (LF, CRLF, lone CR).
    @inline(__always) private func advance() {
        let c = input[input.cursor]
        if c == 0x0A {
            if !previousWasCR { line += 1 }
            previousWasCR = false
        } else if c == 0x0D {
            line += 1
            previousWasCR = true
        } else {
            previousWasCR = false
        }
        input.cursor += 1
    }

    private func skipWhitespace() throws(CLIError) {
        while let c = try peek(), JSONScanner.isWhitespace(c) { advance() }
    }

    /// Skips a string whose opening quote is at the cursor.
    private func skipString() throws(CLIError) {
        advance()
        while let c = try peek() {
            advance()
            if c == UInt8(ascii: "\\") {
                guard try peek() != nil else { break }
                advance()
            } else if c == UInt8(ascii: "\"") {
                return
            }
        }
        throw fail("unterminated string")
    }

    /// Skips an object or array starting at the cursor: a tight loop over the buffer (this is where a
    /// GeoJSON run spends its reader time), resumable across refills.
    private func skipContainer() throws(CLIError) {
        var depth = 0, inString = false, escaped = false
        var line = self.line, previousWasCR = self.previousWasCR
        defer {
            self.line = line
            self.previousWasCR = previousWasCR
        }
        while true {
            if input.cursor >= input.count, try !input.fill() {
                throw fail("unexpected end of input inside a value")
            }
            var i = input.cursor
            let n = input.count
            var closed = false
            input.withBytes { b in
                while i < n {
                    let c = b[i]
                    i += 1
                    if c == 0x0A {
                        if !previousWasCR { line += 1 }
                        previousWasCR = false
                    } else if c == 0x0D {
                        line += 1
                        previousWasCR = true
                    } else {
                        previousWasCR = false
                    }
                    if inString {
                        if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                        continue
                    }
                    switch c {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            closed = true
                            return
                        }
                    default: break
                    }
                }
            }
            input.cursor = i
            if closed { return }
        }
    }

    /// Skips one value by tracking brackets and strings only (the worker validates it properly later).
    private func skipValue() throws(CLIError) {
        guard let first = try peek() else { throw fail("unexpected end of input, expected a value") }
        switch first {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try skipContainer()
        default:
            var length = 0
            while let c = try peek() {
                switch c {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09:
                    if length == 0 { throw fail("expected a value, found \(JSONScanner.describe(c))") }
                    return
                default:
                    advance()
                    length += 1
                }
            }
        }
    }
}
