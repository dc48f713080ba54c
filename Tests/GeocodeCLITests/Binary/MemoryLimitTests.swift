import Foundation
import Testing

/// A dataset too large for the memory the process may have fails with a message naming the dataset and
/// the bytes it needs, and exit status 4, instead of an allocation trap or an OOM kill: checked before
/// allocating. The bound is a real `ulimit -v` (RLIMIT_AS), set by a shell that then runs the binary.
@Suite(.serialized)
struct MemoryLimitTests {
    /// Runs `geocode ARGS` under `ulimit -v kilobytes` on the bundled data, with its own cache folder
    /// (under coreutils' `timeout` when a watchdog is given: exit 124 if it was still running then).
    static func run(limit kilobytes: Int, _ arguments: [String], cache: URL, watchdog seconds: Int? = nil) async throws -> GeocodeBinary.Result {
        let command = "ulimit -v \(kilobytes) && exec " + (seconds.map { "timeout \($0) " } ?? "") + "\"$0\" \"$@\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command, GeocodeBinary.url.path] + arguments
        process.environment = GeocodeBinary.environment(TrackAndInfoTests.realData.merging(["GEOCODE_CACHE_DIR": cache.path]) { $1 })
        return try await GeocodeBinary.capture(process)
    }

    /// The bytes in "it needs N bytes" and the MB in "M MB in use" of the message.
    static func numbers(_ message: String) -> (needed: Int, inUse: Int)? {
        guard let n = message.range(of: "it needs "), let b = message[n.upperBound...].firstIndex(of: " "),
              let needed = Int(message[n.upperBound..<b]),
              let u = message.range(of: " MB in use") else { return nil }
        let digits = message[..<u.lowerBound].reversed().prefix { $0.isNumber }
        guard let inUse = Int(String(digits.reversed())) else { return nil }
        return (needed, inUse)
    }

    @Test func aBuildThatCannotFitIsRefusedNamingTheDatasetAndItsBytes() async throws {
        let cache = try TemporaryDirectory.shared.newFolder("memory-build")
        // 250 MB of address space: the binary takes about half; building China's index needs ~450 MB.
        let r = try await Self.run(limit: 250_000, ["39.9087", "116.3975"], cache: cache)
        #expect(r.status == 4, "\(r.err)")
        #expect(r.err.contains("dataset china does not fit in memory: it needs "), "\(r.err)")
        #expect(r.err.contains("building its index from "), "\(r.err)")
        #expect(r.err.contains("limit: ulimit -v 250000 KB"), "\(r.err)")
        let n = try #require(Self.numbers(r.err), "\(r.err)")
        // Estimated from China's 25 MB of .shp (18 bytes per byte, measured), above the limit.
        #expect(n.needed > 250_000 * 1024 - n.inUse << 20 && n.needed > 400 << 20 && n.needed < 600 << 20, "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func aCacheThatCannotBeMappedIsRefusedNamingTheDatasetAndItsBytes() async throws {
        let cache = try TemporaryDirectory.shared.newFolder("memory-map")
        let warm = try await GeocodeBinary.run(["index"], environment: TrackAndInfoTests.realData.merging(["GEOCODE_CACHE_DIR": cache.path]) { $1 })
        #expect(warm.status == 0, "\(warm.err)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix("china-") }
        let size = try #require(files.first.flatMap { try? FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent($0).path)[.size] as? Int })
        // What the binary itself takes, from the refusal of a build (first test's bound).
        let probe = try await Self.run(limit: 250_000, ["39.9087", "116.3975"], cache: try TemporaryDirectory.shared.newFolder("memory-probe"))
        let inUse = try #require(Self.numbers(probe.err)?.inUse, "\(probe.err)")
        // Room for the binary and half the cache file: mapping it must be refused, not tried.
        let limit = (inUse << 10) + size / 2048
        let r = try await Self.run(limit: limit, ["39.9087", "116.3975"], cache: cache)
        #expect(r.status == 4, "\(r.err)")
        #expect(r.err.contains("dataset china does not fit in memory: it needs \(size) bytes"), "\(r.err)")
        #expect(r.err.contains("mapping its index cache \(cache.path)/china-"), "\(r.err)")
        // With room, the same cache answers: room for every dataset's cache file (the one-point query maps
        // the four) and 64 MB of working memory (GEOS's prepared time zone, threads). The room was 4 ×
        // China's file (104 MB), which left 0.5 MB to spare on this machine's main and was 0.4 MB short
        // once an engine change added 1 MB (measured by bisecting `ulimit -v`: 230,078 vs 231,054 KB).
        let allCaches = try FileManager.default.contentsOfDirectory(atPath: cache.path).reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
        }
        #expect(allCaches > 3 * size, "\(allCaches)")  // all four datasets' files, not China's alone
        let roomy = limit + allCaches / 1024 + (64 << 10)
        let ok = try await Self.run(limit: roomy, ["39.9087", "116.3975"], cache: cache)
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("东城区"), "\(ok.out)")
        // Between the two, where the caches map but a worker thread's stack may not: an answer or a clear
        // failure (exit 4, a message), never a hang. Dispatch retried pthread_create forever there, and
        // `ulimit -v 212500` hung this query (Workers). `timeout` (coreutils) is the watchdog: 124 = hung.
        for k in 1...8 {
            let bound = limit + (roomy - limit) * k / 9
            let r = try await Self.run(limit: bound, ["39.9087", "116.3975"], cache: cache, watchdog: 60)
            #expect(r.status == 0 || r.status == 4, "ulimit -v \(bound): exit \(r.status) \(r.err)")
            #expect(r.status != 0 || r.out.contains("东城区"), "ulimit -v \(bound): \(r.out)")
            #expect(r.status != 4 || r.err.hasPrefix("geocode: "), "ulimit -v \(bound): \(r.err)")
        }
    }
}
