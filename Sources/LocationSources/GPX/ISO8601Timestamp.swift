import Foundation

/// Reads the ISO 8601 / xsd:dateTime timestamps that GPX files and gpsd write
/// (`2023-11-14T22:13:20Z`, `2023-11-14T22:13:20.125Z`, `2023-11-15T00:13:20+02:00`).
///
/// A small hand-written reader rather than `ISO8601DateFormatter`: that formatter needs a different
/// configuration for each fraction/zone variant and silently rounds fractions to milliseconds, while
/// these are pure functions that keep every digit the file gave.
enum ISO8601Timestamp {
    /// The instant `text` names, or `nil` when it is not a date-time. A missing zone means UTC: GPX 1.1
    /// requires UTC and gpsd always writes `Z`, so a zone-less time is far more likely UTC than local.
    static func parse(_ text: some StringProtocol) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(exactly: 4), scanner.skip("-"),
              let month = scanner.digits(exactly: 2), scanner.skip("-"),
              let day = scanner.digits(exactly: 2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
              let hour = scanner.digits(exactly: 2), scanner.skip(":"),
              let minute = scanner.digits(exactly: 2), scanner.skip(":"),
              let second = scanner.digits(exactly: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour <= 24, minute <= 59, second <= 60,
              hour < 24 || (minute == 0 && second == 0)
        else { return nil }

        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            guard let digits = scanner.digitRun(), !digits.isEmpty else { return nil }
            fraction = Double("0." + String(decoding: digits, as: UTF8.self)) ?? 0
        }

        var offsetSeconds = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offsetSeconds = 0
        } else if let sign = scanner.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            scanner.index += 1
            guard let oh = scanner.digits(exactly: 2), oh <= 14 else { return nil }
            _ = scanner.skip(":")
            guard let om = scanner.digits(exactly: 2), om <= 59 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        }
        guard scanner.atEnd else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(whole) + fraction)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's civil-date algorithm),
    /// so no `Calendar` or time zone database is involved.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }
        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard peek() == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digits(exactly count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        mutating func digitRun() -> ArraySlice<UInt8>? {
            let start = index
            while let b = peek(), b >= 0x30, b <= 0x39 { index += 1 }
            return bytes[start..<index]
        }
    }
}
