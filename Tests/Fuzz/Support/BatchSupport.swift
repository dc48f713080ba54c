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

/// How the harness stores the content before the run reads it: as it is, or through gzip (made by the
/// CLI's own deflater, in `members` members), whole or damaged.
enum Stored {
    case plain
    case gzip(members: Int)
    /// Cut at `fraction` (0..<1) of the last member's bytes (its magic kept): never a complete stream.
    case gzipTruncated(members: Int, fraction: Double)
    /// One byte of the compressed file inverted, at `position` modulo its length (never the magic bytes).
    case gzipCorrupted(members: Int, position: Int)
}

/// The content in gzip members (split at even byte counts), and where the last member starts.
func gzipMembers(_ content: UnsafeBufferPointer<UInt8>, _ members: Int) -> (bytes: [UInt8], lastStart: Int) {
    var out: [UInt8] = []
    var lastStart = 0
    let n = max(1, members), all = Array(content)
    for m in 0..<n {
        let part = Array(all[(all.count * m / n)..<(all.count * (m + 1) / n)])
        lastStart = out.count
        do throws(CLIError) {
            let deflater = try makeDeflater()
            try deflater.compress(part) { (bytes: [UInt8]) throws(CLIError) in out += bytes }
            try deflater.finish { (bytes: [UInt8]) throws(CLIError) in out += bytes }
        } catch {
            violation("the deflater failed: \(error)")
        }
    }
    return (out, lastStart)
}

/// The CLI's deflater (a typed-throwing init, wrapped so the harness sees one error type).
private func makeDeflater() throws(CLIError) -> GzipDeflater {
    do throws(CompressionError) { return try GzipDeflater() } catch { throw .io("\(error)") }
}

/// Options byte: bits 0-1 read size (1, 3, 64, 1 MiB bytes: buffer boundaries everywhere), bits 2-3 the
/// records per chunk (1, 2, 7, 8192). `configure` sets the variant options (decimal comma, --coords...).
/// The input goes through the CLI's input stack (decompression, encoding) as `geocode batch` reads it;
/// `encoding` nil means "detect", as without `--encoding`.
func runBatch(_ content: UnsafeBufferPointer<UInt8>, format: BatchFormat, output: BatchFormat, options byte: UInt8,
              stored: Stored = .plain, encoding: String? = "utf-8",
              configure: (inout BatchOptions) -> Void = { _ in }) -> BatchOutcome {
    var file = Array(content)
    switch stored {
    case .plain: break
    case .gzip(let members): file = gzipMembers(content, members).bytes
    case .gzipTruncated(let members, let fraction):
        let (bytes, lastStart) = gzipMembers(content, members)
        // At least the magic bytes of the last member: fewer would be "not gzip" or "after the last member".
        file = Array(bytes[..<(lastStart + 2 + Int(Double(bytes.count - lastStart - 2) * fraction))])
    case .gzipCorrupted(let members, let position):
        file = gzipMembers(content, members).bytes
        // Not the first member's magic bytes: without them the file is plain text, rightly.
        file[2 + position % (file.count - 2)] ^= 0xFF
    }
    guard FileManager.default.createFile(atPath: inputURL.path, contents: Data(file)) else { violation("cannot write input") }
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
    configure(&options)
    var outcome = BatchOutcome()
    do throws(CLIError) {
        let input = try InputStack.open(fd: fd, name: "input", path: nil, encodingName: encoding, readSize: options.readSize).input
        if format.isGeoJSON { input.maxPending = 1 << 30 }
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

/// A reference reading of text as lines of records (NDJSON, a GeoJSON sequence without RS): split at LF,
/// one trailing CR dropped, lines that are blank (only spaces, tabs, CR) skipped.
func referenceLines(_ text: ArraySlice<UInt8>) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    for raw in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
        var line = Array(raw)
        if line.last == 0x0D { line.removeLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
        lines.append(line)
    }
    return lines
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
