import ReverseGeocoder

/// The comma-separated fields of one checksum-verified sentence, decoded on demand.
///
/// Borrowed view: it points into the caller's buffer and must not outlive the parse call. Every
/// decoder returns `nil` for an empty field ("unknown") and throws for a field that is present but
/// cannot mean anything, so a damaged sentence is rejected rather than half-believed.
struct NMEAFields {
    /// The sentence's bytes from the start delimiter up to (not including) `*`.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Start offset of each field (field 0 is the address).
    private var starts: [Int] = []
    /// End offset (exclusive) of each field.
    private var ends: [Int] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        starts.reserveCapacity(24)
        ends.reserveCapacity(24)
        var start = 1  // skip the '$' / '!'
        for i in 1..<bytes.count where bytes[i] == UInt8(ascii: ",") {
            starts.append(start)
            ends.append(i)
            start = i + 1
        }
        starts.append(start)
        ends.append(bytes.count)
    }

    /// Number of fields including the address.
    var count: Int { starts.count }

    /// The address field (`GPGGA`), for error messages.
    var address: String { string(0) }

    func string(_ index: Int) -> String {
        guard index < count else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[starts[index]..<ends[index]]), as: UTF8.self)
    }

    func length(_ index: Int) -> Int { index < count ? ends[index] - starts[index] : 0 }

    func isEmpty(_ index: Int) -> Bool { length(index) == 0 }

    /// The error for a malformed field `index`.
    func invalid(_ index: Int) -> NMEAParseError { .invalidField(sentence: address, index: index) }

    /// Throws unless the sentence has at least `required` fields (address included).
    func require(_ required: Int) throws(NMEAParseError) {
        if count < required { throw .tooFewFields(sentence: address, count: count, required: required) }
    }

    /// A one-letter field (status, hemisphere, unit, mode); `nil` when empty.
    func letter(_ index: Int) throws(NMEAParseError) -> UInt8? {
        switch length(index) {
        case 0: return nil
        case 1: return bytes[starts[index]]
        default: throw invalid(index)
        }
    }

    /// An unsigned decimal integer of up to 9 digits.
    func integer(_ index: Int) throws(NMEAParseError) -> Int? {
        let n = length(index)
        if n == 0 { return nil }
        if n > 9 { throw invalid(index) }
        var value = 0
        for i in starts[index]..<ends[index] {
            let digit = Int(bytes[i]) &- 48
            guard digit >= 0 && digit <= 9 else { throw invalid(index) }
            value = value * 10 + digit
        }
        return value
    }

    /// A decimal number: optional `-`, digits, optional `.` and digits; at most 18 digits in all.
    ///
    /// The digits are gathered into an integer and divided once by a power of ten, both exact in a
    /// `Double`, so the result is the correctly rounded value of what the receiver wrote.
    func decimal(_ index: Int) throws(NMEAParseError) -> Double? {
        if isEmpty(index) { return nil }
        var i = starts[index]
        let end = ends[index]
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: ".") {
                if seenPoint { throw invalid(index) }
                seenPoint = true
            } else {
                let digit = UInt64(byte) &- 48
                guard digit <= 9 else { throw invalid(index) }
                digits += 1
                if digits > 18 { throw invalid(index) }
                mantissa = mantissa * 10 + digit
                if seenPoint { fractionDigits += 1 }
            }
            i += 1
        }
        if digits == 0 { throw invalid(index) }
        let value = Double(mantissa) / NMEAFields.powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// A decimal that is unknown when empty *or zero*: for quantities a receiver zero-fills before it
    /// has a fix but that are never really zero (dilutions of precision, error estimates).
    func positiveDecimal(_ index: Int) throws(NMEAParseError) -> Double? {
        guard let value = try decimal(index) else { return nil }
        return value > 0 ? value : nil
    }

    /// A time of day `hhmmss` with an optional fraction of up to 9 digits.
    func time(_ index: Int) throws(NMEAParseError) -> NMEATimeOfDay? {
        let n = length(index)
        if n == 0 { return nil }
        let s = starts[index]
        guard n >= 6, n <= 16 else { throw invalid(index) }
        let hour = try twoDigits(s, index), minute = try twoDigits(s + 2, index), second = try twoDigits(s + 4, index)
        var nanosecond = 0
        if n > 6 {
            guard bytes[s + 6] == UInt8(ascii: ".") else { throw invalid(index) }
            var scale = 100_000_000
            for i in (s + 7)..<ends[index] {
                let digit = Int(bytes[i]) &- 48
                guard digit >= 0 && digit <= 9 else { throw invalid(index) }
                nanosecond += digit * scale
                scale /= 10
            }
        }
        guard let time = NMEATimeOfDay(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        else { throw invalid(index) }
        return time
    }

    /// An RMC date `ddmmyy`; all zeros (a receiver that has no date yet) is unknown.
    func dateDDMMYY(_ index: Int) throws(NMEAParseError) -> NMEADate? {
        let n = length(index)
        if n == 0 { return nil }
        guard n == 6 else { throw invalid(index) }
        let s = starts[index]
        let day = try twoDigits(s, index), month = try twoDigits(s + 2, index), year = try twoDigits(s + 4, index)
        if day == 0 && month == 0 && year == 0 { return nil }
        guard let date = NMEADate(year: NMEADate.expandTwoDigitYear(year), month: month, day: day)
        else { throw invalid(index) }
        return date
    }

    /// The two-digit number at byte offset `offset` of field `index`.
    private func twoDigits(_ offset: Int, _ index: Int) throws(NMEAParseError) -> Int {
        let high = Int(bytes[offset]) &- 48, low = Int(bytes[offset + 1]) &- 48
        guard high >= 0 && high <= 9 && low >= 0 && low <= 9 else { throw invalid(index) }
        return high * 10 + low
    }

    /// A latitude/longitude pair in fields `index`…`index + 3` (`ddmm.mmmm,N,dddmm.mmmm,E`).
    ///
    /// Unknown (`nil`) when any of the four is empty, or when both values are zero: receivers zero-fill
    /// the position before their first fix, and 0°N 0°E is in the Gulf of Guinea, not where they are.
    func coordinate(_ index: Int) throws(NMEAParseError) -> Coordinate? {
        guard let latitude = try angle(index, maximumDegrees: 90, positive: UInt8(ascii: "N"),
                                       negative: UInt8(ascii: "S")),
              let longitude = try angle(index + 2, maximumDegrees: 180, positive: UInt8(ascii: "E"),
                                        negative: UInt8(ascii: "W"))
        else { return nil }
        if latitude == 0 && longitude == 0 { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// One NMEA angle `[d]ddmm[.mmmm]` and its hemisphere letter in the next field.
    private func angle(_ index: Int, maximumDegrees: Int, positive: UInt8, negative: UInt8)
        throws(NMEAParseError) -> Double? {
        let hemisphere = try letter(index + 1)
        if isEmpty(index) {
            return nil
        }
        var sign = 1.0
        switch hemisphere {
        case nil: return nil
        case positive?: sign = 1
        case negative?: sign = -1
        default: throw invalid(index + 1)
        }
        let s = starts[index], end = ends[index]
        var whole = 0  // degrees * 100 + whole minutes
        var wholeDigits = 0
        var i = s
        while i < end, bytes[i] != UInt8(ascii: ".") {
            let digit = Int(bytes[i]) &- 48
            guard digit >= 0 && digit <= 9, wholeDigits < 5 else { throw invalid(index) }
            whole = whole * 10 + digit
            wholeDigits += 1
            i += 1
        }
        // Fraction of a minute: up to 11 digits kept. Beyond that a digit is worth under 2e-13
        // degrees (a fraction of a micrometre), and keeping 11 keeps the sums below exact in a Double.
        var fraction: Int64 = 0
        var fractionDigits = 0
        if i < end {
            i += 1  // the '.'
            while i < end {
                let digit = Int64(bytes[i]) &- 48
                guard digit >= 0 && digit <= 9 else { throw invalid(index) }
                if fractionDigits < 11 {
                    fraction = fraction * 10 + digit
                    fractionDigits += 1
                }
                i += 1
            }
        }
        if whole == 0 && fraction == 0 { return 0 }
        guard wholeDigits >= 3 else { throw invalid(index) }
        let degrees = whole / 100, minutes = whole % 100
        guard minutes < 60, degrees <= maximumDegrees else { throw invalid(index) }
        // degrees + minutes/60 as one division of two exact integers: correctly rounded.
        let scale = NMEAFields.integerPowersOfTen[fractionDigits]
        let numerator = (Int64(degrees) * 60 + Int64(minutes)) * scale + fraction
        let value = Double(numerator) / Double(60 * scale)
        guard value <= Double(maximumDegrees) else { throw invalid(index) }
        return sign * value
    }

    static let powersOfTen: [Double] = (0...18).map { pow10($0) }
    static let integerPowersOfTen: [Int64] = (0...11).map { n in (0..<n).reduce(Int64(1)) { acc, _ in acc * 10 } }

    private static func pow10(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }  // exact: every power of ten up to 1e22 is a Double
        return value
    }
}
