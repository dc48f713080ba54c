// Shared by the batch-reader harnesses (csv, ndjson, geojson): runs `geocode batch`'s reading and
// processing in-process, single-threaded, the way BatchRunner and BatchPipeline do, with the CLI's
// own grid test double as the engine (exact, data-free answers).
import Foundation
@testable import GeocodeCLI
import GeoModel
import TestSupport

/// What one batch run produced.
struct BatchOutcome {
    /// The fatal error, if the run stopped (a usage problem, a malformed GeoJSON collection).
    var error: CLIError?
    var schema: BatchSchema?
    /// The input bytes of each record the framer cut, in order (the header of delimited input excluded).
    var records: [[UInt8]] = []
    /// Each output row, in order.
    var rows: [[UInt8]] = []
    var preamble: [UInt8] = []
    var closing: [UInt8] = []
    var output: [UInt8] { preamble + rows.joined() + closing }
}

private let inputURL = scratchDirectory.appendingPathComponent("input")
private let lookup = GridTestLookup()

/// Options byte: bits 0-1 read size (1, 3, 64, 1 MiB bytes: buffer boundaries everywhere), bits 2-3 the
/// records per chunk (1, 2, 7, 8192).
func runBatch(_ content: UnsafeBufferPointer<UInt8>, format: BatchFormat, output: BatchFormat, options byte: UInt8) -> BatchOutcome {
    guard FileManager.default.createFile(atPath: inputURL.path, contents: Data(buffer: content)) else { violation("cannot write input") }
    let fd = open(inputURL.path, O_RDONLY)
    check(fd >= 0, "cannot open input")
    defer { close(fd) }
    var options = BatchOptions()
    options.inputPath = inputURL.path
    options.outputPath = "-"
    options.format = format
    options.outputFormat = output
    options.threads = 1
    options.quiet = true
    options.readSize = [1, 3, 64, 1 << 20][Int(byte & 3)]
    options.chunkRecords = [1, 2, 7, 8192][Int(byte >> 2) & 3]
    options.chunkBytes = options.chunkRecords == 8192 ? 256 << 10 : 16
    let input = ByteInput(fd: fd, name: "input", readSize: options.readSize)
    if format == .geojson { input.maxPending = 1 << 30 }
    var outcome = BatchOutcome()
    do throws(CLIError) {
        let setup = try BatchSetup.prepare(input: input, format: format, outputFormat: output, options: options)
        outcome.schema = setup.schema
        outcome.preamble = setup.preamble
        let processor = ChunkProcessor(schema: setup.schema, lookup: lookup)
        var sequence = 0
        func take(_ raw: RawChunk) {
            var chunk = raw
            chunk.sequence = sequence
            sequence += 1
            for span in chunk.records { outcome.records.append(Array(chunk.bytes[span.range])) }
            let processed = processor.process(chunk)
            check(processed.rowEnds.count == chunk.records.count, "\(chunk.records.count) records became \(processed.rowEnds.count) rows")
            var start = 0
            for end in processed.rowEnds {
                outcome.rows.append(Array(processed.output[start..<end]))
                start = end
            }
            check(start == processed.output.count, "output after the last row end")
        }
        for chunk in setup.pending { take(chunk) }
        while let chunk = try setup.framer.nextChunk(targetBytes: options.chunkBytes, maxRecords: options.chunkRecords) {
            check(!chunk.records.isEmpty, "a chunk without records")
            take(chunk)
        }
        outcome.closing = setup.closing(setup.framer.trailer)
    } catch {
        outcome.error = error
    }
    return outcome
}

/// The input without a leading UTF-8 byte-order mark (the reader skips it).
func withoutBOM(_ b: UnsafeBufferPointer<UInt8>) -> ArraySlice<UInt8> {
    let a = Array(b)[...]
    return a.starts(with: [0xEF, 0xBB, 0xBF]) ? a.dropFirst(3) : a
}

/// Violation unless two runs of the same input (different read and chunk sizes) agree; says where not.
func checkSameOutcome(_ a: BatchOutcome, _ b: BatchOutcome) {
    if a.error != b.error { violation("read and chunk sizes changed the error: \(String(describing: a.error)) / \(String(describing: b.error))") }
    // After a fatal error BatchRunner abandons the output, so how far the rows got does not matter.
    if a.error != nil { return }
    if a.records != b.records {
        let i = a.records.indices.first { $0 < b.records.count && a.records[$0] != b.records[$0] } ?? min(a.records.count, b.records.count)
        violation("read and chunk sizes changed the records (\(a.records.count) / \(b.records.count)), first at \(i): "
                  + "\(i < a.records.count ? excerpt(a.records[i]) : "-") / \(i < b.records.count ? excerpt(b.records[i]) : "-")")
    }
    if a.rows != b.rows {
        let i = a.rows.indices.first { $0 < b.rows.count && a.rows[$0] != b.rows[$0] } ?? min(a.rows.count, b.rows.count)
        violation("read and chunk sizes changed output row \(i): \(i < a.rows.count ? excerpt(a.rows[i], limit: 400) : "-") / "
                  + "\(i < b.rows.count ? excerpt(b.rows[i], limit: 400) : "-")")
    }
    if a.preamble != b.preamble || a.closing != b.closing { violation("read and chunk sizes changed the preamble or closing") }
}
