/// A validating JSON (RFC 8259) scanner over raw bytes that reports where values are instead of building
/// a tree.
///
/// Objects are read one level deep (``objectMembers()``), arrays likewise (``arrayElements()``); nested
/// values are validated and skipped. That is all the batch formats need: find a few keys, carry the rest
/// through byte for byte.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int
    /// Deepest nesting accepted; deeper input is rejected rather than risking the stack.
    static let maxDepth = 512
    /// The depth from which the objects this scanner passes over (validated, not collected) have their
    /// keys told apart by ``JSONMember/keyBit(_:_:)``: a record's decoder sets it below the objects whose
    /// keys it checks exactly itself (1: every object inside an NDJSON record's members). Off for every
    /// other scanner.
    var nestedKeyCheckDepth = Int.max
    /// Whether an object checked from ``nestedKeyCheckDepth`` on gives a key twice (or has a key with an
    /// escape, which only decoding tells): then, and only then, the decoder walks the record's nested
    /// values for their paths (``DistinctJSON``). A repeat is rare, so this costs nearly every record a
    /// few instructions per nested key and no second pass over its nested values.
    private(set) var nestedKeyMayRepeat = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil) {
        self.bytes = bytes
        self.position = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? bytes.count
    }

    /// JSON's insignificant white space (RFC 8259 §2): space, tab, LF, CR. The one spelling of it for
    /// code that looks at bytes around JSON text without a scanner (``GeoJSONFramer``,
    /// ``GeoJSONSeqFramer``, ``JSONWriter/appendMinified(_:_:to:)``, ``BatchFormat/sniff(_:)``).
    @inline(__always)
    static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    /// ``isWhitespace(_:)`` without LF: the white space that can pad a record which is one line (an
    /// NDJSON line, a GeoJSON sequence's line). LF ends such a record, so it is never inside one; a
    /// record's line number counts LFs, so skipping one would make it wrong.
    @inline(__always)
    static func isLineWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0D
    }

    mutating func skipWhitespace() {
        while position < end {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    var atEnd: Bool { position >= end }

    func error(_ message: String) -> JSONError { JSONError(message: message, offset: position) }

    /// Validates and skips one value (after leading whitespace), returning its kind and span.
    mutating func value(depth: Int = 0) throws(JSONError) -> (JSONKind, Range<Int>) {
        skipWhitespace()
        guard position < end else { throw error("unexpected end of JSON, expected a value") }
        let start = position
        let kind: JSONKind
        switch bytes[position] {
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { throw error("JSON nested too deeply") }
            _ = try objectMembers(depth: depth, collect: false)
            kind = .object
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw error("JSON nested too deeply") }
            _ = try arrayElements(depth: depth, collect: false)
            kind = .array
        case UInt8(ascii: "\""):
            try string()
            kind = .string
        case UInt8(ascii: "t"): try literal("true"); kind = .bool
        case UInt8(ascii: "f"): try literal("false"); kind = .bool
        case UInt8(ascii: "n"): try literal("null"); kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number()
            kind = .number
        default:
            // A number typeset with U+2212 (`−33.9`, from a document): JSON numbers take only '-', and every
            // JSON reader refuses this one, so it is refused too, but by name.
            if DecimalNumber.isMinusSign(bytes, position, end) {
                throw error("a number starts with the minus sign − (U+2212), where JSON needs '-'")
            }
            throw error("unexpected character \(Self.describe(bytes[position])) where a JSON value should start")
        }
        return (kind, start..<position)
    }

    /// Reads the object at `position` (which must be `{`), returning its members.
    mutating func objectMembers(depth: Int = 0, collect: Bool = true) throws(JSONError) -> [JSONMember] {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: "{") else { throw error("expected a JSON object") }
        let objectStart = position
        position += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return members
        }
        let checksKeys = !collect && depth >= nestedKeyCheckDepth
        var seen: UInt64 = 0
        var earlier = EarlierKeys()
        while true {
            skipWhitespace()
            guard position < end, bytes[position] == UInt8(ascii: "\"") else {
                throw error(position < end ? "expected a quoted key in JSON object" : "unexpected end of JSON inside an object")
            }
            let keyStart = position
            let escaped = try string()
            let key = keyStart..<position
            if checksKeys {
                let bit = JSONMember.keyBit(bytes.baseAddress!, key)
                // Two keys on one bit are compared exactly: a file whose every record has such a pair
                // (a fixed hash has them) must not send every record down the walk, nor read the
                // object again (only one with more keys than ``EarlierKeys`` holds is).
                if escaped || seen & bit != 0
                    && earlier.contains(key, in: bytes) ?? keyRepeatsEarlier(objectStart: objectStart, key: key) {
                    nestedKeyMayRepeat = true
                }
                seen |= bit
                earlier.append(key)
            }
            skipWhitespace()
            guard position < end, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after key in JSON object") }
            position += 1
            let (kind, span) = try value(depth: depth + 1)
            if collect { members.append(JSONMember(key: key, value: span, kind: kind, keyHasEscape: escaped)) }
            skipWhitespace()
            guard position < end else { throw error("unexpected end of JSON inside an object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return members }
            throw error("expected ',' or '}' in JSON object, found \(Self.describe(bytes[position]))")
        }
    }

    /// Whether the plain key at `key` is given earlier in the object that opens at `objectStart`, which
    /// this scanner has read up to `key` already (valid, so the second reading cannot fail): the exact
    /// test behind a bit two keys share. Reads the earlier members again, allocating nothing.
    private func keyRepeatsEarlier(objectStart: Int, key: Range<Int>) -> Bool {
        var scanner = JSONScanner(bytes, range: (objectStart + 1)..<key.lowerBound)
        while true {
            scanner.skipWhitespace()
            guard scanner.position < scanner.end else { return false }
            let start = scanner.position
            guard (try? scanner.string()) != nil else { return false }
            if Self.sameRawText(bytes, start..<scanner.position, key) { return true }
            scanner.skipWhitespace()
            scanner.position += 1   // ':'
            guard (try? scanner.value()) != nil else { return false }
            scanner.skipWhitespace()
            scanner.position += 1   // ','
        }
    }

    /// Whether the spans `a` and `c` of `bytes` hold the same bytes (two raw keys, quotes included).
    @inline(__always)
    static func sameRawText(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ c: Range<Int>) -> Bool {
        a.count == c.count && (0..<a.count).allSatisfy { bytes[a.lowerBound + $0] == bytes[c.lowerBound + $0] }
    }

    /// The first keys of an object being scanned (``nestedKeyCheckDepth``), for the exact test behind a
    /// bit that two keys share without reading the object again: most nested objects have a few keys.
    /// Four spans in place, not an array (which would allocate per object).
    private struct EarlierKeys {
        private var k0 = 0..<0, k1 = 0..<0, k2 = 0..<0, k3 = 0..<0
        private var count = 0

        @inline(__always)
        mutating func append(_ key: Range<Int>) {
            switch count {
            case 0: k0 = key
            case 1: k1 = key
            case 2: k2 = key
            case 3: k3 = key
            default: break
            }
            count += 1
        }

        /// Whether a kept key has `key`'s raw text; nil when none has and the object had keys beyond
        /// the kept ones (then only reading it again tells).
        func contains(_ key: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
            func same(_ other: Range<Int>) -> Bool { JSONScanner.sameRawText(bytes, other, key) }
            if count > 0 && same(k0) || count > 1 && same(k1) || count > 2 && same(k2) || count > 3 && same(k3) { return true }
            return count > 4 ? nil : false
        }
    }

    /// Reads the array at `position` (which must be `[`), returning its elements.
    mutating func arrayElements(depth: Int = 0, collect: Bool = true) throws(JSONError) -> [(JSONKind, Range<Int>)] {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: "[") else { throw error("expected a JSON array") }
        position += 1
        var elements: [(JSONKind, Range<Int>)] = []
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        while true {
            let element = try value(depth: depth + 1)
            if collect { elements.append(element) }
            skipWhitespace()
            guard position < end else { throw error("unexpected end of JSON inside an array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return elements }
            throw error("expected ',' or ']' in JSON array, found \(Self.describe(bytes[position]))")
        }
    }

    /// Skips a string starting at `position` (on its opening quote), validating escapes; returns whether
    /// it holds one (a key's ``JSONMember/keyHasEscape``).
    @discardableResult
    mutating func string() throws(JSONError) -> Bool {
        position += 1
        var escaped = false
        while position < end {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") { position += 1; return escaped }
            if c == UInt8(ascii: "\\") {
                escaped = true
                position += 1
                guard position < end else { break }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard position + 4 < end,
                          (1...4).allSatisfy({ Self.hexValue(bytes[position + $0]) != nil }) else {
                        throw error("bad \\u escape in JSON string")
                    }
                    position += 5
                default:
                    throw error("bad escape \\\(Self.describe(bytes[position])) in JSON string")
                }
                continue
            }
            if c < 0x20 { throw error("control character \(Self.describe(c)) inside JSON string (must be escaped)") }
            position += 1
        }
        throw error("unterminated JSON string")
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= end else { throw error("unexpected end of JSON in '\(word)'") }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] {
            throw error("invalid JSON literal (expected '\(word)')")
        }
        position += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws(JSONError) {
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < end, DecimalNumber.isDigit(bytes[position]) else { throw error("invalid JSON number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < end, DecimalNumber.isDigit(bytes[position]) { position += 1 }
        }
        if position < end, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < end, DecimalNumber.isDigit(bytes[position]) else { throw error("invalid JSON number (digit expected after '.')") }
            while position < end, DecimalNumber.isDigit(bytes[position]) { position += 1 }
        }
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < end, DecimalNumber.isDigit(bytes[position]) else { throw error("invalid JSON number (digit expected in exponent)") }
            while position < end, DecimalNumber.isDigit(bytes[position]) { position += 1 }
        }
    }

    // MARK: - Decoding the few values the pipeline looks at

    /// The UTF-8 bytes a JSON string literal stands for. `raw` includes the quotes. Never reads outside
    /// `raw`, even when the literal was not validated (a cut-off `\u` escape becomes U+FFFD).
    static func decodeString(_ bytes: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.lowerBound + 1
        let end = raw.upperBound - 1
        while i < end {
            let c = bytes[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                // Strings the framers only skipped (GeoJSON member names) are not validated: a \u cut
                // off by the closing quote must not read past it.
                guard i + 4 <= end else {
                    out += [0xEF, 0xBF, 0xBD]
                    i = end
                    continue
                }
                var scalar = hex4(bytes, i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 6 <= end, bytes[i] == UInt8(ascii: "\\"),
                   bytes[i + 1] == UInt8(ascii: "u") {
                    let low = hex4(bytes, i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                // A lone surrogate is not a character; U+FFFD says "something was here".
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
            default: out.append(e)   // \" \\ \/
            }
        }
        return out
    }

    /// Whether the raw key/string `raw` (quotes included) stands for exactly `name`.
    /// ``stringEquals(_:_:_:)`` for a string known to hold no escape: its raw bytes are its value.
    @inline(__always)
    static func plainStringEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>, _ name: [UInt8]) -> Bool {
        let inner = (raw.lowerBound + 1)..<(raw.upperBound - 1)
        guard inner.count == name.count else { return false }
        for (offset, i) in inner.enumerated() where bytes[i] != name[offset] { return false }
        return true
    }

    static func stringEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>, _ name: [UInt8]) -> Bool {
        let inner = (raw.lowerBound + 1)..<(raw.upperBound - 1)
        if inner.count == name.count {
            var same = true
            for (offset, i) in inner.enumerated() where bytes[i] != name[offset] {
                same = false
                break
            }
            if same { return true }
        }
        // Only an escaped key can still be equal ("l\u0061t" is "lat").
        guard inner.contains(where: { bytes[$0] == UInt8(ascii: "\\") }) else { return false }
        return decodeString(bytes, raw) == name
    }

    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 4 | UInt32(hexValue(bytes[i + $1]) ?? 0) }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `'x'` for printable ASCII, `U+001F` otherwise: for error messages.
    static func describe(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x" + (c < 16 ? "0" : "") + String(c, radix: 16, uppercase: true)
    }

    /// Whether `line` is exactly one JSON object (surrounded by whitespace at most), and if so its
    /// `"type"` (a string member's value, else nil): used to tell NDJSON from single-line GeoJSON when
    /// sniffing a format.
    static func sniffObjectLine(_ line: [UInt8]) -> (isObject: Bool, type: String?) {
        line.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            guard let members = try? scanner.objectMembers() else { return (false, nil) }
            scanner.skipWhitespace()
            guard scanner.atEnd else { return (false, nil) }
            let type = members.last { $0.keyEquals(buffer, Array("type".utf8)) && $0.kind == .string }
            return (true, type.map { String(decoding: decodeString(buffer, $0.value), as: UTF8.self) })
        }
    }
}
