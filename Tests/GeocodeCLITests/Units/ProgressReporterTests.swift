#if canImport(Glibc)
import Glibc
#endif
@testable import GeocodeCLI
import Synchronization
import Testing

/// A clock the test moves by hand.
private final class FakeClock: Sendable {
    private let now = Mutex(ContinuousClock.now)
    func read() -> ContinuousClock.Instant { now.withLock { $0 } }
    func advance(_ d: Duration) { now.withLock { $0 += d } }
}

@Suite struct ProgressReporterTests {
    @Test func knownSizeShowsBarPercentAndETA() {
        let reporter = ProgressReporter(console: .standardError, totalBytes: 1000, enabled: false)
        let line = reporter.line(rows: 1_234_567, bytes: 250, width: 120)
        #expect(line.hasPrefix("[=========="))
        #expect(line.contains("] 25.0%  1,234,567 rows  "))
        #expect(line.contains(" rows/s  0:00 elapsed  ETA "))
        #expect(line.count <= 120)
    }

    /// At most ten redraws a second however often the writer reports (here every simulated millisecond,
    /// as at 8 M rows/s with 8,192-row chunks), and what is drawn reaches the terminal.
    @Test func redrawsAtMostTenTimesASecond() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let clock = FakeClock()
        let reporter = ProgressReporter(console: Console(fd: fds[1]), totalBytes: 10_000, enabled: true, clock: clock.read)
        for i in 0..<3_000 {
            reporter.update(rows: i * 8192, bytes: i)
            clock.advance(.milliseconds(1))
        }
        close(fds[1])
        #expect(reporter.redraws == 30)
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            text += buffer[..<n]
        }
        #expect(text.filter { $0 == 0x0D }.count == 30)
        #expect(String(decoding: text, as: UTF8.self).contains("ETA"))
        // Elapsed time is the injected clock's: 3 s.
        #expect(reporter.elapsed == 3)
    }

    @Test func unknownSizeShowsCountsOnly() {
        let reporter = ProgressReporter(console: .standardError, totalBytes: nil, enabled: false)
        let line = reporter.line(rows: 42, bytes: 10, width: 80)
        #expect(line.hasPrefix("42 rows  "))
        #expect(line.hasSuffix(" elapsed"))
        #expect(!line.contains("%"))
    }

    @Test func numberFormatting() {
        #expect(NumberFormatting.grouped(0) == "0")
        #expect(NumberFormatting.grouped(1_000) == "1,000")
        #expect(NumberFormatting.grouped(-12_345_678) == "-12,345,678")
        #expect(NumberFormatting.clock(7) == "0:07")
        #expect(NumberFormatting.clock(754) == "12:34")
        #expect(NumberFormatting.clock(3723) == "1:02:03")
        #expect(NumberFormatting.seconds(1.234) == "1.23")
        #expect(NumberFormatting.seconds(0.05) == "0.05")
        let summary = BatchStatistics(rows: 1000, found: 900, notFound: 80, bad: 20).summary(seconds: 0.5)
        #expect(summary == "1,000 rows: 900 found, 80 not found, 20 bad in 0.50 s (2,000 rows/s)")
    }
}
