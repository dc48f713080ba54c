import Foundation
import Testing
import ReverseGeocoder
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
}
