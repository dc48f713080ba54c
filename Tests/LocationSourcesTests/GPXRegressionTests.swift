import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// Inputs the gpx fuzzer (`Tests/Fuzz/Harnesses/gpx.swift`) found, kept byte for byte so the bugs stay
/// fixed. The same files are in `Tests/Fuzz/Corpus/gpx`, so every fuzz run replays them too.
struct GPXRegressionTests {
    /// fuzz-gpx: a declaration of an encoding that libxml2 leaves to iconv, followed by a byte that is
    /// not valid in it, crashed the process inside libxml2 2.9 (NULL dereference in xmlSwitchToEncoding,
    /// under XMLParser). Minimised from a Garmin track whose declaration the fuzzer turned into UTF-7.
    @Test func invalidBytesInAnIconvEncodingAreAnErrorNotACrash() {
        let found: [UInt8] = Array(#"<?xml version="1.0" encoding="UTF7""#.utf8) + [0xFF]
        #expect(throws: GPXParseError(file: "GPX", line: 1, reason: "bytes that are not valid UTF7, the encoding the file declares")) {
            try GPXParser.parse(Data(found))
        }
        // The same through other encodings libxml2 hands to iconv, on a later line.
        for name in ["Shift_JIS", "GB18030", "ISO-2022-JP", "EUC-JP", "UTF-7"] {
            let text = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<gpx>".utf8) + [0xFF, 0x80] + Array("</gpx>".utf8)
            #expect(throws: GPXParseError.self, "\(name)") { try GPXParser.parse(Data(text)) }
        }
    }

    /// Valid files in those encodings still read, now converted to UTF-8 first.
    @Test func validFilesInOtherEncodingsStillRead() throws {
        let head = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<gpx version=\"1.1\">"
        // "東京" in Shift_JIS is 93 8C 8B 9E.
        let bytes = Array(head.utf8) + Array(#"<wpt lat="35.68" lon="139.76"><name>"#.utf8) + [0x93, 0x8C, 0x8B, 0x9E]
            + Array("</name></wpt></gpx>".utf8)
        let document = try GPXParser.parse(Data(bytes))
        #expect(document.waypoints.first?.name == "東京")
        #expect(document.waypoints.first?.line == 2)

        let gb = Array("<?xml version='1.0' encoding='GB18030'?><gpx><wpt lat=\"39.9\" lon=\"116.4\"><name>".utf8)
            + [0xB1, 0xB1, 0xBE, 0xA9] + Array("</name></wpt></gpx>".utf8)
        #expect(try GPXParser.parse(Data(gb)).waypoints.first?.name == "北京")

        #expect(throws: GPXParseError(file: "GPX", line: 1, reason: "encoding \"X-NO-SUCH\" is not supported (convert the file to UTF-8)")) {
            try GPXParser.parse(Data(#"<?xml version="1.0" encoding="X-NO-SUCH"?><gpx/>"#.utf8))
        }
    }

    /// fuzz-gpx: a processing instruction without data (`<?pi?>`) crashed the process: libxml2 passes
    /// NULL for its data and FoundationXML calls strlen on it. Anywhere: the prolog, the document, a DTD's
    /// internal subset, an entity's replacement text. Now padded to `<?pi ?>` (same meaning) before
    /// parsing; entity declarations are refused, since character references can spell one.
    @Test func processingInstructionWithoutDataIsNotACrash() throws {
        for text in ["<?pi?><gpx><wpt lat=\"1\" lon=\"2\"/></gpx>", "<gpx><?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>",
                     "<!DOCTYPE gpx [<?pi?>]><gpx><wpt lat=\"1\" lon=\"2\"/></gpx>"] {
            #expect(try GPXParser.parse(Data(text.utf8)).waypoints.count == 1, "\(text)")
        }
        // Inside CDATA it is text, and stays as written.
        let cdata = "<gpx><wpt lat=\"1\" lon=\"2\"><name><![CDATA[<?pi?>]]></name></wpt></gpx>"
        #expect(try GPXParser.parse(Data(cdata.utf8)).waypoints.first?.name == "<?pi?>")
        let entity = "<!DOCTYPE gpx [\n<!ENTITY e \"&#60;?x?&#62;\">]><gpx>&e;</gpx>"
        #expect(throws: GPXParseError(file: "GPX", line: 2, reason: "entity declarations (<!ENTITY) are not supported in GPX files")) {
            try GPXParser.parse(Data(entity.utf8))
        }
    }

    /// fuzz-gpx: the same crash, through the padding's own blind spot: it left CDATA sections alone, and
    /// took a `<![CDATA[` inside a processing instruction's data for one, so everything up to a `]]>`
    /// (here: the rest of the file) went unchecked, a `<?x?>` included. A `<![CDATA[` is a section only
    /// in content: inside an instruction, a comment, a tag or a DOCTYPE it is text, as to libxml2.
    @Test func cdataMarkerOutsideContentDoesNotHideAnInstruction() throws {
        let found = Data(base64Encoded: "PD94b2wgdmVyc2luamkwbjwvbmFtZT48SUlJdHJrc2VnPgo8dGltZT4yMDI0LTExLTE0VDIyOjEzOjx0cms+MjBaPCFbQ0RBVEFbZG9wPjAuMDwvaGRvcD48L3Rya3B0PgogIDx0cmtwdCBsYXQ9IjM5LjkwNzMtMTFdMTRUMjI6MTM6MzBaPC90aW9uPSIxLjAiIGVuY29kaW5nPSJVVEYtOCI/Pgo8Z3B4IHZlcnNpb249IjEuMSIgY3JlYXRvcj0icm91dGUgcC93d3cudG9wb2dyYWZpeC5jb20vR1BYLzEvMSI+CiA8P3g/Pgo8Z3B4IHZlcnNpb249IjEuMSIgY3JlYWVhdG9yPSJYY29kZSI+CiAgICA8d3B0IGxhdD0iMTguMzMxNzA1IiBsbzBuPSItMzAyMzciPgogICBuYW1lPjU1NSBvbiA9bnNwbGF0ejwvbmFtZT4KICAgIDxydGVwdCBsYXQ9IjQ4LjEzNzQzMCIgbG9uPSIxMS41NzU0OTAiPjxuYW1lPk1hcmllI25wbGF0ejwvbmFtZT48L3J0ZXB0PgogICAgPHJ0ZXB0IGxhdD0iNDguMTM4NjUwIiBsb249IjExLjU3NjEwMCI+MCI+PG5hbWU+T2Rlb25zcGxhdHo8L25hbWU+PC9ydGVwdD4KICA8L3J0ZT4KPC9ncHg+IDxydGU+CiAgICA8bmFtZT5NYXJpZW5wbGF0eiB0byBPZGVvbnNwbGF0ejwvbmFtZT5ydGVwdD4KICAgIDxydGVwdCBsYXQ9IjQ4LjEzODY1MCIgbG9uPSIxMS41NzYxMDAiPjAiPjxuYW1lPk9kZW9uc3BsYXR6PC9uYW1lPjwvcnRlcHQ+CiAgPC9ydGU+CjwvZ3B4Pgo=")!
        #expect(throws: GPXParseError.self) { try GPXParser.parse(found) }
        for text in ["<?a <![CDATA[ ?><gpx><?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>",
                     "<!-- <![CDATA[ --><gpx><?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>",
                     "<!DOCTYPE gpx SYSTEM \"<![CDATA[\"><gpx><?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>",
                     "<!DOCTYPE gpx [<!-- <![CDATA[ --> <?pi?>]><gpx><?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>",
                     "<gpx><wpt lat=\"1\" lon=\"2\"><name a=\"x>y\">n</name></wpt><?pi?></gpx>"] {
            #expect(try GPXParser.parse(Data(text.utf8)).waypoints.count == 1, "\(text)")
        }
        // A real section is still left as written, even after an instruction with data.
        let cdata = "<?a b?><gpx><wpt lat=\"1\" lon=\"2\"><name><![CDATA[<?pi?>]]></name></wpt></gpx>"
        #expect(try GPXParser.parse(Data(cdata.utf8)).waypoints.first?.name == "<?pi?>")
    }

    /// UTF-16 files (with or without a byte-order mark) are converted to UTF-8 first, so the checks above
    /// see their markup too; they read as before.
    @Test func utf16FilesStillRead() throws {
        let text = #"<?xml version="1.0" encoding="UTF-16"?><gpx><?pi?><wpt lat="1.5" lon="2.5"><name>Zürich</name></wpt></gpx>"#
        for (bom, encoding) in [([UInt8](), String.Encoding.utf16LittleEndian), ([0xFF, 0xFE], .utf16LittleEndian), ([0xFE, 0xFF], .utf16BigEndian)] {
            let data = Data(bom) + text.data(using: encoding)!
            let waypoint = try #require(try GPXParser.parse(data).waypoints.first)
            #expect(waypoint.name == "Zürich" && waypoint.coordinate == Coordinate(latitude: 1.5, longitude: 2.5))
        }
    }

    /// fuzz-gpx: `encoding="UT-F8"` was taken for UTF-8 (names were compared without dashes) and passed
    /// to libxml2, which resolved it through iconv and crashed on the next invalid byte, as above. Only
    /// the exact names libxml2 decodes itself are passed through now; the rest are converted here.
    @Test func nearMissEncodingNamesAreConvertedHere() throws {
        let found = Array(#"<?xml version="1.0" encoding="UT-F8"?>"#.utf8) + [0x0A, 0xC7, 0x50]
        #expect(throws: GPXParseError.self) { try GPXParser.parse(Data(found)) }
        let fine = #"<?xml version="1.0" encoding="utf-8"?><gpx><wpt lat="1" lon="2"/></gpx>"#
        #expect(try GPXParser.parse(Data(fine.utf8)).waypoints.count == 1)
    }
}
