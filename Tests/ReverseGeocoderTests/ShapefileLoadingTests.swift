import CShapelib
import Foundation
import Testing
@testable import ReverseGeocoder

/// Loading real shapefiles written by shapelib, including the ways real files go wrong.
struct ShapefileLoadingTests {
    typealias R = TestShapefile.Record
    func box(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [(Double, Double)] { TestShapefile.box(a, b, c, d) }
    func ccw(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [(Double, Double)] { TestShapefile.boxCCW(a, b, c, d) }

    func geocoder(_ records: [R], fields: [String] = ["NAME", "CODE"], cpg: String? = "UTF-8",
                  languageDriver: UInt8? = nil, prj: String? = nil, name: String = #function) throws -> (ReverseGeocoder, URL) {
        let dir = TestShapefile.directory(name)
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: fields, records: records,
                                      cpg: cpg, prj: prj, languageDriver: languageDriver)
        return (try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)]), shp)
    }

    func name(_ g: ReverseGeocoder, _ lat: Double, _ lon: Double) -> String? {
        try! g.placemark(latitude: lat, longitude: lon)?.administrativeArea
    }

    @Test func holesAndMultipart() throws {
        // A: box 0..10 with a hole 4..6; B: the island filling the hole, plus a second part 20..22.
        let (g, _) = try geocoder([
            R(rings: [box(0, 0, 10, 10), ccw(4, 4, 6, 6)], ["NAME": "A", "CODE": "1"]),
            R(rings: [box(4, 4, 6, 6), box(20, 20, 22, 22)], ["NAME": "B", "CODE": "2"]),
        ])
        #expect(name(g, 1, 1) == "A")
        #expect(name(g, 5, 5) == "B")         // inside A's hole → the island
        #expect(name(g, 21, 21) == "B")       // B's second part
        #expect(name(g, 15, 15) == nil)
        #expect(g.datasets[0].layers[0].polygons == 3)
        #expect(g.datasets[0].layers[0].windingCorrected == 0)
    }

    @Test func wrongWindingIsRepairedByNesting() throws {
        // Every ring reversed: the shell counter-clockwise, the hole clockwise. The hole must stay a hole.
        let (g, _) = try geocoder([R(rings: [ccw(0, 0, 10, 10), box(4, 4, 6, 6)], ["NAME": "A", "CODE": "1"])])
        #expect(name(g, 1, 1) == "A")
        #expect(name(g, 5, 5) == nil)
        #expect(g.datasets[0].layers[0].windingCorrected == 2)
    }

    @Test func orphanHoleBecomesShell() throws {
        // A counter-clockwise ring contained by nothing is an outer ring, not a lost hole.
        let (g, _) = try geocoder([R(rings: [box(0, 0, 2, 2), ccw(5, 5, 7, 7)], ["NAME": "A", "CODE": "1"])])
        #expect(name(g, 6, 6) == "A")
        #expect(name(g, 1, 1) == "A")
    }

    @Test func bowTieIsRepairedAndCounted() throws {
        // A self-intersecting "bow-tie": GEOS finds it invalid, MakeValid turns it into two triangles.
        let bowtie: [(Double, Double)] = [(0, 0), (0, 10), (10, 0), (10, 10), (0, 0)]
        let (g, _) = try geocoder([R(rings: [bowtie], ["NAME": "Tie", "CODE": "1"])])
        #expect(g.datasets[0].layers[0].repairedPolygons == 1)
        #expect(g.datasets[0].layers[0].polygons == 2)
        #expect(name(g, 5, 1) == "Tie")   // lower triangle (x in 1..9 near y=1 ... inside)
        #expect(name(g, 5, 9) == "Tie")   // upper triangle
        #expect(name(g, 1, 5) == nil)     // the pinched sides are outside
    }

    @Test func antimeridianPolygonAnswersOnBothSides() throws {
        // A Fiji-like ring from 177°E across 180° to 178°W, written with raw longitudes (jump at 180).
        let ring: [(Double, Double)] = [(177, -18), (177, -16), (-178, -16), (-178, -18), (177, -18)]
        // And a normal polygon split at 180 (how Natural Earth stores Chukotka): two parts.
        let split = [box(170, 65, 180, 70), box(-180, 65, -170, 70)]
        let (g, _) = try geocoder([R(rings: [ring], ["NAME": "Fiji", "CODE": "FJ"]),
                                   R(rings: split, ["NAME": "Chukotka", "CODE": "RU-CHU"])])
        #expect(name(g, -17, 179.5) == "Fiji")
        #expect(name(g, -17, -179.5) == "Fiji")
        #expect(name(g, -17, 180) == "Fiji")
        #expect(name(g, -17, -180) == "Fiji")
        #expect(name(g, -17, -177) == nil)
        #expect(name(g, -17, 176) == nil)
        #expect(name(g, 67, 175) == "Chukotka")
        #expect(name(g, 67, -175) == "Chukotka")
        #expect(name(g, 67, 180) == "Chukotka")
        #expect(g.datasets[0].layers[0].antimeridianRecords == 1)
    }

    // GBK bytes checked with Python's codec: "北京市" = b1b1bea9cad0, "东城区" = b6abb3c7c7f8.
    static let beijingGBK: [UInt8] = [0xB1, 0xB1, 0xBE, 0xA9, 0xCA, 0xD0]
    static let dongchengGBK: [UInt8] = [0xB6, 0xAB, 0xB3, 0xC7, 0xC7, 0xF8]

    @Test(arguments: ["GBK", "CP936", "936"])
    func gbkAttributesFromCPG(cpg: String) throws {
        let (g, _) = try geocoder([R(rings: [box(0, 0, 1, 1)], ["CODE": "110000"], raw: ["NAME": Self.beijingGBK])],
                                  cpg: cpg, name: "gbk\(cpg)")
        #expect(name(g, 0.5, 0.5) == "北京市")
        #expect(g.datasets[0].layers[0].encoding == "GBK")
    }

    @Test func gbkAttributesFromLanguageDriver() throws {
        // No .cpg: the DBF language driver byte 0x4D says code page 936.
        let (g, _) = try geocoder([R(rings: [box(0, 0, 1, 1)], ["CODE": "1"], raw: ["NAME": Self.dongchengGBK])],
                                  cpg: nil, languageDriver: 0x4D)
        #expect(name(g, 0.5, 0.5) == "东城区")
    }

    @Test func latin1Attributes() throws {
        // "Köln" in ISO-8859-1: ö = 0xF6.
        let (g, _) = try geocoder([R(rings: [box(0, 0, 1, 1)], ["CODE": "1"], raw: ["NAME": [0x4B, 0xF6, 0x6C, 0x6E]])],
                                  cpg: "ISO-8859-1")
        #expect(name(g, 0.5, 0.5) == "Köln")
    }

    @Test func undecodableBytesNameFileRecordAndField() throws {
        // GBK bytes in a file that declares UTF-8: an error, not mojibake.
        #expect(throws: GeocoderError.undecodableText(file: "units.dbf", record: 1, field: "NAME", encoding: "UTF-8")) {
            _ = try geocoder([R(rings: [box(0, 0, 1, 1)], ["NAME": "ok", "CODE": "1"]),
                              R(rings: [box(2, 2, 3, 3)], ["CODE": "2"], raw: ["NAME": Self.beijingGBK])])
        }
    }

    @Test func nullShapesAreSkippedAndCounted() throws {
        let (g, _) = try geocoder([R(rings: nil, ["NAME": "Nothing", "CODE": "0"]),
                                   R(rings: [box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"]),
                                   R(rings: [[(5, 5), (5, 6), (5, 5)]], ["NAME": "Degenerate", "CODE": "2"])])
        let layer = g.datasets[0].layers[0]
        #expect(layer.records == 3 && layer.units == 1 && layer.nullShapes == 1 && layer.emptyRecords == 1)
        #expect(name(g, 0.5, 0.5) == "A")
    }

    @Test func truncatedShpIsAClearError() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"],
                                      records: (0..<5).map { R(rings: [box(Double($0), 0, Double($0) + 1, 1)], ["NAME": "u\($0)", "CODE": "\($0)"]) })
        let size = try FileManager.default.attributesOfItem(atPath: shp.path)[.size] as! Int
        try FileHandle(forWritingTo: shp).truncate(atOffset: UInt64(size - 40))
        let error = #expect(throws: GeocoderError.self) {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)])
        }
        guard case .corrupt(let file, _, let reason)? = error else { Issue.record("wrong error \(String(describing: error))"); return }
        #expect(file == "units.shp")
        #expect(reason.contains("truncated"))
    }

    @Test func truncatedDbfNamesTheMissingRecord() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"],
                                      records: (0..<5).map { R(rings: [box(Double($0), 0, Double($0) + 1, 1)], ["NAME": "u\($0)", "CODE": "\($0)"]) })
        let dbf = shp.deletingPathExtension().appendingPathExtension("dbf")
        let size = try FileManager.default.attributesOfItem(atPath: dbf.path)[.size] as! Int
        try FileHandle(forWritingTo: dbf).truncate(atOffset: UInt64(size - 100))
        #expect(throws: GeocoderError.corrupt(file: "units.dbf", record: 3, reason: "truncated: header says 5 records, file holds 3")) {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)])
        }
    }

    @Test func mismatchedRecordCounts() throws {
        let dir = TestShapefile.directory()
        let a = TestShapefile.write(dir.appendingPathComponent("a"), fields: ["NAME", "CODE"],
                                    records: [R(rings: [box(0, 0, 1, 1)], ["NAME": "x", "CODE": "1"])])
        let b = TestShapefile.write(dir.appendingPathComponent("b"), fields: ["NAME", "CODE"],
                                    records: [R(rings: [box(0, 0, 1, 1)], ["NAME": "x", "CODE": "1"]),
                                              R(rings: [box(2, 2, 3, 3)], ["NAME": "y", "CODE": "2"])])
        // a.shp with b.dbf: 1 shape, 2 attribute rows.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("a.dbf"))
        try FileManager.default.copyItem(at: dir.appendingPathComponent("b.dbf"), to: dir.appendingPathComponent("a.dbf"))
        _ = b
        #expect(throws: GeocoderError.recordCountMismatch(shp: "a.shp", shpCount: 1, dbf: "a.dbf", dbfCount: 2)) {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: a), nil)])
        }
    }

    @Test func corruptPartIndexIsCaughtBeforeShapelib() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"],
                                      records: [R(rings: [box(0, 0, 1, 1), box(2, 2, 3, 3)], ["NAME": "x", "CODE": "1"])])
        // Record 0's content starts at 108; its second part index lives at 108 + 48. Point it past the end.
        let h = try FileHandle(forUpdating: shp)
        try h.seek(toOffset: 108 + 48)
        h.write(Data([0xFF, 0xFF, 0x00, 0x00]))
        try h.close()
        let error = #expect(throws: GeocoderError.self) {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)])
        }
        guard case .corrupt("units.shp", 0, _)? = error else { Issue.record("wrong error \(String(describing: error))"); return }
    }

    @Test func pointShapefileIsRefused() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("cities"), fields: ["NAME", "CODE"],
                                      records: [R(rings: [[(1, 1)]], ["NAME": "x", "CODE": "1"])], shapeType: SHPT_POINT)
        #expect(throws: GeocoderError.notPolygonShapefile(file: "cities.shp", shapeType: "Point")) {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)])
        }
    }

    @Test func projectedPrjIsRefusedNamingTheFile() throws {
        let utm = #"PROJCS["WGS 84 / UTM zone 50N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["metre",1]]"#
        #expect(throws: GeocoderError.projectedCoordinateSystem(file: "units.prj", name: "WGS 84 / UTM zone 50N")) {
            _ = try geocoder([R(rings: [box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"])], prj: utm)
        }
    }

    @Test func geographicPrjOnAnotherDatumIsAWarning() throws {
        let wgs = #"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
        let (g1, _) = try geocoder([R(rings: [box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"])], prj: wgs, name: "wgs")
        #expect(g1.datasets[0].layers[0].warnings.isEmpty)
        let beijing54 = #"GEOGCS["GCS_Beijing_1954",DATUM["D_Beijing_1954",SPHEROID["Krasovsky_1940",6378245.0,298.3]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
        let (g2, _) = try geocoder([R(rings: [box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"])], prj: beijing54, name: "bj54")
        #expect(g2.datasets[0].layers[0].warnings.first?.contains("D_Beijing_1954") == true)
    }

    @Test func missingFieldListsWhatTheFileHas() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"],
                                      records: [R(rings: [box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"])])
        let m = TestShapefile.manifest("t", file: shp, fields: [.province: .init(name: ["NAME_1"], code: ["CODE"])])
        #expect(throws: GeocoderError.missingField(file: "units.dbf", field: "NAME_1", available: ["NAME", "CODE"])) {
            _ = try ReverseGeocoder(manifests: [(m, nil)])
        }
    }

    @Test func missingFileIsAClearError() throws {
        let m = TestShapefile.manifest("t", file: URL(fileURLWithPath: "/nonexistent/units.shp"))
        #expect(throws: GeocoderError.cannotOpen(file: "units.shp", reason: "no such file")) {
            _ = try ReverseGeocoder(manifests: [(m, nil)])
        }
    }
}
