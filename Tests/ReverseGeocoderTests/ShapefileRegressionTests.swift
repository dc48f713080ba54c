import Foundation
import Testing
@testable import ReverseGeocoder

/// Inputs the shapefile fuzzer (`Tests/Fuzz/Harnesses/shapefile.swift`) found, kept here byte for byte so
/// the bugs stay fixed. Each is in the harness's layout: one options byte, the .shp and .shx lengths
/// (UInt16, little-endian), the .shp, the .shx, then the .dbf. The same files are in
/// `Tests/Fuzz/Corpus/shapefile`, so every fuzz run replays them too.
struct ShapefileRegressionTests {
    /// Unpacks a fuzz input into `units.shp/.shx/.dbf` in a fresh directory; returns the .shp URL.
    func unpack(_ base64: String, name: String = #function) throws -> URL {
        let b = [UInt8](Data(base64Encoded: base64)!)
        let shpCount = Int(b[1]) | Int(b[2]) << 8, shxCount = Int(b[3]) | Int(b[4]) << 8
        let dir = TestShapefile.directory(name)
        let base = dir.appendingPathComponent("units")
        try Data(b[5..<(5 + shpCount)]).write(to: base.appendingPathExtension("shp"))
        try Data(b[(5 + shpCount)..<(5 + shpCount + shxCount)]).write(to: base.appendingPathExtension("shx"))
        try Data(b[(5 + shpCount + shxCount)...]).write(to: base.appendingPathExtension("dbf"))
        return base.appendingPathExtension("shp")
    }

    func load(_ shp: URL) throws {
        _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)])
    }

    /// A .shx whose header says 100 bytes (no records) while the file holds one record. The validator
    /// counted records by the file's size and let it through; shapelib counts by the header, so the load
    /// failed later with "shapelib could not read the record", which says nothing useful. Now the
    /// validator names the disagreement.
    @Test func shxHeaderLengthDisagreeingWithItsSize() throws {
        let shp = try unpack("Ce0AbAAAACcKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB26AMAAAUAAAAAAAAAAAAqQAAAAAAAAEpAAAAAAAAALEAAAAAAAIBKQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAEAFAAAAAAAAAAAAKkAAAAAAAABKQAAAAAAAACxAAAAAAACASkABAAAABQAAAAAAAAAAAAAAAAAqQAAAAAAAAEoIQAAAAAAAACpAAAAAAACASkAAAAAAAAAsQAAAAAAAgEpAAAAAAAAALEAAAAAAAABKQAAAAAAAACpAAAAAAAAASkAAACcKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAy6AMAAAUAAAAAAAAAAAAqQAAAAAAAAEpAAAAAAAAALEAAAAAAAIBKQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMgAAAEADXwcaAQAAAGEAMQAAAAAAAAAAAAAAAAAAAAAAAFcAAE5BTUUAAAAAAAAAQwAAAAAYAAAAAAAAAAAAAAAAAAAAQ09ERQAAAAAAAABDAAAAABgAAAAAAAAAAAAAAAAAAAANIEJlcmxpbiDDvCAgICAgICAgICAgICAgIERFLUJFICAgICAgICAgICAgICAgICAgIBo=")
        #expect(throws: GeocoderError.corrupt(file: "units.shx", record: nil,
                                              reason: "header says 100 bytes (0 records), file has 108 (1 records)")) {
            try load(shp)
        }
    }
}
