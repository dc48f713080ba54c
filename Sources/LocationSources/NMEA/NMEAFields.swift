import GeoModel

/// The comma-separated fields of one checksum-verified sentence, decoded on demand.
///
/// A borrowed view into the caller's buffer (and a scratch buffer of separator offsets), valid only
/// during the parse call. Every decoder returns `nil` for an empty field ("unknown"); a field that is
/// present but cannot mean anything also gives `nil` and is remembered in ``failure``, so a sentence
/// decodes straight through and the parser rejects it once at the end. Nothing here throws: parsing
/// is a hot loop (a fuzz test runs it a million times), and errors are values until the public API.
///
/// Bytes are compared as numbers (0x2C is `,`) rather than `UInt8(ascii:)`, which is a call per
/// byte in unoptimised builds.
struct NMEAFields {
    /// The sentence's bytes from the start delimiter up to (not including) `*`.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// `ends[i]` is the offset of the comma (or the end) after field `i`.
    private let ends: UnsafeMutableBufferPointer<Int>
    /// Number of fields, the address included.
    let count: Int
    /// The first malformed field, if any.
    private(set) var failedIndex: Int?

    /// Splits `bytes` at commas; `scratch` must hold at least `bytes.count` offsets.
    init(_ bytes: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<Int>) {
        self.bytes = bytes
        ends = scratch
        var n = 0
        var i = 1  // skip the '$' / '!'
        let end = bytes.count
        while i < end {
            if bytes[i] == 0x2C { ends[n] = i; n += 1 }  // ','
            i += 1
        }
        ends[n] = end
        count = n + 1
    }

    /// The error for the first malformed field, once decoding is done.
    var failure: NMEAParseError? { failedIndex.map { .invalidField(sentence: address, index: $0) } }

    /// The address field (`GPGGA`), for error messages.
    var address: String { string(0) }

    private func start(_ index: Int) -> Int { index == 0 ? 1 : ends[index - 1] + 1 }

    func string(_ index: Int) -> String {
        guard index < count else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start(index)..<ends[index]]), as: UTF8.self)
    }

    func length(_ index: Int) -> Int { index < count ? ends[index] - start(index) : 0 }

    func isEmpty(_ index: Int) -> Bool { length(index) == 0 }

    /// Marks field `index` malformed (the first such field is the one reported).
    mutating func fail(_ index: Int) {
        if failedIndex == nil { failedIndex = index }
    }

    /// A one-letter field (status, hemisphere, unit, mode); `nil` when empty.
    mutating func letter(_ index: Int) -> UInt8? {
        switch length(index) {
        case 0: return nil
        case 1: return bytes[start(index)]
        default: fail(index); return nil
        }
    }

    /// An unsigned decimal integer of up to 9 digits.
    mutating func integer(_ index: Int) -> Int? {
        let n = length(index)
        if n == 0 { return nil }
        if n > 9 { fail(index); return nil }
        var value = 0
        var i = start(index)
        let end = ends[index]
        while i < end {
            let digit = Int(bytes[i]) &- 48
            guard digit >= 0 && digit <= 9 else { fail(index); return nil }
            value = value * 10 + digit
            i += 1
        }
        return value
    }

    /// A decimal number: optional `-`, digits, optional `.` and digits; at most 18 digits in all.
    ///
    /// The digits are gathered into an integer and divided once by a power of ten, both exact in a
    /// `Double`, so the result is the correctly rounded value of what the receiver wrote.
    mutating func decimal(_ index: Int) -> Double? {
        if isEmpty(index) { return nil }
        var i = start(index)
        let end = ends[index]
        var negative = false
        if bytes[i] == 0x2D {  // '-'
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while i < end {
            let byte = bytes[i]
            if byte == 0x2E {  // '.'
                if seenPoint { fail(index); return nil }
                seenPoint = true
            } else {
                let digit = UInt64(byte) &- 48
                guard digit <= 9 else { fail(index); return nil }
                digits += 1
                if digits > 18 { fail(index); return nil }
                mantissa = mantissa * 10 + digit
                if seenPoint { fractionDigits += 1 }
            }
            i += 1
        }
        if digits == 0 { fail(index); return nil }
        let value = Double(mantissa) / NMEAFields.powerOfTen(fractionDigits)
        return negative ? -value : value
    }

    /// A decimal that is unknown when empty *or zero*: for quantities a receiver zero-fills before it
    /// has a fix but that are never really zero (dilutions of precision, error estimates).
    mutating func positiveDecimal(_ index: Int) -> Double? {
        guard let value = decimal(index) else { return nil }
        return value > 0 ? value : nil
    }

    /// A time of day `hhmmss` with an optional fraction of up to 9 digits.
    mutating func time(_ index: Int) -> NMEATimeOfDay? {
        let n = length(index)
        if n == 0 { return nil }
        let s = start(index)
        guard n >= 6, n <= 16,
              let hour = twoDigits(s), let minute = twoDigits(s + 2), let second = twoDigits(s + 4)
        else { fail(index); return nil }
        var nanosecond = 0
        if n > 6 {
            guard bytes[s + 6] == 0x2E else { fail(index); return nil }  // '.'
            var scale = 100_000_000
            var i = s + 7
            let end = ends[index]
            while i < end {
                let digit = Int(bytes[i]) &- 48
                guard digit >= 0 && digit <= 9 else { fail(index); return nil }
                nanosecond += digit * scale
                scale /= 10
                i += 1
            }
        }
        guard let time = NMEATimeOfDay(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        else { fail(index); return nil }
        return time
    }

    /// An RMC date `ddmmyy`; all zeros (a receiver that has no date yet) is unknown.
    mutating func dateDDMMYY(_ index: Int) -> NMEADate? {
        let n = length(index)
        if n == 0 { return nil }
        let s = start(index)
        guard n == 6, let day = twoDigits(s), let month = twoDigits(s + 2), let year = twoDigits(s + 4)
        else { fail(index); return nil }
        if day == 0 && month == 0 && year == 0 { return nil }
        guard let date = NMEADate(year: NMEADate.expandTwoDigitYear(year), month: month, day: day)
        else { fail(index); return nil }
        return date
    }

    /// The two-digit number at byte offset `offset`, if both bytes are digits.
    private func twoDigits(_ offset: Int) -> Int? {
        let high = Int(bytes[offset]) &- 48, low = Int(bytes[offset + 1]) &- 48
        guard high >= 0 && high <= 9 && low >= 0 && low <= 9 else { return nil }
        return high * 10 + low
    }

    /// A latitude/longitude pair in fields `index`…`index + 3` (`ddmm.mmmm,N,dddmm.mmmm,E`).
    ///
    /// Unknown (`nil`) when any of the four is empty, or when both values are zero: receivers zero-fill
    /// the position before their first fix, and 0°N 0°E is in the Gulf of Guinea, not where they are.
    mutating func coordinate(_ index: Int) -> Coordinate? {
        let latitude = angle(index, maximumDegrees: 90, positive: 0x4E, negative: 0x53)       // N, S
        let longitude = angle(index + 2, maximumDegrees: 180, positive: 0x45, negative: 0x57)  // E, W
        guard let latitude, let longitude, failedIndex == nil else { return nil }
        if latitude == 0 && longitude == 0 { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// One NMEA angle `[d]ddmm[.mmmm]` and its hemisphere letter in the next field.
    private mutating func angle(_ index: Int, maximumDegrees: Int, positive: UInt8, negative: UInt8) -> Double? {
        let hemisphere = letter(index + 1)
        if isEmpty(index) { return nil }
        let sign: Double
        switch hemisphere {
        case nil: return nil
        case positive?: sign = 1
        case negative?: sign = -1
        default: fail(index + 1); return nil
        }
        var i = start(index)
        let end = ends[index]
        var whole = 0  // degrees * 100 + whole minutes
        var wholeDigits = 0
        while i < end, bytes[i] != 0x2E {  // '.'
            let digit = Int(bytes[i]) &- 48
            guard digit >= 0 && digit <= 9, wholeDigits < 5 else { fail(index); return nil }
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
                guard digit >= 0 && digit <= 9 else { fail(index); return nil }
                if fractionDigits < 11 {
                    fraction = fraction * 10 + digit
                    fractionDigits += 1
                }
                i += 1
            }
        }
        // "." or "-." has no digit at all: it says nothing, which is not the same as 0 (Greenwich).
        if wholeDigits == 0 && fractionDigits == 0 { fail(index); return nil }
        if whole == 0 && fraction == 0 { return 0 }
        let degrees = whole / 100, minutes = whole % 100
        guard wholeDigits >= 3, minutes < 60, degrees <= maximumDegrees else { fail(index); return nil }
        // degrees + minutes/60 as one division of two exact integers: correctly rounded.
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let numerator = (Int64(degrees) * 60 + Int64(minutes)) * scale + fraction
        let value = Double(numerator) / Double(60 * scale)
        guard value <= Double(maximumDegrees) else { fail(index); return nil }
        return sign * value
    }

    /// 10^n for 0 ≤ n ≤ 18, exact (every power of ten up to 1e22 is a Double).
    private static func powerOfTen(_ n: Int) -> Double {
        var value = 1.0
        var k = 0
        while k < n { value *= 10; k += 1 }
        return value
    }
}
