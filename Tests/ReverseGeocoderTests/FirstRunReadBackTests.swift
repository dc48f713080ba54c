import Foundation
import Testing
@testable import ReverseGeocoder

/// A first run that maps its caches (one point, `track`, `index`: ``ReverseGeocoder/Options/hugePages``
/// off) answers from the file it has just written, mapped as every later start maps it, not from the
/// build, whose private memory would otherwise stay beside the next dataset's build (the bundled four held
/// 600 MB for one point). The file is the oracle of what the engine reads: damage written into it after
/// the load is found by the first query that reads it, which a kept build would never see.
struct FirstRunReadBackTests {
    @Test func aFirstMappedRunReadsTheFileItWrote() async throws {
        try await offPool {
            let s = CacheDamageTests.Setup("readback-mapped")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
            let g = try s.engine(firstUse: true)
            #expect(g.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            // One byte of the crossing lists, changed in place (same file, so the mapping sees it), as a
            // disk could change it under a running process.
            let meta = try IndexCache.meta(ofFile: [UInt8](try Data(contentsOf: s.cacheFile)))
            let (section, stride, name) = try #require(meta.sections.first { $0.name.hasSuffix("crossing lists") && $0.section.count > 0 })
            let position = section.count * stride / 2
            let handle = try FileHandle(forUpdating: s.cacheFile)
            try handle.seek(toOffset: UInt64(section.offset + position))
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: UInt64(section.offset + position))
            try handle.write(contentsOf: [byte ^ 0x40])
            try handle.close()

            let points = s.points
            #expect(try CacheDamageTests.answers(g, points, datum: .gcj02) == CacheDamageTests.answers(fresh, points, datum: .gcj02))
            let block = position / CacheVerifier.blockSize
            #expect(g.datasets[0].cacheStatus == "rebuilt (damaged: checksum mismatch in \(name) (block \(block)))")
            #expect(g.warnings.last?.contains("checksum mismatch in \(name)") == true, "\(g.warnings)")
        }
    }

    /// What the first run says of a dataset (its layers' counts, repairs, languages) is what the build
    /// found, not less for being read back, and what a later start from the cache says.
    @Test func theReadBackDescribesTheDatasetAsTheBuildDid() async throws {
        try await offPool {
            let s = CacheDamageTests.Setup("readback-info")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
            let first = try s.engine(firstUse: true)
            let later = try s.engine(firstUse: true)
            #expect(later.datasets[0].cacheStatus == "loaded")
            for g in [first, later] {
                var info = g.datasets[0]
                #expect(info.cacheFile == s.cacheFile.path)
                info.cacheFile = nil
                info.cacheStatus = nil
                #expect(info == fresh.datasets[0])
            }
            let points = s.points
            #expect(try CacheDamageTests.answers(first, points, datum: .wgs84) == CacheDamageTests.answers(fresh, points, datum: .wgs84))
        }
    }
}
