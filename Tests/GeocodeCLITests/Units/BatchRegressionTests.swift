import Foundation
@testable import GeocodeCLI
import Testing

/// Inputs the batch-reader fuzzers (`Tests/Fuzz/Harnesses/csv.swift` and friends) found, kept byte for
/// byte so the bugs stay fixed. The same inputs are in `Tests/Fuzz/Corpus`, so fuzz runs replay them.
@Suite struct BatchRegressionTests {
    func input(_ bytes: [UInt8], readSize: Int) throws -> ByteInput {
        let file = try TemporaryDirectory.shared.newFile("regression")
        try Data(bytes).write(to: file)
        let fd = open(file.path, O_RDONLY)
        #expect(fd >= 0)
        return ByteInput(fd: fd, name: "test", readSize: readSize)
    }

    /// fuzz-csv: whether CSV output uses CRLF was decided from the byte after the header's CR, but when a
    /// read ended right after the CR that byte was not read yet, so the answer was "LF". The same file
    /// gave CRLF rows read in one go and LF rows read in small pieces (as from a pipe). Found as: the
    /// golden quoting.csv with its BOM damaged, read 1 byte at a time.
    @Test(arguments: [1, 2, 3, 7, 1 << 20])
    func crlfIsDetectedWhateverTheReadSize(readSize: Int) throws {
        let found = [UInt8](Data(base64Encoded: "AO+7u2lkLG5hbWUsbm90ZSxsYXQsbG9uDQoxLCJTbWl0aCwgSm8iLCJzYWlkICIiaGkiIiIsNDUuNSwxMi4yNQ0KMiwidHdvDQpsaW5lcyIsImEKYiIsLTEyLjUsMTA1LjdTZXF1ZW5jZeaWhywiIiwwLDANCg0KNCwidHJhaWxpbmcgc3BhY2UgIix4LDg5Ljk5OSwzOS45OTkNCjUsb2NlYW4sLDEwLC0zMA==")!).dropFirst()   // the harness's options byte
        var options = BatchOptions()
        options.readSize = readSize
        let setup = try BatchSetup.prepare(input: try input(Array(found), readSize: readSize), format: .csv,
                                           outputFormat: .csv, options: options)
        #expect(setup.schema.lineEnding == [0x0D, 0x0A])

        for (text, crlf) in [("lat,lon\r\n1,2\r\n", true), ("lat,lon\r3,4\n", false), ("lat,lon\r", false), ("lat,lon\n", false)] {
            let framer = CSVFramer(input: try input(Array(text.utf8), readSize: readSize), delimiter: UInt8(ascii: ","))
            _ = try framer.nextChunk(targetBytes: 1, maxRecords: 1)
            #expect(framer.usesCRLF == crlf, "\(text.debugDescription), read size \(readSize)")
        }
    }

    /// fuzz-geojson (AddressSanitizer: heap-buffer-overflow): the collection's "type" was
    /// `"FeatureColl\u{"`. The framer only skips member values, so the \u escape, cut off by the closing
    /// quote, was decoded anyway and read two bytes past the end of the copied value. Now the decoder
    /// never reads outside the literal (a cut-off escape is U+FFFD) and the collection is refused.
    @Test func cutOffUnicodeEscapeInACollectionMember() throws {
        let found = [UInt8](Data(base64Encoded: "AHsKICAidHlwZSI6ICJGZWF0dXJlQ29sbFx1eyJ0eXBlIjoiRmVhdHVyZUNvbGxlY3Rpb24iLCJmZWF0dXJlcyI6W2F0dXI6ZSBD")!).dropFirst()   // the harness's options byte
        #expect(throws: CLIError.self) {
            _ = try BatchSetup.prepare(input: try input(Array(found), readSize: 1 << 20), format: .geojson,
                                       outputFormat: .geojson, options: BatchOptions())
        }
        for literal in [#""ab\u""#, #""ab\u1""#, #""ab\u12""#, #""ab\u123""#] {
            let raw = Array(literal.utf8)
            let decoded = raw.withUnsafeBufferPointer { JSONScanner.decodeString($0, 0..<raw.count) }
            #expect(decoded == Array("ab\u{FFFD}".utf8), "\(literal)")
        }
        let whole = Array(#""ab\u0041""#.utf8)
        #expect(whole.withUnsafeBufferPointer { JSONScanner.decodeString($0, 0..<whole.count) } == Array("abA".utf8))
    }

    /// fuzz-geojson: a collection giving "type" twice, "Feature" then "FeatureCollection". The reader
    /// checks every "type" and refuses it; the harness's reference (JSONSerialization) keeps the last and
    /// called it valid: the harness now leaves repeated members aside. Looking at them showed a real
    /// gap: a second "features" array was passed through unread, so a reader that keeps the last of a
    /// repeated member (JSONSerialization, Python's json) saw the input's features, not the geocoded ones.
    /// It is refused now.
    @Test func repeatedCollectionMembers() throws {
        let found = [UInt8](Data(base64Encoded: "AHsKICAgInR5cGUiOiAiRmVhdHVyZSIsCiAgICAgICJpZCI6ICJhIiwKICAgICAgImdlb21ldHJ5IjogeyAidHlwZSI6ICJQb2ludCIsICJjb29yZGluYXRlcyI6IFsxMi4yNSwgNDUuNV0gfSwKICJ0eXBlIjogIkZlYXR1cmVDb2xsZWN0aW9uIiwKICAibmFtZSI6ICJzdG9wcyIsCiAgImNycyI6IHsgInR5cGUiOiAibmFtZSIsICJwcm9wZXJ0aWVzIjogeyAibmFtZSI6ICJ1cm46b2djOmRlZjpjcnM6T0dDOjIuMzpDUlM4NCIgfSB9LAogICJmZWF0dXJlcyI6IFsKICAgIHsKICAgICAgInR5cGUiOiAiRmVhdHVyZSIsCiAgICAgICJpZCI6ICJhIiwKICAgICAgImdlb21ldHJ5IjogeyAidHlwZSI6ICJQb2ludCIsICJjb29yZGluYXRlcyI6IFsxMi4yNSwgNDUuNV0gfSwKICAgIH0KICBdLAogICJiYm94IjogWy0zMCwgLTEyLjUsIDEwNS43NSwgNDUuNV0KfQo=")!).dropFirst()   // the harness's options byte
        let twoFeatures = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}],"features":[]}"#
        for (text, message) in [(Array(found), #"the top-level object gives "type" twice: "Feature", then "FeatureCollection""#),
                                (Array(twoFeatures.utf8), #"the FeatureCollection has a second "features" member"#)] {
            let error = #expect(throws: CLIError.self) {
                let setup = try BatchSetup.prepare(input: try input(text, readSize: 1 << 20), format: .geojson,
                                                   outputFormat: .geojson, options: BatchOptions())
                while try setup.framer.nextChunk(targetBytes: 1 << 16, maxRecords: 1024) != nil {}
            }
            #expect("\(String(describing: error))".contains(message), "\(String(describing: error))")
        }
    }
}
