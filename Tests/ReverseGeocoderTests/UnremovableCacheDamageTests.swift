import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// A damaged index cache that cannot be removed. A query that finds a cache damaged removes the file and
/// loads the engine again; when the unlink failed, the replacement's load (which checks every cache whole)
/// met the same file damaged, at another block, and said so in a second line for the same dataset. Now
/// the dataset has one line, saying the file could not be removed and why, so that the user knows the
/// next start will rebuild it again.
///
/// Tests run as root, whom no permission stops: the file is made immutable (`chattr +i`), which stops
/// root's unlink, and its rename over the file, with EPERM (``ImmutableFile``). A read-only mount would
/// too, but needs a mount namespace around the test process. The oracle for the answers is an engine
/// built from the shapefiles.
struct UnremovableCacheDamageTests {
    @Test(.enabled(if: ImmutableFile.isSupported, "needs chattr +i (CAP_LINUX_IMMUTABLE and ext4, XFS or btrfs) in the temporary directory"))
    func aDamagedCacheThatCannotBeRemovedIsSaidOnceWithWhy() async throws {
        try await offPool {
            let dir = TestShapefile.directory("unremovable-damage")
            let coverage = SyntheticCoverage(n: 10, seed: 5, origin: (100, 20), size: 3, subdivisions: 40)
            let manifest = TestShapefile.manifest("a", file: coverage.write(to: dir.appendingPathComponent("a")))
            let cache = dir.appendingPathComponent("cache")
            func engine(firstUse: Bool) throws -> ReverseGeocoder {
                try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cacheDirectory: cache, hugePages: false, verifyOnFirstUse: firstUse))
            }
            #expect(try engine(firstUse: false).datasets.map(\.cacheStatus) == ["rebuilt (no cache file yet)"])
            let fresh = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init())

            // A byte of every block of every section: the first query's first read is damaged, and the
            // whole check meets the file's first block, which that query does not read first.
            let file = IndexCache(directory: cache).file(for: manifest, directory: nil, cellSize: ReverseGeocoder.Options().cellSize)
            var bytes = [UInt8](try Data(contentsOf: file))
            for (section, stride, _) in try IndexCache.meta(ofFile: bytes).sections {
                for at in Swift.stride(from: 0, to: section.count * stride, by: CacheVerifier.blockSize) { bytes[section.offset + at] ^= 0x40 }
            }
            try Data(bytes).write(to: file)
            let failure = ImmutableFile.set(file, immutable: true)
            try #require(failure == nil, "\(failure ?? "")")
            defer { ImmutableFile.set(file, immutable: false) }

            let g = try engine(firstUse: true)
            #expect(g.datasets.map(\.cacheStatus) == ["loaded"] && g.warnings.isEmpty, "nothing is checked at load")
            let first = try g.placemark(latitude: 21.5, longitude: 101.5)
            let intact = try fresh.placemark(latitude: 21.5, longitude: 101.5)
            #expect(first != nil && first == intact)

            #expect(g.warnings.count == 1, "\(g.warnings)")
            let line = try #require(g.warnings.first)
            let prefix = "index cache \(file.path) was damaged (", middle = "); dataset a rebuilt, but "
            let suffix = "the file could not be removed (permission denied): the next start will find it damaged and rebuild it again"
            #expect(line.hasPrefix(prefix + "checksum mismatch in ") && line.hasSuffix(middle + suffix), "\(line)")
            #expect(FileManager.default.fileExists(atPath: file.path), "the immutable file is still there")
            // The replacement's status gives the query's reason, the one the line gives.
            let reason = line.dropFirst(prefix.count).dropLast(middle.count + suffix.count)
            let status = try #require(g.datasets.first?.cacheStatus)
            #expect(status.hasPrefix("rebuilt (damaged: \(reason)); not written: "), "\(status)")

            var rng = SplitMix64(seed: 3)
            var points = coverage.borderPoints
            for _ in 0..<2_000 { points.append((99.8 + rng.unitInterval() * 3.4, 19.8 + rng.unitInterval() * 3.4)) }
            let answers = try points.map { try g.placemark(latitude: $0.1, longitude: $0.0) }
            let expected = try points.map { try fresh.placemark(latitude: $0.1, longitude: $0.0) }
            #expect(answers == expected && expected.compactMap { $0 }.count > 1_000)
            #expect(g.warnings.count == 1, "no later query adds a line: \(g.warnings)")

            // As said: the next start meets the file damaged again (at load, checking it whole), and rebuilds.
            let next = try engine(firstUse: false)
            #expect(next.warnings.count == 1 && next.warnings.first?.hasPrefix(prefix + "checksum mismatch in ") == true, "\(next.warnings)")
            // And its one line says that it could not write the rebuilt cache either, so every load rebuilds
            // (before, only the status said so).
            #expect(next.datasets.first?.cacheStatus?.contains("; not written: ") == true, "\(next.datasets.first?.cacheStatus ?? "")")
            #expect(next.warnings.first?.contains("dataset a rebuilt; index cache not written for a: ") == true, "\(next.warnings)")
            #expect(next.warnings.first?.hasSuffix(", which every load will pay again until its cache can be written") == true, "\(next.warnings)")
        }
    }
}
