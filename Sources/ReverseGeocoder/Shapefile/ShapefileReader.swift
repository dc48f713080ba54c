import CShapelib
import Foundation

/// Reads polygon records and their attributes from one shapefile through shapelib.
///
/// The only place that talks to shapelib. Files are structurally validated first
/// (``ShapefileValidator``), so shapelib never sees offsets that point outside the files.
final class ShapefileReader {
    let url: URL
    let recordCount: Int
    /// DBF field names, as written in the file.
    let fieldNames: [String]
    /// The encoding attributes are decoded with (from `.cpg`, else the DBF language driver, else UTF-8).
    let encodingName: String
    private let shp: SHPHandle
    private let dbf: DBFHandle
    private let decoder: TextDecoder

    var fileName: String { url.lastPathComponent }
    /// Largest |x| and |y| accepted: ±360° of longitude (files in 0...360 exist), the poles plus rounding.
    static let longitudeLimit = 360.0, latitudeLimit = 90.000001
    /// Coordinates smaller than this in magnitude are read as 0 (see `rings(record:)`).
    static let noise = 1e-12
    private var dbfName: String { url.deletingPathExtension().appendingPathExtension("dbf").lastPathComponent }

    /// Validates the files (``ShapefileValidator``) and opens them.
    convenience init(url: URL) throws {
        let base = url.deletingPathExtension()
        let shpURL = base.appendingPathExtension("shp")
        let shxURL = base.appendingPathExtension("shx")
        let dbfURL = base.appendingPathExtension("dbf")
        for f in [shpURL, shxURL, dbfURL] where !FileManager.default.fileExists(atPath: f.path) {
            throw GeocoderError.cannotOpen(file: f.lastPathComponent, reason: "no such file")
        }
        let checked = try ShapefileValidator.validate(shp: shpURL, shx: shxURL, dbf: dbfURL)

        // Encoding: the .cpg file wins; then the language driver byte; then UTF-8 (what most tools write).
        let cpg = base.appendingPathExtension("cpg")
        let (encoding, name): (TextDecoder.Encoding, String)
        if let data = FileManager.default.contents(atPath: cpg.path) {
            (encoding, name) = TextDecoder.encoding(cpg: String(decoding: data, as: UTF8.self))
        } else if let ldid = ShapefileValidator.languageDriver(dbf: dbfURL),
                  let declared = TextDecoder.encoding(languageDriver: ldid) {
            (encoding, name) = declared
        } else {
            (encoding, name) = (.utf8, "UTF-8")
        }
        try self.init(url: url, recordCount: checked.recordCount, encoding: encoding, encodingName: name)
    }

    /// Another reader of the same files, for another thread: shapelib's handles and an iconv decoder keep
    /// state of their own (a file position, a shift state), so threads cannot share one. The files were
    /// validated by the reader it is made from, and are not read whole again.
    func sibling() throws -> ShapefileReader {
        try ShapefileReader(url: url, recordCount: recordCount, encoding: decoder.encoding, encodingName: encodingName)
    }

    /// Opens validated files: `recordCount` and the encoding are what the validation and the `.cpg` found.
    private init(url: URL, recordCount: Int, encoding: TextDecoder.Encoding, encodingName name: String) throws {
        self.url = url
        self.recordCount = recordCount
        let base = url.deletingPathExtension()
        let shpURL = base.appendingPathExtension("shp")
        let dbfURL = base.appendingPathExtension("dbf")
        decoder = try TextDecoder(encoding: encoding, name: name, file: base.appendingPathExtension("cpg").lastPathComponent)
        encodingName = name

        guard let shp = SHPOpen(shpURL.path, "rb") else {
            throw GeocoderError.cannotOpen(file: shpURL.lastPathComponent, reason: "shapelib could not open it")
        }
        guard let dbf = DBFOpen(dbfURL.path, "rb") else {
            SHPClose(shp)
            throw GeocoderError.cannotOpen(file: dbfURL.lastPathComponent, reason: "shapelib could not open it")
        }
        self.shp = shp
        self.dbf = dbf
        var names: [String] = []
        var buffer = [CChar](repeating: 0, count: 64)
        for i in 0..<DBFGetFieldCount(dbf) {
            var width: Int32 = 0, decimals: Int32 = 0
            _ = DBFGetFieldInfo(dbf, i, &buffer, &width, &decimals)
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            names.append(String(decoding: bytes, as: UTF8.self))
        }
        fieldNames = names
    }

    deinit {
        SHPClose(shp)
        DBFClose(dbf)
    }

    /// Index of a field by name, ignoring case (shapefile tools disagree on case).
    func fieldIndex(_ name: String) -> Int? {
        fieldNames.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A field's value as text, trimmed; nil when NULL or empty. Undecodable bytes throw.
    func string(record: Int, field: Int) throws -> String? {
        if DBFIsAttributeNULL(dbf, Int32(record), Int32(field)) != 0 { return nil }
        guard let raw = DBFReadStringAttribute(dbf, Int32(record), Int32(field)) else { return nil }
        // Trim ASCII blanks on the bytes (DBF pads with spaces); Foundation's trimming was 6 % of load.
        var start = 0, end = strlen(raw)
        while start < end && (raw[start] == 0x20 || raw[start] == 0x09) { start += 1 }
        while end > start && (raw[end - 1] == 0x20 || raw[end - 1] == 0x09) { end -= 1 }
        if start == end { return nil }
        guard let text = decoder.decode(raw + start, count: end - start) else {
            throw GeocoderError.undecodableText(file: dbfName, record: record, field: fieldNames[field], encoding: decoder.name)
        }
        return text
    }

    /// The rings of a record as interleaved x, y arrays (one per shapefile part); nil for a NULL shape.
    func rings(record: Int) throws -> [[Double]]? {
        guard let object = SHPReadObject(shp, Int32(record)) else {
            throw GeocoderError.corrupt(file: fileName, record: record, reason: "shapelib could not read the record")
        }
        defer { SHPDestroyObject(object) }
        let o = object.pointee
        if o.nSHPType == 0 || o.nVertices == 0 { return nil }
        let vertices = Int(o.nVertices)
        let parts = max(1, Int(o.nParts))
        var rings: [[Double]] = []
        rings.reserveCapacity(parts)
        for p in 0..<parts {
            let start = o.nParts == 0 ? 0 : Int(o.panPartStart[p])
            let end = p + 1 < Int(o.nParts) ? Int(o.panPartStart[p + 1]) : vertices
            guard start <= end, end <= vertices else {
                throw GeocoderError.corrupt(file: fileName, record: record, reason: "part \(p) out of range")
            }
            var ring = [Double]()
            ring.reserveCapacity(2 * (end - start))
            for v in start..<end {
                var x = o.padfX[v], y = o.padfY[v]
                guard x.isFinite, y.isFinite else {
                    throw GeocoderError.corrupt(file: fileName, record: record, reason: "non-finite coordinate at vertex \(v)")
                }
                // Longitude/latitude only (0...360 longitudes allowed). A vertex far outside is garbage or
                // projected metres without a .prj, and would make the cell quadtree subdivide without end.
                guard abs(x) <= Self.longitudeLimit, abs(y) <= Self.latitudeLimit else {
                    throw GeocoderError.corrupt(file: fileName, record: record,
                                                reason: "vertex \(v) (\(x), \(y)) is not a longitude/latitude (projected coordinates without a .prj?)")
                }
                // Below a picodegree (0.1 µm) a coordinate is rounding noise or garbage, and is read as 0: GEOS's
                // predicates lose their exactness when products of such values underflow.
                if abs(x) < Self.noise { x = 0 }
                if abs(y) < Self.noise { y = 0 }
                ring.append(x)
                ring.append(y)
            }
            rings.append(ring)
        }
        return rings
    }
}
