import Foundation
@testable import GeocodeCLI
import Testing
import TestSupport

/// The pipeline through the library API with tiny reads and chunks, so buffer compaction, chunk cuts and
/// reordering happen between every pair of records: the output must still be the golden bytes.
@Suite struct PipelineBoundaryTests {
    static let geometries: [(readSize: Int, chunkBytes: Int, chunkRecords: Int, threads: Int)] = [
        (4, 1, 1, 3), (5, 7, 2, 2), (13, 64, 3, 1), (64, 1 << 20, 1000, 4),
        // Chunks of 64+ records go unframed (the worker finds the lines): small ones, cut everywhere.
        (3, 50, 64, 2),
    ]

    @Test(arguments: GoldenCase.all, geometries.indices)
    func goldenOutputWhateverTheBoundaries(_ c: GoldenCase, _ geometry: Int) throws {
        let g = Self.geometries[geometry]
        let golden = Fixture.url("golden")
        let out = TemporaryDirectory.shared.uniqueURL("boundary", extension: URL(fileURLWithPath: c.expected).pathExtension)
        var parsed = try ArgumentParser.parse(["batch", golden.appendingPathComponent(c.input).path, "-o", out.path, "-q"] + c.arguments,
                                              options: BatchCommand.options)
        parsed.positionals.removeFirst()
        var options = try BatchCommand.parseOptions(parsed)
        options.readSize = g.readSize
        options.chunkBytes = g.chunkBytes
        options.chunkRecords = g.chunkRecords
        options.threads = g.threads
        var context = CommandContext(environment: [:], lookupFactory: .testGrid, executablePath: nil)
        let errFile = try TemporaryDirectory.shared.newFile("stderr")
        let errFD = open(errFile.path, O_WRONLY | O_APPEND)
        defer { close(errFD) }
        context.stderr = Console(fd: errFD)
        let code = try BatchRunner(options: options, context: context, dataOption: nil).run()
        #expect(code == .success)
        #expect(try Data(contentsOf: out) == Fixture.data("golden/expected/\(c.expected)"))
        let expectedErr = ((try? Fixture.text("golden/expected/\(c.expected).stderr")) ?? "")
            .replacingOccurrences(of: c.input + ":", with: golden.appendingPathComponent(c.input).path + ":")
        #expect(String(decoding: try Data(contentsOf: errFile), as: UTF8.self) == expectedErr)
    }
}
