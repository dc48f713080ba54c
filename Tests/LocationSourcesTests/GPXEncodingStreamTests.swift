import Foundation
import Testing
@testable import LocationSources

/// ``GPXEncoding`` prepares a file chunk by chunk: its output must not depend on where the chunks
/// are cut (a marker, a UTF-16 character or an iconv sequence split across two chunks).
struct GPXEncodingStreamTests {
    private static func prepared(_ bytes: [UInt8], chunk: Int) throws(GPXParseError) -> [UInt8] {
        var encoding = GPXEncoding(fileName: "t.gpx")
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            out += try encoding.feed(Array(bytes[i..<min(bytes.count, i + chunk)]))
            i += chunk
        }
        out += try encoding.finish()
        return out
    }

    @Test func theOutputDoesNotDependOnTheChunking() throws {
        var inputs: [[UInt8]] = []
        inputs.append(Array("""
            <?xml version="1.0"?><?a?><!DOCTYPE gpx [ <?b?> ]><gpx><!-- <?c?> --><wpt lat="1" lon="2">\
            <name><![CDATA[<?d?> ]] ]]></name></wpt><?e <![CDATA[ ?><?f?></gpx>
            """.utf8))
        // ISO-8859-15 bytes (é = 0xE9, € = 0xA4), converted by iconv.
        inputs.append(Array("<?xml version=\"1.0\" encoding=\"ISO-8859-15\"?><gpx><wpt lat=\"1\" lon=\"2\"><name>caf".utf8)
            + [0xE9, 0x20, 0xA4] + Array("</name></wpt></gpx>".utf8))
        // UTF-16LE with a byte-order mark: every character two bytes, cut anywhere.
        let utf16Text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><gpx><wpt lat=\"1\" lon=\"2\"><?g?></wpt></gpx>"
        inputs.append([0xFF, 0xFE] + utf16Text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        for input in inputs {
            let whole = try Self.prepared(input, chunk: input.count)
            for chunk in [1, 2, 3, 7, 16, 17, 64] {
                #expect(try Self.prepared(input, chunk: chunk) == whole, "chunks of \(chunk)")
            }
        }
        let first = String(decoding: try Self.prepared(inputs[0], chunk: 5), as: UTF8.self)
        #expect(first.contains("<?a ?>") && first.contains("<?b ?>") && first.contains("<?c ?>") && first.contains("<?f ?>"))
        #expect(first.contains("<![CDATA[<?d?> ]] ]]>"), "CDATA content is text, left alone")
        let latin = String(decoding: try Self.prepared(inputs[1], chunk: 3), as: UTF8.self)
        #expect(latin.contains("encoding=\"UTF-8\"") && latin.contains("café €"))
        let wide = String(decoding: try Self.prepared(inputs[2], chunk: 3), as: UTF8.self)
        #expect(wide.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>") && wide.contains("<?g ?>"))
    }

    @Test func aSequenceCutOffAtTheEndIsAnError() {
        let utf16: [UInt8] = [0xFF, 0xFE] + "<gpx/>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0x3C]
        #expect(throws: GPXParseError.self) { try Self.prepared(utf16, chunk: 4) }
    }
}
