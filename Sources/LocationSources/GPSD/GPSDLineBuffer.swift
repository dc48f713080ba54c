/// Splits the bytes read from gpsd's socket into lines. A read can end anywhere, mid-line or even
/// mid-character, so bytes are kept until their newline arrives. gpsd ends lines with CR LF.
struct GPSDLineBuffer: Sendable {
    /// Longest line kept. gpsd's longest reports (SKY with many satellites) are a few KiB; anything
    /// far longer means the peer isn't gpsd, and holding it would only grow memory.
    static let maximumLineLength = 65_536

    private var pending: [UInt8] = []

    /// Appends `bytes` and returns the lines they complete (without CR/LF; empty lines dropped), and
    /// whether an over-long line was thrown away.
    mutating func append(_ bytes: some Collection<UInt8>) -> (lines: [String], discardedOverlong: Bool) {
        pending.append(contentsOf: bytes)
        var lines: [String] = []
        var start = pending.startIndex
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > start, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if end > start { lines.append(String(decoding: pending[start..<end], as: UTF8.self)) }
            start = newline + 1
        }
        pending.removeSubrange(..<start)
        if pending.count > Self.maximumLineLength {
            pending.removeAll()
            return (lines, true)
        }
        return (lines, false)
    }

    /// Forgets a partial line (after a reconnect, the rest of it will never come).
    mutating func reset() {
        pending.removeAll()
    }
}
