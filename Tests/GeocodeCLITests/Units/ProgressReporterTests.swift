@testable import GeocodeCLI
import Testing

@Suite struct ProgressReporterTests {
    @Test func knownSizeShowsBarPercentAndETA() {
        let reporter = ProgressReporter(console: .standardError, totalBytes: 1000, enabled: false)
        let line = reporter.line(rows: 1_234_567, bytes: 250, width: 120)
        #expect(line.hasPrefix("[=========="))
        #expect(line.contains("] 25.0%  1,234,567 rows  "))
        #expect(line.contains(" rows/s  0:00 elapsed  ETA "))
        #expect(line.count <= 120)
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
