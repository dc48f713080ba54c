import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// The bundled data (China, localities, world, time zones) loaded for a few queries (mapped, nothing
/// checked at load, each query checking what it reads: what `geocode LAT LON` does) answers exactly as
/// the same caches checked whole at load, on every path: the inside path of each admin dataset, the
/// time-zone overlay, the nearest place's distance, the coast fallback and the zone-only answer at sea.
/// And damage in the sections only those paths read (the overlay's cells, the polygons the coast
/// fallback measures, the places) is found before it is used. CacheDamageTests covers every section of
/// one admin dataset; this covers what the four datasets add.
@Suite(.serialized)
struct FirstUseBundledTests {
    /// Uniform world points (most at sea: zone-only answers and the coast fallback), points over China
    /// (asked as WGS-84 and as GCJ-02), and towns GeoNames puts where the generalized coast has sea.
    static let points: [(latitude: Double, longitude: Double, datum: Datum)] = {
        var rng = SplitMix64(seed: 2026)
        var all: [(Double, Double, Datum)] = []
        for _ in 0..<3_000 { all.append((-85 + 170 * rng.unitInterval(), -180 + 360 * rng.unitInterval(), .wgs84)) }
        for k in 0..<1_000 {
            all.append((18 + 36 * rng.unitInterval(), 73 + 62 * rng.unitInterval(), k % 2 == 0 ? .wgs84 : .gcj02))
        }
        // Venice, Darwin, Miami Beach, Tromsø, Split, Mombasa (GeoNames cities1000 coordinates).
        all += [(45.43713, 12.33265, .wgs84), (-12.46113, 130.84185, .wgs84), (25.79065, -80.13005, .wgs84),
                (69.6489, 18.95508, .wgs84), (43.50891, 16.43915, .wgs84), (-4.05466, 39.66359, .wgs84)]
        return all
    }()

    static func answers(_ g: ReverseGeocoder) throws -> [Placemark?] {
        try points.map { try g.placemark(latitude: $0.latitude, longitude: $0.longitude, datum: $0.datum) }
    }

    static func lazyEngine(cache: URL) throws -> ReverseGeocoder {
        try ReverseGeocoder(directory: BundledData.directory,
                            options: .init(cacheDirectory: cache, hugePages: false, verifyOnFirstUse: true))
    }

    /// The checked engine's answers, and its cache files (written by the load if not yet there).
    static let checked: (answers: [Placemark?], files: [String: URL]) = {
        let g = try! BundledData.geocoder()
        return (try! answers(g), Dictionary(uniqueKeysWithValues: g.datasets.map { ($0.name, URL(fileURLWithPath: $0.cacheFile!)) }))
    }()

    @Test func aLazyLoadAnswersAsACheckedOne() async throws {
        try await offPool {
            let expected = Self.checked.answers
            // Every path is taken by these points.
            #expect(expected.contains { $0 != nil && !$0!.hasAdministrativeUnit })  // zone only, at sea
            func has(_ kind: Placemark.Provenance.Kind) -> Bool {
                expected.contains { p in AdminLevel.allCases.contains { p?.provenance(at: $0)?.kind == kind } }
            }
            #expect(has(.nearestUnit))  // the coast fallback
            #expect(has(.nearestPlace))  // the localities
            #expect(expected.contains { $0?.dataset == "china" })
            #expect(expected.contains { $0?.timeZone != nil && $0?.dataset == "world" })
            let g = try Self.lazyEngine(cache: BundledData.cacheDirectory)
            #expect(g.datasets.map(\.cacheStatus) == Array(repeating: "loaded", count: 4))
            let got = try Self.answers(g)
            #expect(got.count == expected.count)
            for (k, (a, b)) in zip(got, expected).enumerated() where a != b {
                Issue.record("point \(k) \(Self.points[k]): lazy \(String(describing: a)) vs checked \(String(describing: b))")
            }
            #expect(g.warnings.isEmpty)
        }
    }

    /// A point far at sea, in a load checked on first use (`geocode 0 -150`), reads each admin layer's
    /// polygon boxes and no vertex: the coast fallback walks the boxes and finds none within reach
    /// (before, it checked every admin layer's polygons whole: 102 MB peak RSS against 44 MB on land).
    /// A coastal town then has only the polygons it measures checked, not the whole layer, and answers
    /// as a checked load does.
    @Test func aPointAtSeaReadsTheBoxesNotTheVertices() async throws {
        try await offPool {
            let g = try Self.lazyEngine(cache: BundledData.cacheDirectory)
            let layers = g.loaded.filter { $0.manifest.role == .admin }.flatMap(\.layers)
            func checked(_ pick: (LayerFirstUse.Arrays) -> LayerFirstUse.Array<Double>) -> [Int] {
                layers.map { l in l.firstUse.map { $0.verifier.checkedBlocks(pick($0.arrays).region) } ?? -1 }
            }
            #expect(layers.count >= 6 && layers.allSatisfy { $0.firstUse != nil })
            let sea = try g.placemark(latitude: 0, longitude: -150)
            #expect(sea?.timeZone == "Etc/GMT+10" && sea?.hasAdministrativeUnit == false)
            #expect(checked(\.vertices) == Array(repeating: 0, count: layers.count))
            for l in layers {
                let f = try #require(l.firstUse)
                #expect(f.verifier.checkedBlocks(f.arrays.envelopes.region) == f.arrays.envelopes.region.blocks, "\(f.name)")
                #expect(f.tree == nil, "\(f.name): checked whole")
            }
            // Darwin (GeoNames), in the sea of the generalized coast, as a fresh one-point run's query (a
            // layer's second search starts the whole check in the background): the fallback measures
            // a few polygons, not the layers.
            let fresh = try Self.lazyEngine(cache: BundledData.cacheDirectory)
            let freshLayers = fresh.loaded.filter { $0.manifest.role == .admin }.flatMap(\.layers)
            let darwin = try fresh.placemark(latitude: -12.46113, longitude: 130.84185)
            let expected = try BundledData.geocoder().placemark(latitude: -12.46113, longitude: 130.84185)
            #expect(darwin == expected && darwin?.isoCountryCode == "AU")
            #expect(darwin?.provenance(at: .country)?.kind == .nearestUnit)
            let after = freshLayers.map { l in l.firstUse.map { $0.verifier.checkedBlocks($0.arrays.vertices.region) } ?? -1 }
            #expect(after.contains { $0 > 0 })
            for (l, n) in zip(freshLayers, after) {
                let f = try #require(l.firstUse)
                #expect(n < f.arrays.vertices.region.blocks, "\(f.name): \(n) of \(f.arrays.vertices.region.blocks) blocks")
            }
        }
    }

    /// A private copy of the caches with one byte flipped in every block of `section` of `dataset`'s file.
    static func damagedCopy(_ dataset: String, section: String) throws -> URL {
        let dir = ScratchDirectories.make(prefix: "rg-firstuse", suffix: String(UUID().uuidString.prefix(8)))
        for (_, file) in checked.files {
            try FileManager.default.copyItem(at: file, to: dir.appendingPathComponent(file.lastPathComponent))
        }
        let target = dir.appendingPathComponent(checked.files[dataset]!.lastPathComponent)
        var bytes = [UInt8](try Data(contentsOf: target))
        let meta = try IndexCache.meta(ofFile: bytes)
        let (s, width, _) = try #require(meta.sections.first { $0.name.hasSuffix(section) })
        #expect(s.count > 0)
        for at in stride(from: s.offset + 7, to: s.offset + s.count * width, by: CacheVerifier.blockSize) { bytes[at] ^= 0x20 }
        try Data(bytes).write(to: target)
        return dir
    }

    /// Damage `section` of `dataset`, load lazily (nothing checked: "loaded"), then answer every point:
    /// the first query that would read the damage rebuilds that dataset, and every answer is still right.
    func damageIsFoundByTheQueries(_ dataset: String, section: String, atLoad: Bool = false) throws {
        let dir = try Self.damagedCopy(dataset, section: section)
        let g = try Self.lazyEngine(cache: dir)
        let status = { g.datasets.first { $0.name == dataset }?.cacheStatus ?? "" }
        if atLoad {
            #expect(status().hasPrefix("rebuilt (damaged: checksum mismatch in layer"), "\(status())")
        } else {
            #expect(status() == "loaded")
        }
        let got = try Self.answers(g)
        #expect(status().hasPrefix("rebuilt (damaged: checksum mismatch in layer") && status().contains(section), "\(status())")
        #expect(g.datasets.filter { $0.name != dataset }.allSatisfy { $0.cacheStatus == "loaded" })
        for (k, (a, b)) in zip(got, Self.checked.answers).enumerated() where a != b {
            Issue.record("point \(k) \(Self.points[k]): \(String(describing: a)) vs \(String(describing: b))")
        }
    }

    /// The time-zone overlay's crossing lists: read by the overlay lookup of a point near a zone border.
    @Test func damageInTheOverlayIsFound() async throws {
        try await offPool { try damageIsFoundByTheQueries("timezones", section: "crossing lists") }
    }

    /// The world's province polygons: at sea (no cell reads them), only the coast fallback measures them.
    @Test func damageInPolygonsOnlyTheCoastFallbackReadsIsFound() async throws {
        try await offPool { try damageIsFoundByTheQueries("world", section: "layer 0 vertices") }
    }

    /// Taiwan's city comes from the localities (the China manifest's `completedBelow`), through the walk
    /// over the admin datasets below China: that walk checks what it reads (the localities' empty mask word,
    /// cells, the unit's placemark) as the main one does. China answers a Taiwan point first, so the main
    /// walk never reads the localities there: the damage is met by the completion walk alone, on the first
    /// Taiwan query, which reports it, rebuilds the localities and answers as the checked load: GeoNames'
    /// Taipei (geonameid 1668341, cities15000).
    @Test(arguments: ["empty mask", "layer 0 cell grid", "layer 0 placemarks"])
    func damageTheCompletionWalkReadsIsFound(section: String) async throws {
        try await offPool {
            let taipei = (latitude: 25.05306, longitude: 121.52639)
            let expected = try BundledData.geocoder().placemark(latitude: taipei.latitude, longitude: taipei.longitude)
            #expect(expected?.localityCode == "1668341" && expected?.dataset == "china")
            let g = try Self.lazyEngine(cache: try Self.damagedCopy("localities", section: section))
            let status = { g.datasets.first { $0.name == "localities" }?.cacheStatus ?? "" }
            #expect(status() == "loaded")
            let got = try g.placemark(latitude: taipei.latitude, longitude: taipei.longitude)
            #expect(status().hasPrefix("rebuilt (damaged: checksum mismatch in ") && status().contains(section), "\(status())")
            #expect(g.warnings.contains { $0.contains("was damaged") && $0.hasSuffix("dataset localities rebuilt") }, "\(g.warnings)")
            #expect(g.datasets.filter { $0.name != "localities" }.allSatisfy { $0.cacheStatus == "loaded" })
            #expect(got == expected, "\(String(describing: got)) vs \(String(describing: expected))")
        }
    }

    /// The localities' places (every answer's distance): checked whole at load, even a lazy one.
    @Test func damageInThePlacesIsFoundAtLoad() async throws {
        try await offPool { try damageIsFoundByTheQueries("localities", section: "places", atLoad: true) }
    }
}
