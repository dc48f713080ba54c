import Foundation

/// A UTC calendar date from RMC (`ddmmyy`) or ZDA (day, month, four-digit year).
public struct NMEADate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Fails (returns `nil`) for dates that do not exist (month 13, 30 February, …).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= NMEADate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The year a two-digit RMC year stands for. RMC has no century, so a pivot decides:
    /// 80–99 are 1980–1999 (GPS started in 1980), 00–79 are 2000–2079 — gpsd's convention too.
    public static func expandTwoDigitYear(_ yy: Int) -> Int { yy >= 80 ? 1900 + yy : 2000 + yy }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (proleptic Gregorian), by the civil-from-days algorithm: no Calendar,
    /// no time zone, no allocation.
    var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days from 1970-01-01.
    init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
        month = Int(m)
        day = Int(d)
    }

    /// The following day.
    public var next: NMEADate { NMEADate(daysSinceEpoch: daysSinceEpoch + 1) }

    /// The instant `time` on this date, UTC.
    public func date(at time: NMEATimeOfDay) -> Date {
        let seconds = daysSinceEpoch * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(time.nanosecond) / 1e9)
    }

    public static func < (a: NMEADate, b: NMEADate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// `yyyy-mm-dd`.
    public var description: String {
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}
