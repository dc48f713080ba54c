import Foundation
import Testing
@testable import GeocodeCLI

/// The input stack on the real fixture files, read through ByteInput at every read size from 1 byte
/// (so a gzip member, a UTF-8 character made from UTF-16 and the BOM straddle every read boundary):
/// the bytes that come out are exactly the plain UTF-8 file's.
@Suite struct InputStackTests {
    static let readSizes = [1, 2, 3, 7, 64, 1 << 20]

    func readAll(_ name: String, readSize: Int, encoding: String? = nil) throws(CLIError) -> (bytes: [UInt8], opened: InputStack.Opened) {
        let path = Fixture.url("inputs/\(name)").path
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let opened = try InputStack.open(fd: fd, name: name, path: path, encodingName: encoding, readSize: readSize)
        let input = opened.input
        var out: [UInt8] = []
        while true {
            if input.cursor >= input.count, try !input.fill() { break }
            out += input.buffer[input.cursor..<input.count]
            input.cursor = input.count
            input.discard()
        }
        return (out, opened)
    }

    @Test(arguments: readSizes)
    func gzipZstdAndMembersGiveThePlainBytes(_ readSize: Int) throws {
        let plain = Array(try Fixture.data("inputs/points.csv"))
        for name in ["points.csv.gz", "multi-member.csv.gz", "points.csv.zst"] {
            let (bytes, opened) = try readAll(name, readSize: readSize)
            #expect(bytes == plain, "\(name) at read size \(readSize)")
            #expect(opened.compression == (name.hasSuffix(".zst") ? .zstd : .gzip))
        }
    }

    @Test(arguments: readSizes)
    func utf16IsTranscodedExactly(_ readSize: Int) throws {
        let (bytes, opened) = try readAll("excel-unicode-text.csv", readSize: readSize)
        #expect(opened.encoding == .utf16LE)
        #expect(opened.input.hadByteOrderMark)
        let want = "id\tname\tlat\tlon\r\n1\tAlpha\t45.5\t12.25\r\n2\tBeta\t-45.5\t120\r\n3\tGamma\t10.25\t35.75\r\n4\tDelta\t0.5\t-30\r\n5\tEpsilon\t95\t10\r\n"
        #expect(bytes == Array(want.utf8))
    }

    @Test(arguments: readSizes)
    func latin1IsTranscodedExactly(_ readSize: Int) throws {
        let (bytes, _) = try readAll("latin1.csv", readSize: readSize, encoding: "latin1")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("id,name,lat,lon\n1,François,45.5,12.25\n2,Björk,"))
        #expect(bytes.count == (try Fixture.data("inputs/latin1.csv")).count + 2)   // ç and ö take two bytes each
    }

    @Test(arguments: readSizes)
    func truncatedAndCorruptGzipAreBadInputAtEveryReadSize(_ readSize: Int) {
        for (name, message) in [("truncated.csv.gz", "truncated.csv.gz: the gzip file is truncated: it ends at byte 60 inside member 1"),
                                ("corrupt.csv.gz", "corrupt.csv.gz: corrupt gzip data at byte ")] {
            do {
                _ = try readAll(name, readSize: readSize)
                Issue.record("\(name) was read without an error")
            } catch {
                #expect(error.code == .badInput)
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}
