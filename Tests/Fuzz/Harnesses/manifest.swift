// libFuzzer harness: a manifest.json through DatasetManifest.load and, when it loads, through the whole
// engine (ReverseGeocoder(directory:)) over three small fixture shapefiles written at start-up:
// prov.shp (one province), city.shp (two cities) and dist.shp (four districts), each with name/code
// fields for its own and every coarser level, as real data has.
//
// Invariants:
// - loading either succeeds or throws a GeocoderError naming the manifest;
// - a manifest that loads passes validate(), and encodes and decodes back to itself;
// - when the engine loads it, every layer's statistics add up, the dataset is the manifest's, a point
//   inside the fixtures (5, 5) is answered, and every name in the answer is a name the fixtures or the
//   manifest's constants contain (hierarchy resolution invents nothing).
import CShapelib
import Foundation
@testable import ReverseGeocoder

private let directory = scratchDirectory
private let manifestURL = directory.appendingPathComponent("manifest.json")

/// Names and codes written into the fixtures (any placemark value must be one of these or a constant).
private nonisolated(unsafe) var fixtureValues: Set<String> = []

private func writeFixture(_ name: String, fields: [String], _ records: [(box: (Double, Double, Double, Double), values: [String])]) {
    let path = directory.appendingPathComponent(name).path
    let shp = SHPCreate(path, SHPT_POLYGON)!, dbf = DBFCreate(path + ".dbf")!
    for f in fields { DBFAddField(dbf, f, FTString, 16, 0) }
    for (i, r) in records.enumerated() {
        let (x0, y0, x1, y1) = r.box
        var xs = [x0, x0, x1, x1, x0], ys = [y0, y1, y1, y0, y0]
        let object = SHPCreateSimpleObject(SHPT_POLYGON, 5, &xs, &ys, nil)
        SHPWriteObject(shp, -1, object)
        SHPDestroyObject(object)
        for (j, v) in r.values.enumerated() {
            DBFWriteStringAttribute(dbf, Int32(i), Int32(j), v)
            fixtureValues.insert(v)
        }
    }
    SHPClose(shp)
    DBFClose(dbf)
    try! "UTF-8".write(to: directory.appendingPathComponent(name + ".cpg"), atomically: false, encoding: .utf8)
}

private let fixtures: Void = {
    writeFixture("prov", fields: ["name", "code"], [((0, 0, 20, 20), ["Prov", "11"])])
    writeFixture("city", fields: ["name", "code", "province", "prov_code"],
                 [((0, 0, 10, 20), ["West", "1101", "Prov", "11"]), ((10, 0, 20, 20), ["East", "1102", "Prov", "11"])])
    writeFixture("dist", fields: ["name", "adcode", "city", "city_code", "province", "prov_code"],
                 [((0, 0, 10, 10), ["SW", "110101", "West", "1101", "Prov", "11"]),
                  ((0, 10, 10, 20), ["NW", "110102", "West", "1101", "Prov", "11"]),
                  ((10, 0, 20, 10), ["SE", "110201", "", "1102", "", "11"]),
                  ((10, 10, 20, 20), ["NE", "110202", "East", "", "Prov", ""])])
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = fixtures
    guard FileManager.default.createFile(atPath: manifestURL.path, contents: Data(bytes: data, count: size)) else {
        violation("cannot write the manifest")
    }
    let manifest: DatasetManifest
    do {
        manifest = try DatasetManifest.load(from: manifestURL)
    } catch let error as GeocoderError {
        guard case .badManifest(let file, _) = error, file == manifestURL.path else { violation("load threw \(error)") }
        return 0
    } catch {
        violation("load threw a \(type(of: error)), not a GeocoderError: \(error)")
    }
    do { try manifest.validate(file: "again") } catch { violation("a loaded manifest fails validate(): \(error)") }
    do {
        let again = try JSONDecoder().decode(DatasetManifest.self, from: try JSONEncoder().encode(manifest))
        check(again == manifest, "encode/decode round trip changed the manifest")
    } catch {
        violation("a loaded manifest does not survive encode/decode: \(error)")
    }

    // The engine reads files the manifest names: only relative names inside the scratch directory.
    guard manifest.layers.allSatisfy({ !$0.file.hasPrefix("/") && !$0.file.contains("..") && !$0.file.contains("~") }) else { return 0 }
    let geocoder: ReverseGeocoder
    do {
        geocoder = try ReverseGeocoder(directory: directory)
    } catch is GeocoderError {
        return 0
    } catch {
        violation("the engine threw a \(type(of: error)), not a GeocoderError: \(error)")
    }
    check(geocoder.datasets.count == 1 && geocoder.datasets[0].name == manifest.name, "datasets \(geocoder.datasets.map(\.name))")
    for layer in geocoder.datasets[0].layers {
        check(layer.units + layer.nullShapes + layer.emptyRecords == layer.records, "stats do not add up in \(layer.file)")
    }
    guard let p = try! geocoder.placemark(for: Coordinate(latitude: 5, longitude: 5)) else {
        violation("(5, 5) is inside every fixture but got no answer")
    }
    check(p.dataset == manifest.name, "answer from dataset \(p.dataset)")
    var allowed = fixtureValues
    for unit in (manifest.constants ?? [:]).values { allowed.formUnion([unit.name, unit.code].compactMap { $0 }) }
    if manifest.layers.contains(where: { $0.fields["country"]?.code != nil }) {
        // Country codes are normalised to ISO alpha-2 (CountryCodes), so they may differ from the field.
        for v in fixtureValues { if let a2 = CountryCodes.alpha2(v) { allowed.insert(a2) } }
    }
    for value in [p.country, p.isoCountryCode, p.administrativeArea, p.administrativeAreaCode, p.locality, p.localityCode,
                  p.subLocality, p.subLocalityCode].compactMap({ $0 }) {
        check(allowed.contains(value), "placemark value \(value.debugDescription) is in no fixture and no constant")
    }
    return 0
}
