// Writes the seed corpus of the shapefile harness: small shapefiles written by shapelib itself (as GIS
// tools write them), packed in the harness's input layout. Run by Tools/make_shapefile_seeds.sh.
import CShapelib
import Foundation

let out = URL(fileURLWithPath: CommandLine.arguments[1])
let tmp = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shp-seeds-\(getpid())")
try! FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
try! FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

typealias Ring = [(Double, Double)]
func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Ring { [(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)] }
func ccw(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Ring { Array(box(x0, y0, x1, y1).reversed()) }

/// rings nil = NULL shape; attributes are raw bytes per field.
func seed(_ name: String, type: Int32 = SHPT_POLYGON, options: UInt8 = 1, fields: [String] = ["NAME", "CODE"],
          _ records: [(rings: [Ring]?, values: [[UInt8]])], ldid: UInt8? = nil) {
    let path = tmp.appendingPathComponent(name).path
    let shp = SHPCreate(path, type)!, dbf = DBFCreate(path + ".dbf")!
    for f in fields { DBFAddField(dbf, f, FTString, 24, 0) }
    for (i, r) in records.enumerated() {
        let object: UnsafeMutablePointer<SHPObject>
        if let rings = r.rings {
            var starts: [Int32] = [], xs: [Double] = [], ys: [Double] = [], zs: [Double] = [], ms: [Double] = []
            for ring in rings {
                starts.append(Int32(xs.count))
                for (x, y) in ring { xs.append(x); ys.append(y); zs.append(Double(xs.count)); ms.append(-1) }
            }
            object = SHPCreateObject(type, -1, Int32(rings.count), &starts, nil, Int32(xs.count), &xs, &ys, &zs, &ms)
        } else {
            object = SHPCreateSimpleObject(SHPT_NULL, 0, nil, nil, nil)
        }
        SHPWriteObject(shp, -1, object)
        SHPDestroyObject(object)
        for (j, v) in r.values.enumerated() where j < fields.count {
            var bytes = v.map { CChar(bitPattern: $0) } + [0]
            DBFWriteStringAttribute(dbf, Int32(i), Int32(j), &bytes)
        }
    }
    SHPClose(shp); DBFClose(dbf)
    var d = try! Data(contentsOf: URL(fileURLWithPath: path + ".dbf"))
    if let ldid { d[29] = ldid }
    let s = try! Data(contentsOf: URL(fileURLWithPath: path + ".shp")), x = try! Data(contentsOf: URL(fileURLWithPath: path + ".shx"))
    precondition(s.count <= 0xFFFF && x.count <= 0xFFFF)
    var packed = Data([options, UInt8(s.count & 0xFF), UInt8(s.count >> 8), UInt8(x.count & 0xFF), UInt8(x.count >> 8)])
    packed += s; packed += x; packed += d
    try! packed.write(to: out.appendingPathComponent(name))
}
func t(_ s: String) -> [UInt8] { Array(s.utf8) }

seed("boxes", [(rings: [box(0, 0, 10, 10)], values: [t("A"), t("1")]), (rings: [box(10, 0, 20, 10)], values: [t("B"), t("2")])])
seed("hole-and-island", options: 25, [(rings: [box(0, 0, 10, 10), ccw(4, 4, 6, 6)], values: [t("A"), t("1")]),
                        (rings: [box(4, 4, 6, 6), box(20, 20, 22, 22)], values: [t("B"), t("2")])])
seed("wrong-winding", [(rings: [ccw(0, 0, 10, 10), box(4, 4, 6, 6)], values: [t("A"), t("1")])])
seed("bowtie", [(rings: [[(0, 0), (0, 10), (10, 0), (10, 10), (0, 0)]], values: [t("Tie"), t("1")])])
seed("antimeridian", [(rings: [[(177, -18), (177, -16), (-178, -16), (-178, -18), (177, -18)]], values: [t("Fiji"), t("FJ")]),
                     (rings: [box(170, 65, 180, 70), box(-180, 65, -170, 70)], values: [t("Chukotka"), t("RU-CHU")])])
seed("null-and-degenerate", [(rings: nil, values: [t("Null"), t("0")]),
                            (rings: [[(0, 0), (1, 1), (0, 0)]], values: [t("Flat"), t("1")]),
                            (rings: [box(0, 0, 1, 1)], values: [t("Ok"), t("2")])])
seed("polygonz", type: SHPT_POLYGONZ, [(rings: [box(0, 0, 3, 3), ccw(1, 1, 2, 2)], values: [t("Z"), t("1")])])
seed("polygonm", type: SHPT_POLYGONM, [(rings: [box(-5, -5, 5, 5)], values: [t("M"), t("1")])])
seed("gbk-cpg", options: 2, [(rings: [box(116, 39, 117, 40)], values: [[0xB1, 0xB1, 0xBE, 0xA9], t("110000")])])
seed("gbk-ldid", options: 0, [(rings: [box(116, 39, 117, 40)], values: [[0xB1, 0xB1, 0xBE, 0xA9], t("110000")])], ldid: 0x4D)
seed("latin1", options: 4, [(rings: [box(2, 48, 3, 49)], values: [[0x49, 0x6C, 0x65, 0x2D, 0x64, 0x65, 0x2D, 0x46, 0x72, 0x61, 0x6E, 0x63, 0xE9], t("FR-IDF")])])
seed("utf8-no-quadtree", options: 9, [(rings: [box(13, 52, 14, 53)], values: [t("Berlin ü"), t("DE-BE")])])
seed("no-fields", fields: [], [(rings: [box(0, 0, 1, 1)], values: [])])
try? FileManager.default.removeItem(at: tmp)
