import Foundation
import Testing

/// The real binary against the golden files, byte for byte, through a file and through stdin/stdout.
@Suite struct BatchGoldenTests {
    let golden = Fixture.url("golden")

    @Test(arguments: GoldenCase.all)
    func fileToFile(_ c: GoldenCase) async throws {
        let out = TemporaryDirectory.shared.uniqueURL("golden", extension: URL(fileURLWithPath: c.expected).pathExtension)
        let result = try await GeocodeBinary.run(["batch", c.input, "-o", out.path, "--threads", "2", "-q"] + c.arguments, in: golden)
        #expect(result.status == 0, "\(result.err)")
        #expect(try Data(contentsOf: out) == Fixture.data("golden/expected/\(c.expected)"))
        let expectedErr = (try? Fixture.text("golden/expected/\(c.expected).stderr")) ?? ""
        #expect(result.err == expectedErr)
        #expect(result.stdout.isEmpty)
    }

    /// Same output from stdin (a pipe, as `producer | geocode batch -` gives it) to stdout with the format
    /// sniffed, not named, and one worker.
    @Test(arguments: GoldenCase.all)
    func stdinToStdoutSniffed(_ c: GoldenCase) async throws {
        let result = try await GeocodeBinary.run(["batch", "-", "--threads", "1", "-q"] + c.arguments,
                                                 piped: try Data(contentsOf: golden.appendingPathComponent(c.input)))
        #expect(result.status == 0, "\(result.err)")
        #expect(result.stdout == (try Fixture.data("golden/expected/\(c.expected)")))
        let expectedErr = ((try? Fixture.text("golden/expected/\(c.expected).stderr")) ?? "")
            .replacingOccurrences(of: c.input + ":", with: "<stdin>:")
        #expect(result.err == expectedErr)
    }

    @Test func summaryOnStderrUnlessQuiet() async throws {
        let result = try await GeocodeBinary.run(["batch", "bad-rows.csv", "-o", TemporaryDirectory.shared.uniqueURL("s", extension: "csv").path],
                                           in: golden)
        #expect(result.status == 0)
        let last = result.err.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("geocode: 13 rows: 3 found, 0 not found, 10 bad in "), "\(last)")
        #expect(last.hasSuffix(" rows/s)"))
        #expect(!result.err.contains("\u{1B}"))   // no progress bar when stderr is not a terminal
    }
}
