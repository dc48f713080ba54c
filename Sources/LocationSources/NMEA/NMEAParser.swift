/// Decodes single NMEA 0183 sentences. Pure: bytes in, a sentence or a typed error out, no I/O, no
/// state between calls, so one parser can be shared freely.
///
/// What it checks, in order: start delimiter (`$`, or `!` for AIS), length (``Options/maximumLength``),
/// printable ASCII only, the `*hh` checksum (required unless ``Options/acceptsMissingChecksum``),
/// the address, then the fields of the sentence types it knows (GGA, RMC, GLL, GNS, GSA, VTG, ZDA,
/// GST from any talker). Other well-formed sentences come back as ``NMEASentence/other(address:)``.
///
/// ```swift
/// let parser = NMEAParser()
/// let sentence = try parser.parse("$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D")
/// sentence.fixCoordinate  // (-37.784788333…, 175.314896666…)
/// ```
public struct NMEAParser: Sendable {
    /// How tolerant to be.
    public var options: Options

    public init(options: Options = .strict) {
        self.options = options
    }

    /// Parses one sentence. A trailing CR/LF is allowed; nothing may precede the `$`.
    public func parse(_ line: String) throws(NMEAParseError) -> NMEASentence {
        var line = line
        let result: Result<NMEASentence, NMEAParseError> = line.withUTF8 { buffer in
            Result { () throws(NMEAParseError) -> NMEASentence in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one sentence from raw bytes (as read from a device or file).
    public func parse<C: Collection>(_ bytes: C) throws(NMEAParseError) -> NMEASentence where C.Element == UInt8 {
        let direct: Result<NMEASentence, NMEAParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(NMEAParseError) -> NMEASentence in try parse(buffer) }
        }
        if let direct { return try direct.get() }
        let copy = Array(bytes)
        let result: Result<NMEASentence, NMEAParseError> = copy.withUnsafeBufferPointer { buffer in
            Result { () throws(NMEAParseError) -> NMEASentence in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one sentence from a buffer: the core every other overload ends in.
    public func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(NMEAParseError) -> NMEASentence {
        var end = buffer.count
        while end > 0, buffer[end - 1] == 0x0D || buffer[end - 1] == 0x0A { end -= 1 }
        if end == 0 { throw .empty }
        let start = buffer[0]
        guard start == UInt8(ascii: "$") || start == UInt8(ascii: "!") else { throw .missingStartDelimiter }
        if end > options.maximumLength { throw .tooLong(length: end, limit: options.maximumLength) }

        // One pass: check every byte is allowed, XOR the checksum, find the '*'.
        var sum: UInt8 = 0
        var star = -1
        var i = 1
        while i < end {
            let byte = buffer[i]
            if byte == UInt8(ascii: "*") {
                star = i
                break
            }
            // Printable ASCII except the delimiters NMEA reserves for starting sentences.
            guard byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "$"), byte != UInt8(ascii: "!") else {
                throw .invalidCharacter(byte, offset: i)
            }
            sum ^= byte
            i += 1
        }
        let bodyEnd: Int
        if star >= 0 {
            guard end - star == 3,
                  let high = hexValue(buffer[star + 1]), let low = hexValue(buffer[star + 2])
            else { throw .malformedChecksum }
            let expected = high << 4 | low
            if expected != sum { throw .checksumMismatch(expected: expected, computed: sum) }
            bodyEnd = star
        } else {
            if !options.acceptsMissingChecksum { throw .missingChecksum }
            bodyEnd = end
        }
        return try decode(UnsafeBufferPointer(rebasing: buffer[0..<bodyEnd]), encapsulated: start != UInt8(ascii: "$"))
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f") where options.acceptsLowercaseChecksum:
            return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Decodes a verified body (delimiter included, checksum excluded).
    private func decode(_ body: UnsafeBufferPointer<UInt8>, encapsulated: Bool) throws(NMEAParseError) -> NMEASentence {
        // Address: 2–15 uppercase letters or digits up to the first comma.
        var addressEnd = 1
        while addressEnd < body.count, body[addressEnd] != UInt8(ascii: ",") {
            let byte = body[addressEnd]
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isUpper || isDigit else { throw .malformedAddress }
            addressEnd += 1
        }
        let addressLength = addressEnd - 1
        guard (2...15).contains(addressLength) else { throw .malformedAddress }

        // AIS and other encapsulated sentences, proprietary `$P…` sentences and non-standard long
        // addresses are well-formed but not ours: reported so the stream can skip them.
        let isStandard = !encapsulated && addressLength == 5 && body[1] != UInt8(ascii: "P")
            && isLetter(body[1]) && isLetter(body[2])
        guard isStandard else { return .other(address: address(body, addressEnd)) }

        let type = (UInt32(body[3]) << 16) | (UInt32(body[4]) << 8) | UInt32(body[5])
        func code(_ s: StaticString) -> UInt32 {
            let p = s.utf8Start
            return (UInt32(p[0]) << 16) | (UInt32(p[1]) << 8) | UInt32(p[2])
        }
        let talker = NMEATalker(String(decoding: UnsafeBufferPointer(rebasing: body[1..<3]), as: UTF8.self))
        switch type {
        case code("GGA"): return .gga(try NMEASentence.GGA(NMEAFields(body), talker: talker))
        case code("RMC"): return .rmc(try NMEASentence.RMC(NMEAFields(body), talker: talker))
        case code("GLL"): return .gll(try NMEASentence.GLL(NMEAFields(body), talker: talker))
        case code("GNS"): return .gns(try NMEASentence.GNS(NMEAFields(body), talker: talker))
        case code("GSA"): return .gsa(try NMEASentence.GSA(NMEAFields(body), talker: talker))
        case code("VTG"): return .vtg(try NMEASentence.VTG(NMEAFields(body), talker: talker))
        case code("ZDA"): return .zda(try NMEASentence.ZDA(NMEAFields(body), talker: talker))
        case code("GST"): return .gst(try NMEASentence.GST(NMEAFields(body), talker: talker))
        default: return .other(address: address(body, addressEnd))
        }
    }

    private func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

    private func address(_ body: UnsafeBufferPointer<UInt8>, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: body[1..<end]), as: UTF8.self)
    }
}
