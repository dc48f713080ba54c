import Foundation
import Testing
@testable import ReverseGeocoder

/// One layer's cell index is built by several workers (subtrees of the quadtree, runs of parts for the
/// crossing lists), and merged so that the result does not depend on how many there were: the index
/// cache written after a 1-worker build and after a many-worker build must be the same bytes, and both
/// must answer what GEOS alone answers.
///
/// Oracles: the bytes of the single-worker build (the order a plain depth-first recursion gives, as
/// before the build went parallel), and an engine without cells (R-tree candidates, GEOS prepared
/// predicates, the lowest-unit rule) on the same points.
struct ParallelBuildTests {
    static let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")

    static func china() throws -> (DatasetManifest, URL?) {
        try #require(try ReverseGeocoder.manifests(in: dataDirectory).first { $0.manifest.name == "china" })
    }

    static func options(threads: Int?, cache: URL?, cellSize: Double? = 0.05) -> ReverseGeocoder.Options {
        var o = ReverseGeocoder.Options(cellSize: cellSize, cacheDirectory: cache)
        o.buildThreads = threads
        o.maxDistance = 0  // containment only: "in no unit" stays nil for every engine
        return o
    }

    @Test func oneAndManyWorkersWriteTheSameCacheAndAnswerAsGEOS() async throws {
        try await offPool {
            let (manifest, directory) = try Self.china()
            let root = TestShapefile.directory("parallel-build")
            // 1 worker; 5 (more than the cores, so the workers interleave however the scheduler likes,
            // and 5 does not divide the 64 crossing-list runs or the subtrees evenly).
            var files: [[UInt8]] = [], engines: [ReverseGeocoder] = []
            for threads in [1, 5] {
                let cache = root.appendingPathComponent("cache-\(threads)")
                let built = try ReverseGeocoder(manifests: [(manifest, directory)], options: Self.options(threads: threads, cache: cache))
                #expect(built.datasets[0].cacheStatus?.hasPrefix("rebuilt") == true)
                files.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(built.datasets[0].cacheFile)))))
                engines.append(built)
            }
            let meta = try IndexCache.meta(ofFile: files[0])
            #expect(meta.layers.count == 3)
            // Section by section first (a failure then names the section), then the whole file.
            for (l, layer) in meta.layers.enumerated() {
                let cells = try #require(layer.cells)
                for (section, name) in [(cells.nodes, "nodes"), (cells.top, "top"), (cells.mixedStart, "border cells"),
                                        (cells.borders, "crossing lists")] {
                    let a = files[0][section.offset..<(section.offset + section.count * 4)]
                    let b = files[1].count >= section.offset + section.count * 4
                        ? files[1][section.offset..<(section.offset + section.count * 4)] : []
                    #expect(a == b, "layer \(l) \(name)")
                }
                #expect(cells.mixedCells > 1_000, "layer \(l): a real tree, with border cells")
            }
            #expect(files[0] == files[1], "cache files of \(files[0].count) and \(files[1].count) bytes differ")

            // The same answers as GEOS alone, on random points over China and around it.
            let geos = try ReverseGeocoder(manifests: [(manifest, directory)], options: Self.options(threads: 1, cache: nil, cellSize: nil))
            var rng = SplitMix64(seed: 19)
            var mismatches = 0, found = 0
            for _ in 0..<20_000 {
                let lon = 73 + rng.unitInterval() * 62, lat = 17 + rng.unitInterval() * 37
                let expected = try geos.placemark(latitude: lat, longitude: lon, datum: .gcj02)
                if expected != nil { found += 1 }
                for (k, g) in engines.enumerated() {
                    let got = try g.placemark(latitude: lat, longitude: lon, datum: .gcj02)
                    if got?.subLocalityCode != expected?.subLocalityCode || got?.localityCode != expected?.localityCode {
                        mismatches += 1
                        if mismatches <= 5 {
                            Issue.record("(\(lat), \(lon)), \(k == 0 ? 1 : 5) workers: \(String(describing: got?.subLocalityCode)), GEOS \(String(describing: expected?.subLocalityCode))")
                        }
                    }
                }
            }
            #expect(mismatches == 0)
            #expect(found > 5_000 && found < 19_000, "inside and outside both exercised: \(found)")
        }
    }
}
