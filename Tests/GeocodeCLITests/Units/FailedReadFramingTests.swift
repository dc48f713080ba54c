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

    /// As ``frame(_:)``, but the first record alone, as the setup reads a CSV header: only then does the
    /// CSV framer know the line ends and take its unframed fast path. Also whether a chunk took it.
    static func frameAfterOne(_ framer: any RecordFramer) -> (records: [String], errors: [String], unframed: Bool) {
        var records: [String] = [], errors: [String] = [], unframed = false
        do {
            if let first = try framer.nextChunk(targetBytes: 1, maxRecords: 1) {
                for r in first.records { records.append(String(decoding: first.bytes[r.range], as: UTF8.self)) }
            }
        } catch {
            errors.append(error.message)
        }
        while errors.count < 3 {
            do {
                guard let chunk = try framer.nextChunk(targetBytes: 1 << 20, maxRecords: 100_000) else { break }
                if case .lines = chunk.framing { unframed = true }
                for r in chunk.records { records.append(String(decoding: chunk.bytes[r.range], as: UTF8.self)) }
            } catch {
                errors.append(error.message)
            }
        }
        return (records, errors, unframed)
    }

    static let rows = (0..<500).map { "\($0),1.5,2.5" }

    /// Plain LF-ended rows: after the header the framer cuts chunks unframed (the worker finds the rows),
    /// and a read that fails there lost every row of the chunk being cut (up to 256 KiB of them from a
    /// truncated .csv.gz). The row cut short is no row; blank lines before the failure are none either.
    @Test(arguments: [1, 7, 4096, 1 << 20])
    func csvFastPathHandsOutTheWholeRowsBeforeAFailedRead(readSize: Int) throws {
        for (tail, delimiter) in [("499,1.5,2", ","), ("", ","), ("\n\n", ","), ("499\t1.", "\t")] {
            let rows = Self.rows.map { $0.replacingOccurrences(of: ",", with: delimiter) }
            let header = ["id", "lat", "lon"].joined(separator: delimiter)
            let text = ([header] + rows).joined(separator: "\n") + "\n" + tail
            let input = ByteInput(source: FailingSource(text, readSize: readSize), name: "test", readSize: readSize)
            let (records, errors, unframed) = Self.frameAfterOne(CSVFramer(input: input, delimiter: Array(delimiter.utf8)[0]))
            #expect(records == [header] + rows, "tail \(tail.debugDescription)")
            #expect(errors == Array(repeating: "test: the read failed", count: 3))
            #expect(unframed, "the fast path was not taken")
        }
    }

    /// Quoted fields (one holding a line break) and CRLF line ends: the state machine frames every row,
    /// and lost the chunk's rows the same way. A quoted field the failure cuts open is no row.
    @Test(arguments: [1, 7, 4096, 1 << 20])
    func csvFramedRowsBeforeAFailedReadAreHandedOut(readSize: Int) throws {
        let rows = (0..<500).map { $0 % 7 == 3 ? "\($0),\"two\r\nlines\",1.5,2.5" : "\($0),\"q\",1.5,2.5" }
        for tail in ["500,\"open\r\nquote", "500,1.5,2.", ""] {
            let text = (["id,name,lat,lon"] + rows).joined(separator: "\r\n") + "\r\n" + tail
            let input = ByteInput(source: FailingSource(text, readSize: readSize), name: "test", readSize: readSize)
            let (records, errors, _) = Self.frameAfterOne(CSVFramer(input: input, delimiter: UInt8(ascii: ",")))
            #expect(records == ["id,name,lat,lon"] + rows, "tail \(tail.debugDescription)")
            #expect(errors == Array(repeating: "test: the read failed", count: 3))
        }
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
