/// The NMEA 0183 checksum: XOR of every byte between the start delimiter (`$` or `!`) and `*`.
public enum NMEAChecksum {
    /// The checksum of `body`, the bytes between `$` and `*` (both excluded).
    public static func compute<C: Collection>(_ body: C) -> UInt8 where C.Element == UInt8 {
        var sum: UInt8 = 0
        for byte in body { sum ^= byte }
        return sum
    }

    /// The complete sentence for `body`: `$` + body + `*` + two uppercase hex digits (no line ending).
    /// For tests and simulators that need to produce well-formed input.
    public static func sentence(_ body: String) -> String {
        "$\(body)*\(hex(compute(Array(body.utf8))))"
    }

    /// Two uppercase hex digits, as NMEA writes them.
    static func hex(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
