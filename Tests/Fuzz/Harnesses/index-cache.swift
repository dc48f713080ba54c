// libFuzzer harness: the index cache loader (IndexCache) on damaged cache files.
//
// At start-up it builds a small GCJ-02 dataset (four districts in two cities, so the file has crossing
// lists and a WGS-84 grid) and keeps the cache file the engine writes. Each input then damages a copy
// of that file and loads the dataset through it:
// - mode 0: raw 32-bit pokes into the body, the checksums recomputed so the damage gets past them
//   (a file written by a broken writer);
// - mode 1: the metadata's section offsets and counts set to fuzzed values (checksums recomputed);
// - mode 2: the input bytes are the whole file (truncations, garbage, wrong headers);
// - mode 3 (a first byte of 240 or more, so the older seeds keep their modes): raw byte pokes into the
//   binary metadata (CompactDecoder's input) with the metadata's checksum recomputed.
//
// Invariants:
// - loading never crashes and never throws: a bad file is reported as damaged (or stale) and rebuilt,
//   and the rebuilt engine answers exactly like a fresh one;
// - a file that loads answers every probe point (in both datums) without crashing, one unit or none;
// - the undamaged file loads ("loaded") and answers exactly like a fresh engine;
// - the same under `verifyOnFirstUse` (odd-sized inputs), where the probes check what they read: a
//   damage they find rebuilds the dataset, and the probes' answers are still exactly the fresh ones.
import CShapelib
import Foundation
@testable import ReverseGeocoder

private let directory = scratchDirectory
private let cacheDirectory = directory.appendingPathComponent("cache")

private func writeFixture(_ name: String, fields: [String], _ records: [(ring: [(Double, Double)], values: [String])]) {
    let path = directory.appendingPathComponent(name).path
    let shp = SHPCreate(path, SHPT_POLYGON)!, dbf = DBFCreate(path + ".dbf")!
    for f in fields { DBFAddField(dbf, f, FTString, 16, 0) }
    for (i, r) in records.enumerated() {
        var xs = r.ring.map(\.0), ys = r.ring.map(\.1)
        let object = SHPCreateSimpleObject(SHPT_POLYGON, Int32(xs.count), &xs, &ys, nil)
        SHPWriteObject(shp, -1, object)
        SHPDestroyObject(object)
        for (j, v) in r.values.enumerated() { DBFWriteStringAttribute(dbf, Int32(i), Int32(j), v) }
    }
    SHPClose(shp)
    DBFClose(dbf)
    try! "UTF-8".write(to: directory.appendingPathComponent(name + ".cpg"), atomically: false, encoding: .utf8)
}

/// Clockwise ring through the given corners (a shell by the shapefile spec), closed.
private func ring(_ points: [(Double, Double)]) -> [(Double, Double)] { points + [points[0]] }

private struct Fixture {
    let manifest: DatasetManifest
    let options: ReverseGeocoder.Options
    let template: [UInt8]
    let probes: [(Double, Double)]
    let expected: [String?]
}

private func answers(_ g: ReverseGeocoder, _ probes: [(Double, Double)]) -> [String?] {
    probes.flatMap { p in
        [Datum.gcj02, .wgs84].map { datum in
            do {
                return try g.placemark(latitude: p.1, longitude: p.0, datum: datum).map { "\($0.subLocalityCode ?? "-")" }
            } catch {
                violation("probe \(p) (valid) threw \(error)")
            }
        }
    }
}

private let fixture: Fixture = {
    // Districts with slanted shared borders around (116.4, 39.9): two cities, two districts each.
    let c = (116.4, 39.9)
    let pts = [(c.0 - 0.3, c.1 - 0.3), (c.0 - 0.3, c.1 + 0.3), (c.0 + 0.02, c.1 + 0.3), (c.0 + 0.3, c.1 + 0.3),
               (c.0 + 0.3, c.1 - 0.3), (c.0 - 0.03, c.1 - 0.3), (c.0 - 0.3, c.1 + 0.01), (c.0 + 0.3, c.1 - 0.02),
               (c.0 + 0.01, c.1 + 0.005)]
    writeFixture("dist", fields: ["name", "adcode", "city", "city_code"], [
        (ring([pts[0], pts[6], pts[8], pts[5]]), ["SW", "110101", "West", "1101"]),
        (ring([pts[6], pts[1], pts[2], pts[8]]), ["NW", "110102", "West", "1101"]),
        (ring([pts[5], pts[8], pts[7], pts[4]]), ["SE", "110201", "East", "1102"]),
        (ring([pts[8], pts[2], pts[3], pts[7]]), ["NE", "110202", "East", "1102"]),
    ])
    let manifest = DatasetManifest(name: "fuzzcache", datum: .gcj02, constants: [.country: .init(name: "X", code: "CN")],
                                   layers: [.init(file: directory.appendingPathComponent("dist.shp").path, level: .district,
                                                  fields: [.district: .init(name: ["name"], code: ["adcode"]),
                                                           .city: .init(name: ["city"], code: ["city_code"])])])
    let options = ReverseGeocoder.Options(cellSize: 0.01, cacheDirectory: cacheDirectory, hugePages: false)
    let fresh = try! ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
    let built = try! ReverseGeocoder(manifests: [(manifest, nil)], options: options)
    check(built.datasets[0].cacheStatus == "rebuilt (no cache file yet)", "fixture: \(built.datasets[0].cacheStatus ?? "")")
    let file = IndexCache(directory: cacheDirectory).file(for: manifest, directory: nil, cellSize: 0.01)
    let template = [UInt8](try! Data(contentsOf: file))
    var probes: [(Double, Double)] = []
    for i in 0..<13 { for j in 0..<13 { probes.append((c.0 - 0.35 + Double(i) * 0.7 / 12, c.1 - 0.35 + Double(j) * 0.7 / 12)) } }
    probes += pts
    return Fixture(manifest: manifest, options: options, template: template, probes: probes, expected: answers(fresh, probes))
}()

private func le<T: FixedWidthInteger>(_ v: T, into bytes: inout [UInt8], at offset: Int) {
    withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { bytes[offset + k] = b } }
}

private func readLE64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

/// Rewrites the checksums (block table, metadata, lengths) to match the body and metadata as they now
/// are, so the damage reaches the structural checks.
private func reseal(_ bytes: inout [UInt8], meta: IndexCache.Meta? = nil) {
    do { try IndexCache.reseal(&bytes, meta: meta) } catch { violation("cannot reseal: \(error)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let f = fixture
    let input = bytes(data, size)
    var file = f.template
    let metaOffset = Int(readLE64(file, 16))
    let mode = input.first.map { $0 >= 240 ? 3 : Int($0) % 3 } ?? 0
    let rest = input.dropFirst()
    switch mode {
    case 0:
        // Pokes: (offset, value) pairs of 4 bytes each into the body.
        var k = rest.startIndex
        while k + 8 <= rest.endIndex {
            let offset = rest[k..<k + 4].reduce(0) { $0 << 8 | Int($1) } % max(1, metaOffset - 64 - 4)
            for b in 0..<4 { file[64 + offset + b] = rest[k + 4 + b] }
            k += 8
        }
        reseal(&file)
    case 1:
        // Section edits through the metadata: pick a layer field by number and set offset / count.
        guard var meta = try? IndexCache.meta(ofFile: file) else {
            violation("the template's metadata does not decode")
        }
        var k = rest.startIndex
        while k + 9 <= rest.endIndex {
            let which = Int(rest[k]) % 16
            let value = rest[k + 1..<k + 9].reduce(0) { $0 << 8 | Int($1) } % (1 << 40) - (1 << 20)
            let setOffset = rest[k + 1] & 1 == 0
            func edit(_ s: inout IndexCache.Section) { if setOffset { s.offset = value } else { s.count = value } }
            if !meta.layers.isEmpty {
                switch which {
                case 0: edit(&meta.layers[0].placemarkSlots)
                case 1: edit(&meta.layers[0].text)
                case 2: edit(&meta.layers[0].partUnit)
                case 3: edit(&meta.layers[0].vertices)
                case 4: edit(&meta.layers[0].ringStart)
                case 5: edit(&meta.layers[0].partRings)
                case 6: edit(&meta.layers[0].envelopes)
                case 7: if meta.layers[0].cells != nil { edit(&meta.layers[0].cells!.nodes) }
                case 8: if meta.layers[0].cells != nil { edit(&meta.layers[0].cells!.borders) }
                case 9: if meta.layers[0].cells != nil { edit(&meta.layers[0].cells!.mixedStart) }
                case 10: if meta.layers[0].cells != nil { edit(&meta.layers[0].cells!.top) }
                case 11: if meta.layers[0].cells != nil { meta.layers[0].cells!.depth = value % 40 }
                case 12: if meta.layers[0].cells != nil { meta.layers[0].cells!.topLevels = value % 40 }
                case 13: if meta.wgsGrid != nil { edit(&meta.wgsGrid!.entries) }
                case 14: if meta.emptyMask != nil { edit(&meta.emptyMask!.words) }
                default: meta.layers[0].units = value % 100
                }
            }
            k += 9
        }
        reseal(&file, meta: meta)
    case 3:
        // Pokes: (offset, byte) pairs into the metadata, then its checksum (header word at 40) made to match.
        let metaLength = file.count - metaOffset
        var k = rest.startIndex
        while k + 3 <= rest.endIndex, metaLength > 0 {
            let offset = (Int(rest[k]) << 8 | Int(rest[k + 1])) % metaLength
            file[metaOffset + offset] = rest[k + 2]
            k += 3
        }
        le(file[metaOffset...].withUnsafeBytes { ContentHash.of(bytes: $0) }, into: &file, at: 40)
    default:
        file = Array(rest)
    }
    let path = IndexCache(directory: cacheDirectory).file(for: f.manifest, directory: nil, cellSize: 0.01)
    guard FileManager.default.createFile(atPath: path.path, contents: Data(file)) else { violation("cannot write the cache file") }

    // Odd inputs load for a few queries: nothing checked at load, each probe checks what it reads.
    var options = f.options
    options.verifyOnFirstUse = size % 2 == 1
    let g: ReverseGeocoder
    do {
        g = try ReverseGeocoder(manifests: [(f.manifest, nil)], options: options)
    } catch {
        violation("loading through a damaged cache threw: \(error)")
    }
    let got = answers(g, f.probes)
    // After the probes: a damage found by a probe (first use) shows here as the rebuild it caused.
    let status = g.datasets[0].cacheStatus ?? ""
    if status == "loaded" {
        // A file that passed every check answers without crashing (the probes just ran); when it is the
        // template itself it must answer exactly as the data does.
        if file == f.template { check(got == f.expected, "the undamaged cache answers differently") }
    } else {
        check(status.hasPrefix("rebuilt (damaged: ") || status.hasPrefix("rebuilt (stale: "), "status \(status)")
        check(got == f.expected, "the rebuilt engine answers differently")
    }
    return 0
}
