// libFuzzer harness: a shapefile (.shp + .shx + .dbf, optionally .cpg) through the engine's loader:
// ShapefileValidator, ShapefileReader (shapelib), RingAssembler, GEOS repair, the indexes.
//
// Input layout (see `Packed`): 1 byte of options, two little-endian UInt16 lengths, the .shp bytes, the
// .shx bytes, and the rest is the .dbf. A custom mutator mutates one part at a time so the layout
// survives mutation. Options: bits 0-2 pick a .cpg (none, UTF-8, GBK, 1252, ISO-8859-1, BIG5, CP437,
// an unknown name); bits 3-4 the quadtree's cell size (1°, none, 10°, the default 0.05°).
//
// Invariants:
// - loading either succeeds or throws a GeocoderError (never a crash, a hang, or another error type);
// - nothing shapelib returns is made up: when the reader opens the files, every record's rings equal
//   what a reference reading of the .shp written here (from the ESRI spec, not from shapelib) finds at
//   the offsets the .shx gives, a NULL shape is NULL in both, a vertex that is not a longitude/latitude
//   is refused by both, and a reader that opens a file the
//   reference finds structurally broken is a bug; every attribute string is text that is really in
//   that record's bytes;
// - a loaded layer's statistics add up (units + nullShapes + emptyRecords == records, polygons = parts
//   in the index), every polygon is a non-empty GEOS-valid Polygon, and a point inside each polygon
//   (GEOS PointOnSurface) is answered by the layer.
import CGEOS
import Foundation
@testable import ReverseGeocoder

// MARK: - Input layout

struct Packed {
    var options: UInt8 = 0
    var shp: [UInt8] = []
    var shx: [UInt8] = []
    var dbf: [UInt8] = []

    init(options: UInt8, shp: [UInt8], shx: [UInt8], dbf: [UInt8]) {
        self.options = options; self.shp = shp; self.shx = shx; self.dbf = dbf
    }

    init(_ b: UnsafeBufferPointer<UInt8>) {
        guard b.count >= 5 else { dbf = Array(b); return }
        options = b[0]
        var at = 5
        let shpCount = min(Int(b[1]) | Int(b[2]) << 8, b.count - at)
        shp = Array(b[at..<(at + shpCount)]); at += shpCount
        let shxCount = min(Int(b[3]) | Int(b[4]) << 8, b.count - at)
        shx = Array(b[at..<(at + shxCount)]); at += shxCount
        dbf = Array(b[at...])
    }

    var bytes: [UInt8] {
        [options, UInt8(shp.count & 0xFF), UInt8(shp.count >> 8), UInt8(shx.count & 0xFF), UInt8(shx.count >> 8)] + shp + shx + dbf
    }
}

private let cpgChoices: [String?] = [nil, "UTF-8", "GBK", "1252", "ISO-8859-1", "BIG5", "437", "X-NO-SUCH-9"]

@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// Mutates one of the parts (or the options byte) with libFuzzer's own mutator, keeping the layout.
@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var p = Packed(UnsafeBufferPointer(start: data, count: size))
    let room = max(0, maxSize - 5 - p.shp.count - p.shx.count - p.dbf.count)
    func mutate(_ part: inout [UInt8], limit: Int) {
        let capacity = min(part.count + room, limit)
        guard capacity > 0 else { return }
        var buffer = part + [UInt8](repeating: 0, count: max(0, capacity - part.count))
        let n = buffer.withUnsafeMutableBufferPointer { LLVMFuzzerMutate($0.baseAddress!, part.count, capacity) }
        part = Array(buffer[0..<min(n, capacity)])
    }
    switch seed % 8 {
    case 0, 1, 2: mutate(&p.shp, limit: 0xFFFF)
    case 3: mutate(&p.shx, limit: 0xFFFF)
    case 4, 5: mutate(&p.dbf, limit: Int.max)
    case 6: p.options = UInt8(truncatingIfNeeded: seed >> 8)
    default:  // the whole thing, layout and all, now and then
        return LLVMFuzzerMutate(data, size, maxSize)
    }
    let out = p.bytes
    guard out.count <= maxSize else { return size }
    out.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: out.count) }
    return out.count
}

// MARK: - Reference reading of .shp/.shx (ESRI Shapefile Technical Description, July 1998)

private func be32(_ b: [UInt8], _ i: Int) -> Int { Int(Int32(bitPattern: UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]))) }
private func le32(_ b: [UInt8], _ i: Int) -> Int { Int(Int32(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)) }
private func le64(_ b: [UInt8], _ i: Int) -> Double {
    var v: UInt64 = 0
    for k in 0..<8 { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
    return Double(bitPattern: v)
}

enum ReferenceRecord: Equatable {
    case null
    case rings([[Double]])
    /// A vertex that is not finite or not a longitude/latitude (|x| > 360, |y| > 90): the record is refused.
    case notLongitudeLatitude
}

/// nil when the files are structurally broken (the reader must then refuse them).
private func referenceRecords(shp: [UInt8], shx: [UInt8]) -> [ReferenceRecord]? {
    guard shp.count >= 100, be32(shp, 0) == 9994, be32(shp, 24) * 2 <= shp.count else { return nil }
    let fileType = le32(shp, 32)
    guard [5, 15, 25].contains(fileType) else { return nil }
    // The .shx header's file length (in 16-bit words) is the file's length, as in the .shp.
    guard shx.count >= 100, be32(shx, 0) == 9994, (shx.count - 100) % 8 == 0, be32(shx, 24) * 2 == shx.count else { return nil }
    var records: [ReferenceRecord] = []
    for i in 0..<((shx.count - 100) / 8) {
        let offset = be32(shx, 100 + 8 * i) * 2, length = be32(shx, 104 + 8 * i) * 2
        guard offset >= 100, length >= 4, offset + 8 + length <= shp.count, be32(shp, offset + 4) * 2 == length else { return nil }
        let c = offset + 8
        let type = le32(shp, c)
        if type == 0 { records.append(.null); continue }
        guard type == fileType, length >= 44 else { return nil }
        let parts = le32(shp, c + 36), points = le32(shp, c + 40)
        guard parts >= 0, points >= 0, 44 + 4 * parts + 16 * points <= length else { return nil }
        // No points: NULL if it has no parts either; parts without points is a broken record.
        if points == 0 { if parts > 0 { return nil }; records.append(.null); continue }
        var starts: [Int] = []
        for p in 0..<parts { starts.append(le32(shp, c + 44 + 4 * p)) }
        if starts.isEmpty { starts = [0] }
        guard starts[0] == 0, zip(starts, starts.dropFirst()).allSatisfy({ $0 < $1 }), starts.last! < points else { return nil }
        let xy = c + 44 + 4 * parts
        var rings: [[Double]] = []
        var finite = true
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : points
            var ring: [Double] = []
            for v in start..<end {
                var x = le64(shp, xy + 16 * v), y = le64(shp, xy + 16 * v + 8)
                if !(abs(x) <= 360 && abs(y) <= 90.000001) { finite = false }
                // Sub-picodegree values are noise, read as 0 (GEOS's predicates underflow on them).
                if abs(x) < 1e-12 { x = 0 }
                if abs(y) < 1e-12 { y = 0 }
                ring.append(x); ring.append(y)
            }
            rings.append(ring)
        }
        records.append(finite ? .rings(rings) : .notLongitudeLatitude)
    }
    return records
}

/// The bytes of DBF record `r` (deletion flag included), by the dBase header alone.
private func dbfRecordBytes(_ dbf: [UInt8], _ r: Int) -> ArraySlice<UInt8> {
    guard dbf.count >= 12 else { return [] }
    let header = Int(dbf[8]) | Int(dbf[9]) << 8, length = Int(dbf[10]) | Int(dbf[11]) << 8
    let start = header + r * length
    guard start >= 0, start < dbf.count else { return [] }
    return dbf[start..<min(dbf.count, start + length)]
}

// MARK: - The harness

private let directory = scratchDirectory
private let base = directory.appendingPathComponent("units")

private func write(_ bytes: [UInt8], _ ext: String) {
    let url = base.appendingPathExtension(ext)
    if !FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) { violation("cannot write \(url.path)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Packed(bytes(data, size))
    write(input.shp, "shp"); write(input.shx, "shx"); write(input.dbf, "dbf")
    let cpgURL = base.appendingPathExtension("cpg")
    if let cpg = cpgChoices[Int(input.options & 7)] {
        write(Array(cpg.utf8), "cpg")
    } else {
        try? FileManager.default.removeItem(at: cpgURL)
    }
    let shpURL = base.appendingPathExtension("shp")
    let reference = referenceRecords(shp: input.shp, shx: input.shx)

    // 1. The reader against the reference.
    let reader: ShapefileReader
    do {
        reader = try ShapefileReader(url: shpURL)
    } catch is GeocoderError {
        return 0
    } catch {
        violation("ShapefileReader threw a \(type(of: error)), not a GeocoderError: \(error)")
    }
    guard let reference else { violation("the reader opened files the reference finds broken") }
    check(reader.recordCount == reference.count, "reader has \(reader.recordCount) records, reference \(reference.count)")
    var fieldValues: [String] = []
    for r in 0..<reader.recordCount {
        switch (Result { try reader.rings(record: r) }, reference[r]) {
        case (.success(nil), .null), (.failure, .notLongitudeLatitude): break
        case (.success(let rings?), .rings(let expected)):
            check(rings == expected, "record \(r): reader's rings differ from the file's")
        case (.failure(let e), _):
            check(e is GeocoderError, "rings(record:) threw \(type(of: e))")
            if reader.recordCount > 0 { violation("record \(r): reader refused (\(e)) what the reference reads as \(reference[r])") }
        case (let got, let expected):
            violation("record \(r): reader \(got), reference \(expected)")
        }
        let recordBytes = Array(dbfRecordBytes(input.dbf, r))
        for f in reader.fieldNames.indices {
            guard case .success(let value?) = (Result { try reader.string(record: r, field: f) }) else { continue }
            fieldValues.append(value)
            if reader.encodingName == "UTF-8" {
                let needle = Array(value.utf8)
                let found = recordBytes.count >= needle.count && (0...(recordBytes.count - needle.count)).contains {
                    recordBytes[$0..<($0 + needle.count)].elementsEqual(needle)
                }
                check(found, "record \(r) field \(f): value \(value.debugDescription) is not in the record's bytes")
            }
        }
    }

    // 2. The whole loader, as ReverseGeocoder(manifests:) runs it.
    let names = reader.fieldNames
    let fields = DatasetManifest.Fields(name: names.first.map { [$0] }, code: names.count > 1 ? [names[1]] : nil)
    let manifest = DatasetManifest(name: "fuzz", layers: [.init(file: shpURL.path, level: .province, fields: [.province: fields])])
    // The quadtree's cell size: mostly coarse cells (the same code paths, far fewer cells to build under
    // the sanitizers), sometimes none, sometimes the default 0.05°.
    let options = ReverseGeocoder.Options(cellSize: [1.0, nil, 10.0, 0.05][Int(input.options >> 3) & 3])
    let loaded: LoadedDataset
    do {
        loaded = try DatasetLoader(manifest: manifest, directory: nil, options: options).load(partOffset: 0)
    } catch is GeocoderError {
        return 0
    } catch {
        violation("the loader threw a \(type(of: error)), not a GeocoderError: \(error)")
    }
    let info = loaded.info.layers[0], layer = loaded.layers[0]
    check(info.units + info.nullShapes + info.emptyRecords == info.records,
          "stats do not add up: \(info.units) units + \(info.nullShapes) null + \(info.emptyRecords) empty != \(info.records) records")
    check(info.records == reader.recordCount, "stats say \(info.records) records, the file has \(reader.recordCount)")
    check(info.polygons == layer.store.count, "stats say \(info.polygons) polygons, the index has \(layer.store.count)")
    check(layer.placemarks.count == info.units, "\(layer.placemarks.count) placemarks for \(info.units) units")
    for p in layer.placemarks {
        if let name = p.administrativeArea { check(fieldValues.contains(name), "placemark name \(name.debugDescription) is no field value") }
    }
    let context = try! QueryContext(partCount: layer.store.count)
    for i in 0..<layer.store.count {
        // The polygon as the engine keeps it (flat rings), rebuilt in GEOS as a query needing GEOS would.
        let part = try! layer.store.geometry(i, context: context.geos)
        check(GEOSGeomTypeId_r(context.geos.handle, part.pointer) == Int32(GEOS_POLYGON.rawValue), "part \(i) is not a Polygon")
        check(GEOSisEmpty_r(context.geos.handle, part.pointer) == 0, "part \(i) is empty")
        check(GEOSisValid_r(context.geos.handle, part.pointer) == 1, "part \(i) is not valid: \(part.invalidReason)")
        guard let (x, y) = part.pointOnSurface() else { continue }
        // PointOnSurface is not always inside: on slivers a few subnormals wide its midpoint arithmetic
        // rounds onto or off the polygon. Demand an answer only where plain GEOS says the part holds it.
        let point = GEOSGeom_createPointFromXY_r(context.geos.handle, x, y)!
        let covered = GEOSIntersects_r(context.geos.handle, part.pointer, point) == 1
        GEOSGeom_destroy_r(context.geos.handle, point)
        if covered {
            check((try? layer.locate(x: x, y: y, in: context)) ?? nil != nil, "a point inside part \(i) (\(x), \(y)) is answered by no unit")
        }
    }
    return 0
}
