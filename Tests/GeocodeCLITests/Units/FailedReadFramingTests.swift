import Foundation
@testable import GeocodeCLI
import Testing

/// A read that fails part way (a truncated gzip, an I/O error, a line past the size limit) ends the run
/// with its error, but the whole records read before it are handed out first: before, those framed into
/// the failing chunk (up to a chunk's worth of rows) were lost from the output.
@Suite struct FailedReadFramingTests {
    /// The bytes of `text`, `readSize` at a time, then an error where the end of the input would be.
    final class FailingSource: ByteSource {
        let bytes: [UInt8]
        let readSize: Int
        var at = 0
        init(_ text: String, readSize: Int) { bytes = Array(text.utf8); self.readSize = readSize }
        func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
            guard at < bytes.count else { throw .badInput("test: the read failed") }
            let n = min(capacity, readSize, bytes.count - at)
            for k in 0..<n { buffer[k] = bytes[at + k] }
            at += n
            return n
        }
    }

    /// Records handed out before the error, and the errors of two calls after it.
    static func frame(_ framer: any RecordFramer) -> (records: [String], errors: [String]) {
        var records: [String] = [], errors: [String] = []
        while errors.count < 3 {
            do {
                guard let chunk = try framer.nextChunk(targetBytes: 1 << 20, maxRecords: 100_000) else { break }
                for r in chunk.records { records.append(String(decoding: chunk.bytes[r.range], as: UTF8.self)) }
            } catch {
                errors.append(error.message)
            }
        }
        return (records, errors)
    }

    static let lines = (0..<500).map { "{\"id\":\($0),\"lat\":1.5,\"lon\":2.5}" }

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func ndjsonHandsOutTheWholeLinesBeforeAFailedRead(readSize: Int) throws {
        // A last line cut short: it was never whole, so it is not a record.
        let text = Self.lines.joined(separator: "\n") + "\n{\"id\":500,\"la"
        let input = ByteInput(source: FailingSource(text, readSize: readSize), name: "test", readSize: readSize)
        let (records, errors) = Self.frame(NDJSONFramer(input: input))
        #expect(records == Self.lines)
        #expect(errors == Array(repeating: "test: the read failed", count: 3))
    }

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func rsSeparatedSequenceHandsOutTheWholeRecordsBeforeAFailedRead(readSize: Int) throws {
        let rs = String(UnicodeScalar(BatchFormat.recordSeparatorByte))
        // RFC 8142: each record starts with RS; the last one's text is cut short by the failed read.
        let text = Self.lines.map { rs + $0 + "\n" }.joined() + rs + "{\"id\":500,\"la"
        let input = ByteInput(source: FailingSource(text, readSize: readSize), name: "test", readSize: readSize)
        let (records, errors) = Self.frame(GeoJSONSeqFramer(input: input))
        #expect(records == Self.lines)
        #expect(errors == Array(repeating: "test: the read failed", count: 3))
    }
}
