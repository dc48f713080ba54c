/// A UTC time of day as NMEA sends it (`hhmmss.sss`), without a date.
///
/// Kept as integers so equal times compare equal exactly: the fix assembler groups sentences into
/// reporting cycles by comparing these.
public struct NMEATimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    /// 0...60 (60 only during a leap second).
    public let second: Int
    public let nanosecond: Int

    /// Fails (returns `nil`) outside 00:00:00–23:59:60.999999999.
    public init?(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0..<1_000_000_000).contains(nanosecond) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// Seconds since midnight, including the fraction.
    public var secondsSinceMidnight: Double {
        Double(hour * 3600 + minute * 60 + second) + Double(nanosecond) / 1e9
    }

    var totalNanoseconds: Int64 {
        Int64(hour * 3600 + minute * 60 + second) * 1_000_000_000 + Int64(nanosecond)
    }

    public static func < (a: NMEATimeOfDay, b: NMEATimeOfDay) -> Bool { a.totalNanoseconds < b.totalNanoseconds }

    /// `hh:mm:ss.sss` (milliseconds, as gpsd prints them).
    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = nanosecond / 1_000_000
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(two(hour)):\(two(minute)):\(two(second)).\(msText)"
    }
}
