import CShapelib
import Foundation
import TestSupport
@testable import ReverseGeocoder

/// Writes real shapefiles with shapelib (SHPCreate/DBFCreate) for the tests: the loader reads exactly
/// what a GIS tool would have written, including the mistakes we want it to survive.
struct TestShapefile {
    /// One record: rings as (x, y) lists (nil = NULL shape) and attribute values by field name.
    struct Record {
        var rings: [[(Double, Double)]]?
        var attributes: [String: String]
        /// Raw attribute bytes (for encoding tests), by field name; wins over `attributes`.
        var rawAttributes: [String: [UInt8]] = [:]
        init(rings: [[(Double, Double)]]?, _ attributes: [String: String] = [:], raw: [String: [UInt8]] = [:]) {
            self.rings = rings
            self.attributes = attributes
            self.rawAttributes = raw
        }
    }

    /// Writes `<base>.shp/.shx/.dbf` (+ `.cpg` when given, `.prj` when given). Returns the `.shp` URL.
    @discardableResult
    static func write(_ base: URL, fields: [String], records: [Record], shapeType: Int32 = SHPT_POLYGON,
                      cpg: String? = "UTF-8", prj: String? = nil, languageDriver: UInt8? = nil) -> URL {
        let path = base.path
        let shp = SHPCreate(path, shapeType)!
        let dbf = DBFCreate(path + ".dbf")!
        for f in fields { DBFAddField(dbf, f, FTString, 40, 0) }
        for (i, r) in records.enumerated() {
            var object: UnsafeMutablePointer<SHPObject>
            if let rings = r.rings {
                var starts: [Int32] = [], xs: [Double] = [], ys: [Double] = []
                for ring in rings {
                    starts.append(Int32(xs.count))
                    for (x, y) in ring { xs.append(x); ys.append(y) }
                }
                object = SHPCreateObject(shapeType, -1, Int32(rings.count), &starts, nil, Int32(xs.count), &xs, &ys, nil, nil)
            } else {
                object = SHPCreateSimpleObject(SHPT_NULL, 0, nil, nil, nil)
            }
            SHPWriteObject(shp, -1, object)
            SHPDestroyObject(object)
            for (j, f) in fields.enumerated() {
                if var bytes = r.rawAttributes[f] {
                    bytes.append(0)
                    bytes.withUnsafeBufferPointer { b in
                        b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                            _ = DBFWriteStringAttribute(dbf, Int32(i), Int32(j), $0)
                        }
                    }
                } else if let v = r.attributes[f] {
                    DBFWriteStringAttribute(dbf, Int32(i), Int32(j), v)
                } else {
                    DBFWriteNULLAttribute(dbf, Int32(i), Int32(j))
                }
            }
        }
        SHPClose(shp)
        DBFClose(dbf)
        if let ldid = languageDriver {
            let h = FileHandle(forUpdatingAtPath: path + ".dbf")!
            h.seek(toFileOffset: 29)
            h.write(Data([ldid]))
            try? h.close()
        }
        if let cpg { try! cpg.write(toFile: path + ".cpg", atomically: true, encoding: .utf8) }
        if let prj { try! prj.write(toFile: path + ".prj", atomically: true, encoding: .utf8) }
        return URL(fileURLWithPath: path + ".shp")
    }

    /// A fresh temporary directory for one test.
    static func directory(_ name: String = #function) -> URL {
        // Removed at exit, or by a later run if this one was killed (ScratchDirectories).
        ScratchDirectories.make(prefix: "rg-tests", suffix: "\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))")
    }

    /// Axis-aligned box ring, clockwise (a shell by the shapefile spec).
    static func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [(Double, Double)] {
        [(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)]
    }

    /// The same box counter-clockwise (a hole by the spec).
    static func boxCCW(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [(Double, Double)] {
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    }

    /// A one-layer manifest with name/code fields for one level.
    static func manifest(_ name: String, file: URL, level: AdminLevel = .province, datum: Datum = .wgs84,
                         priority: Int = 100, fields: [AdminLevel: DatasetManifest.Fields]? = nil,
                         constants: [AdminLevel: DatasetManifest.Unit] = [:], municipalities: [String] = []) -> DatasetManifest {
        DatasetManifest(name: name, datum: datum, priority: priority, constants: constants, municipalityCodes: municipalities,
                        layers: [.init(file: file.path, level: level,
                                       fields: fields ?? [level: .init(name: ["NAME"], code: ["CODE"])])])
    }
}
