import Foundation
import Testing
@testable import ReverseGeocoder

/// Two datasets' index caches damaged: the first query (load checked on first use) meets one and
/// rebuilds it in a replacement engine, whose load checks every other cache whole and meets the second.
/// Both are said in ``ReverseGeocoder/warnings``, once each, and what both loads let pass (a skipped
/// dataset) once too. Before, the replacement's own warnings were not part of the engine's: the second
/// cache was rebuilt without a word. The oracle for the answers is an engine built from the shapefiles.
struct SecondCacheDamageTests {
    @Test func aSecondDamageFoundByTheReplacementIsSaidOnceWithTheFirst() async throws {
        try await offPool {
            let dir = TestShapefile.directory("second-damage")
            // Two coverages side by side (a query in one reads nothing of the other), and a dataset whose
            // shapefile is missing: skipped by every load, so both loads warn of it.
            let a = SyntheticCoverage(n: 10, seed: 5, origin: (100, 20), size: 3, subdivisions: 40)
            let b = SyntheticCoverage(n: 10, seed: 6, origin: (104, 20), size: 3, subdivisions: 40)
            let manifests: [(manifest: DatasetManifest, directory: URL?)] = [
                (TestShapefile.manifest("a", file: a.write(to: dir.appendingPathComponent("a")), priority: 10), nil),
                (TestShapefile.manifest("b", file: b.write(to: dir.appendingPathComponent("b")), priority: 20), nil),
                (TestShapefile.manifest("c", file: dir.appendingPathComponent("missing.shp"), priority: 30), nil),
            ]
            let cache = dir.appendingPathComponent("cache")
            func engine(firstUse: Bool) throws -> ReverseGeocoder {
                try ReverseGeocoder(manifests: manifests, options: .init(cacheDirectory: cache, hugePages: false, skipBrokenDatasets: true,
                                                                         verifyOnFirstUse: firstUse))
            }
            let writer = try engine(firstUse: false)
            #expect(writer.datasets.map(\.cacheStatus) == ["rebuilt (no cache file yet)", "rebuilt (no cache file yet)"])
            let skipped = try #require(writer.warnings.first)
            #expect(writer.warnings == [skipped] && skipped.hasPrefix("skipped dataset c "), "\(writer.warnings)")
            let fresh = try ReverseGeocoder(manifests: Array(manifests.prefix(2)), options: .init())

            let fileA = IndexCache(directory: cache).file(for: manifests[0].manifest, directory: nil, cellSize: 0.05)
            let fileB = IndexCache(directory: cache).file(for: manifests[1].manifest, directory: nil, cellSize: 0.05)
            // A: a byte of every block of every section, so the first query's first read is damaged.
            var bytes = [UInt8](try Data(contentsOf: fileA))
            for (section, stride, _) in try IndexCache.meta(ofFile: bytes).sections {
                for at in Swift.stride(from: 0, to: section.count * stride, by: CacheVerifier.blockSize) { bytes[section.offset + at] ^= 0x40 }
            }
            try Data(bytes).write(to: fileA)
            // B: one byte in a later block of its vertices, which a query in A never reads.
            bytes = [UInt8](try Data(contentsOf: fileB))
            let vertices = try #require(try IndexCache.meta(ofFile: bytes).sections.first { $0.name == "layer 0 vertices" })
            let position = vertices.section.count * vertices.stride / 2
            #expect(position / CacheVerifier.blockSize > 0)
            bytes[vertices.section.offset + position] ^= 0x40
            try Data(bytes).write(to: fileB)

            let g = try engine(firstUse: true)
            #expect(g.datasets.map(\.cacheStatus) == ["loaded", "loaded"], "nothing is checked at load")
            #expect(g.warnings == [skipped])
            let centre = (latitude: 21.5, longitude: 101.5)
            let first = try g.placemark(latitude: centre.latitude, longitude: centre.longitude)
            let intact = try fresh.placemark(latitude: centre.latitude, longitude: centre.longitude)
            #expect(first != nil && first == intact)

            let prefixA = "index cache \(fileA.path) was damaged (checksum mismatch in "
            let lineB = ReverseGeocoder.damageWarning(
                file: fileB.path, reason: "checksum mismatch in layer 0 vertices (block \(position / CacheVerifier.blockSize))", dataset: "b")
            #expect(g.warnings.count == 3, "\(g.warnings)")
            #expect(g.warnings.filter { $0 == skipped }.count == 1, "\(g.warnings)")
            #expect(g.warnings.filter { $0.hasPrefix(prefixA) && $0.hasSuffix("); dataset a rebuilt") }.count == 1, "\(g.warnings)")
            #expect(g.warnings.filter { $0 == lineB }.count == 1, "\(g.warnings)")
            #expect(g.warnings.first == skipped, "the load's warnings come first: only ever appended to")
            let statuses = g.datasets.map { $0.cacheStatus ?? "" }
            #expect(statuses.count == 2 && statuses[0].hasPrefix("rebuilt (damaged: checksum mismatch in ") && statuses[1] == "rebuilt (damaged: checksum mismatch in layer 0 vertices (block \(position / CacheVerifier.blockSize)))", "\(statuses)")

            // Every answer is the shapefiles' own, over both coverages and around them.
            var rng = SplitMix64(seed: 3)
            var points = a.borderPoints + b.borderPoints
            for _ in 0..<2_000 { points.append((99.8 + rng.unitInterval() * 7.4, 19.8 + rng.unitInterval() * 3.4)) }
            let answers = try points.map { try g.placemark(latitude: $0.1, longitude: $0.0) }
            let expected = try points.map { try fresh.placemark(latitude: $0.1, longitude: $0.0) }
            #expect(answers == expected)
            #expect(expected.compactMap { $0 }.count > 1_500)
            #expect(g.warnings.count == 3, "no later query adds a line: \(g.warnings)")

            // Both files were written again: the next load is clean.
            let again = try engine(firstUse: false)
            #expect(again.datasets.map(\.cacheStatus) == ["loaded", "loaded"] && again.warnings == [skipped], "\(again.warnings)")
        }
    }
}
