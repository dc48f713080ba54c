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
        return try line.withUTF8 { parseResult($0) }.get()
    }

    /// Parses one sentence from raw bytes (as read from a device or file).
    public func parse<C: Collection>(_ bytes: C) throws(NMEAParseError) -> NMEASentence where C.Element == UInt8 {
        if let direct = bytes.withContiguousStorageIfAvailable({ parseResult($0) }) { return try direct.get() }
        return try Array(bytes).withUnsafeBufferPointer { parseResult($0) }.get()
    }

    /// Parses one sentence from a buffer.
    public func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(NMEAParseError) -> NMEASentence {
        try parseResult(buffer).get()
    }

    /// The same parse with the error as a value: nothing on the way throws. For hot loops (the
    /// stream reader, fuzzing), and because test runners that capture a backtrace on every throw
    /// make a throw cost microseconds.
    public func parseResult(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<NMEASentence, NMEAParseError> {
        var end = buffer.count
        while end > 0, buffer[end - 1] == 0x0D || buffer[end - 1] == 0x0A { end -= 1 }
        if end == 0 { return .failure(.empty) }
        let start = buffer[0]
        guard start == 0x24 || start == 0x21 else { return .failure(.missingStartDelimiter) }  // '$' '!'
        if end > options.maximumLength { return .failure(.tooLong(length: end, limit: options.maximumLength)) }

        // One pass: check every byte is allowed, XOR the checksum, find the '*'.
        var sum: UInt8 = 0
        var star = -1
        var i = 1
        while i < end {
            let byte = buffer[i]
            if byte == 0x2A {  // '*'
                star = i
                break
            }
            // Printable ASCII except the delimiters NMEA reserves for starting sentences ('$', '!').
            guard byte >= 0x20, byte <= 0x7E, byte != 0x24, byte != 0x21 else {
                return .failure(.invalidCharacter(byte, offset: i))
            }
            sum ^= byte
            i += 1
        }
        let bodyEnd: Int
        if star >= 0 {
            guard end - star == 3, let high = hexValue(buffer[star + 1]), let low = hexValue(buffer[star + 2])
            else { return .failure(.malformedChecksum) }
            let expected = high << 4 | low
            if expected != sum { return .failure(.checksumMismatch(expected: expected, computed: sum)) }
            bodyEnd = star
        } else {
            if !options.acceptsMissingChecksum { return .failure(.missingChecksum) }
            bodyEnd = end
        }
        return decode(UnsafeBufferPointer(rebasing: buffer[0..<bodyEnd]), encapsulated: start != 0x24)
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30                                        // 0-9
        case 0x41...0x46: return byte - 0x41 + 10                                   // A-F
        case 0x61...0x66 where options.acceptsLowercaseChecksum: return byte - 0x61 + 10  // a-f
        default: return nil
        }
    }

    /// Decodes a verified body (delimiter included, checksum excluded).
    private func decode(_ body: UnsafeBufferPointer<UInt8>, encapsulated: Bool) -> Result<NMEASentence, NMEAParseError> {
        // Address: 2–15 uppercase letters or digits up to the first comma.
        var addressEnd = 1
        while addressEnd < body.count, body[addressEnd] != 0x2C {
            let byte = body[addressEnd]
            guard (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) else {
                return .failure(.malformedAddress)
            }
            addressEnd += 1
        }
        let addressLength = addressEnd - 1
        guard addressLength >= 2 && addressLength <= 15 else { return .failure(.malformedAddress) }

        // AIS and other encapsulated sentences, proprietary `$P…` sentences and non-standard long
        // addresses are well-formed but not ours: reported so the stream can skip them.
        let isStandard = !encapsulated && addressLength == 5 && body[1] != 0x50  // 'P'
            && isLetter(body[1]) && isLetter(body[2])
        guard isStandard else { return .success(.other(address: address(body, addressEnd))) }

        let kind = SentenceKind(body[3], body[4], body[5])
        guard kind != .unknown else { return .success(.other(address: address(body, addressEnd))) }
        // Scratch space for the field offsets, on the stack: no allocation per sentence.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: body.count + 1) { scratch in
            var fields = NMEAFields(body, scratch: scratch)
            if fields.count < kind.requiredFields {
                return .failure(.tooFewFields(sentence: fields.address, count: fields.count, required: kind.requiredFields))
            }
            let talker = NMEATalker(body[1], body[2])
            let sentence: NMEASentence
            switch kind {
            case .gga: sentence = .gga(NMEASentence.GGA(&fields, talker: talker))
            case .rmc: sentence = .rmc(NMEASentence.RMC(&fields, talker: talker))
            case .gll: sentence = .gll(NMEASentence.GLL(&fields, talker: talker))
            case .gns: sentence = .gns(NMEASentence.GNS(&fields, talker: talker))
            case .gsa: sentence = .gsa(NMEASentence.GSA(&fields, talker: talker))
            case .vtg: sentence = .vtg(NMEASentence.VTG(&fields, talker: talker))
            case .zda: sentence = .zda(NMEASentence.ZDA(&fields, talker: talker))
            case .gst: sentence = .gst(NMEASentence.GST(&fields, talker: talker))
            case .unknown: sentence = .other(address: fields.address)
            }
            if let failure = fields.failure { return .failure(failure) }
            return .success(sentence)
        }
    }

    /// The sentence types decoded here, and how many fields (address included) each must have: its
    /// oldest complete form, so a line cut short is refused rather than half-read.
    private enum SentenceKind {
        case gga, rmc, gll, gns, gsa, vtg, zda, gst, unknown

        init(_ a: UInt8, _ b: UInt8, _ c: UInt8) {
            switch (a, b, c) {
            case (0x47, 0x47, 0x41): self = .gga  // GGA
            case (0x52, 0x4D, 0x43): self = .rmc  // RMC
            case (0x47, 0x4C, 0x4C): self = .gll  // GLL
            case (0x47, 0x4E, 0x53): self = .gns  // GNS
            case (0x47, 0x53, 0x41): self = .gsa  // GSA
            case (0x56, 0x54, 0x47): self = .vtg  // VTG
            case (0x5A, 0x44, 0x41): self = .zda  // ZDA
            case (0x47, 0x53, 0x54): self = .gst  // GST
            default: self = .unknown
            }
        }

        var requiredFields: Int {
            switch self {
            case .gga: return 15  // through the DGPS station ID
            case .rmc: return 12  // NMEA 2.0: through magnetic variation E/W (mode is 2.3+)
            case .gll: return 7   // NMEA 2.0: through status (without it validity is unknowable)
            case .gns: return 13
            case .gsa: return 18
            case .vtg: return 9   // through the km/h unit (mode is 2.3+)
            case .zda: return 7
            case .gst: return 9
            case .unknown: return 1
            }
        }
    }

    private func isLetter(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    private func address(_ body: UnsafeBufferPointer<UInt8>, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: body[1..<end]), as: UTF8.self)
    }
}
