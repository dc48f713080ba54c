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

    /// One polygon with a vertex at (1.9e185, 1.9e185) (mutated bytes, as a damaged download has). It
    /// loaded, and the cell quadtree, whose edge test overflowed to infinity at such magnitudes, found
    /// every cell crossed and subdivided all of them to depth 20: the fuzzer stopped it at 2 GB. A vertex
    /// that is no longitude/latitude is now refused with the record named.
    @Test func vertexFarOutsideLongitudeLatitude() throws {
        let shp = try unpack("AmUCbAAAACcKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB26AMAAAUAAAAAAAAAAABdQAAAAAAAgENAAAAAAABAXUAAAAAAAABEQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAEAFAAAAAAAAAAAAXUAAAAAAAIBDQAAAAAAAQF1AAAAAAAAAREABAAAABQAAAAAAAAAAAAAAAABdQAAAAAAAgENAAAAAAAAAXUAAAAAAAABEQAAAAAAAQF1AAAAAAAAAREAAgeUAbAAAACcKAAAAAAAAAAAAAABmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmYAAAAAAAAAAAAAAAB26AMAAAUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA8D8AAAAAAADwPwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAbAAAAAADwPwAAAMwAAADwPwEAAAAFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPA/AAAAAAAA8D8AAAAAAADwPwAAAAAAAPA/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANugDAAAFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPA/AAAAAAAA8D8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADIAAAAAAABAz5FfBxoAAAAAIQABAAAAAAAAAAAAQF1AAAAAAACAQ0AAAAAAAAAAcmIAAAAAAAAAV11AAAAAAAAAAA0agENAAAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANugDAAAFAAAAAAAAAAAAXUAAAAAAAIBDQAAAAAAAQF1AAAAAAAAAREAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADIAAABAA18HGgEAAABhADEAAAAAAAAAAAAAAAAAAAAAAABXAABOQU1FAAAAAAAAAEMAAAAAGAAAAAAAAAAAAAAAAAAAAENPREUAAAAAAAAAQwAAAAAYAAAAAAAAAAAAAAAAAAAADSCxsb6pICAgICAgICAgICAgICAgICAgICAxMTAwMDAgICAgICAgICAgICAgICAgICAa")
        do {
            try load(shp)
            Issue.record("loaded a polygon with a vertex at 1.9e185")
        } catch let GeocoderError.corrupt(file, record, reason) {
            #expect(file == "units.shp" && record == 0)
            #expect(reason.hasPrefix("vertex 4 (1.903465781757089e+185, 1.9035985662552932e+185) is not a longitude/latitude"))
        }
    }

    /// The limits themselves: ±360° of longitude and the poles load; one step beyond is refused.
    @Test func longitudeLatitudeLimits() throws {
        let dir = TestShapefile.directory()
        let ok = TestShapefile.write(dir.appendingPathComponent("ok"), fields: ["NAME", "CODE"], records: [
            .init(rings: [[(300, -90), (300, 90), (360, 90), (360, -90), (300, -90)]], ["NAME": "East", "CODE": "1"]),
        ])
        try load(ok)
        let bad = TestShapefile.write(dir.appendingPathComponent("bad"), fields: ["NAME", "CODE"], records: [
            .init(rings: [[(0, 0), (0, 1), (500_000, 1), (0, 0)]], ["NAME": "Metres", "CODE": "1"]),
        ])
        #expect(throws: GeocoderError.self) { try load(bad) }
    }

    /// A record of two slivers whose coordinates are around 1e-309 (subnormal doubles) next to 170°E 65°N.
    /// GEOS found the sliver valid, gave a PointOnSurface for it, then said neither the R-tree path nor
    /// the quadtree's unit covered that point: its predicates lose exactness when products of such values
    /// underflow. Coordinates below a picodegree are now read as 0, so both rings are flat and dropped.
    @Test func subnormalCoordinatesAreReadAsZero() throws {
        let shp = try unpack("NDEDdAAAACcKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADk6AMAAAUAAAAAAAAAAIBmwAAAAAAAADLAAAAAAACAZkAAAAAAAIBRQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAEAFAAAAAAAAAABAZsAAAAAAAAA0wAAAAAAAIGZAAAAAAAAAMMABAAAABQAAAAAAAAAAAAAAACBmQAAAAAAAADLAAAAAAAAgZkAAAAAAAAAwwAAAAAAAQGbAAAAAAAAAMMAAAAAAAEBmwAAAAAAAADLAAAAAAAAgZkAAAAAAAAAywAAAAAIAAABqBQAAAAAAAAAAgGbAAAAAAABAUEAAAAAAAIBmQAAAAAAAgFFAAgAAAAoAAAAAAAAABQAAAAAAAAAAQGVAAAAAAABAUEAAAAAAAADsAGwAAAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAdugDAAAFAAAAAAAAAAAAXUAAAAAAAIBDQAAAAAAAQF1AAAAAAAAAREAAAAAAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAABABQAAAAAAAAAAAF1AAAAAAACAQ0AAAAAAAEBdQAAAAAAAAERAAQAAAAUAAAAAAEBlQAAAAAAAgFFAAAAAAACAZkAAAAAAAIBRQAAAAAAAgGZAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAF1AAAAAAACAQ0AAAAAAAABdQAAAAABAUEAAAAAAAEBlQAAAAAAAQFBAAAAAAACAZsAAAAAAAEBQQAAAAAAAgGbAAAAAAAAAMwAAAEADXwcaAQAAAGEAMQAAAAAAAAAAAAAAAAAAAAAAALP//7G+skUAAAAAAAAAQwAAAAAYAAAAAAAAAAAAAAAAAAAAQ09ERQAAAAAAAABDAAAAABgAAAAAAAAAAAAAAAAAAAANILGxvqkgICAgICBAUEAAAAAAAIBmwAAAICAgICAgMCAgICAgICAxMTAwMDEgICAgICAgIAAgIAAAQFBAICAgICAgICAaAAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAOugDAAAFAAAAAAAAAACAZsAAAAAAAAAywAAAAAAAgGZAAAAAAACAUUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADIAAABAAAAAdgAAAGoDXwcaAgAAAGEAMQAAAAAAAAAAAAAAAAAAAAAAAFcAAE5BTUUAAAAAAAAAQwAAAAAYAAAAAAAAAAAAAAAAAAAAQ09EFwAAAAAAAABDAAAAABgAAAAAAAAAAAAAAAAAAAANIEZpamng39/jICAgICAgICAgICAgICAgIEZKICAgICAgICAgICAgICAgICAgICAgICBDaHVrb3RrYSAgICAgICAgICAgICAgICBSVS1DSFUgICAgICAgICAgICAgICAgICAa")
        // The fuzzer also damaged the second field's name; the first, NAME, is enough.
        let manifest = TestShapefile.manifest("t", file: shp, fields: [.province: .init(name: ["NAME"])])
        let geocoder = try ReverseGeocoder(manifests: [(manifest, nil)])
        let layer = geocoder.datasets[0].layers[0]
        #expect(layer.records == 2 && layer.units == 1 && layer.emptyRecords == 1)
        // 3.65051179907331e-309, a subnormal: given by its bits, as a decimal literal below the normal range
        // makes the compiler warn that it underflows.
        let subnormal = Double(bitPattern: 0x0002_9fff_ffff_e052)
        #expect(subnormal.isSubnormal && subnormal.description == "3.65051179907331e-309")
        #expect(try geocoder.placemark(latitude: 1, longitude: subnormal) == nil)
        #expect(try geocoder.placemark(latitude: -17, longitude: 179.5) != nil)   // record 0, unharmed
        #expect(try ShapefileReader(url: shp).rings(record: 1)?[1] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 2.0000000000073057])
    }

    /// A polygon record claiming 2 parts and 0 points. The validator let "no points" through whatever
    /// the part count (a NULL-like record), shapelib refused to read it, and the load failed with
    /// "shapelib could not read the record". Now the validator names what is wrong.
    @Test func partsWithoutPoints() throws {
        let shp = try unpack("woACdAAAACcKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEO6AMAAAUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANkAAAAAAAAA2QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAGoFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACRAAAAAAAAAJEACAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAABAAAAagUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAJEAAAAAAAAAkQAIAAAAKAAAAAAAAAAUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAkQAAAAAAAACRAAAAAAAAAJEAAAAAAAAAkQAAAAAAAAAAAAAAAAAAAABhIAAAAAAAAEEAAAAAAAAAQQAAAAAIAAABqBQAAAAAAAAAAABBAAAAAAAAAEEAAAAAAAAA2QAAAAAAAADYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAIAAAAKAAAAAAAAAAUAAAAAAAAAAAAQQAAAAAAAABBAAAAAAAAAEEAAAAAAAAAYQAAAAAAAABhAAAAAAAAAGEAAAAAAAAAYQAAAAAAAABBAAAAAAAAAEEAAAAAAAAAQQAAAAAAAADRAAAAAAAAANEAAAAAAAAA0QAAAAAAAADZAAAAAAAAANkAAAAAAAAA2QAAAAAAAADZAAAAAAAAANEAAAAAAAAA0QAAAAAAAADRAAAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAOugDAAAFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADZAAAAAAAAANkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADIAAABqAAAAoAAAAGoDXwcaAgAAAGEAMQAAAAAAAAAAAAAAVwAATkFNRQAACAAAAABDAAAAABgAAAAAAAAAAAAAAAAAAABDT0RFAAAAAAAAAEMAAQAAGAAAAAAAAAAAAAAAAABERQAAAAAAAABDAAEAABgAAAAAAAAAAAAAAAAAAAANIEEgICAgICAgICAgICAgICAgICAgICAJIDEgICAgICAgICAgICAgICAgICAgICAgICBCICAgICAgICAgICAgIDIgICAgICAgICAgICAgICAgYSAgICAgICAa")
        #expect(throws: GeocoderError.corrupt(file: "units.shp", record: 0, reason: "2 parts but no points")) {
            try load(shp)
        }
    }
}
