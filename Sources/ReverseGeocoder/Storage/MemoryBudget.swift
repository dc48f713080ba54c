import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How much memory a load may still take, checked before it allocates: a dataset too large for the
/// machine (or for the `ulimit -v`, or the container's cgroup limit) fails with a message that names it
/// and the bytes it needs, instead of a kill by the OOM killer or a trap in the allocator half-way.
///
/// Three limits, the tightest wins:
/// - the address space left under `RLIMIT_AS` (`ulimit -v`): the limit minus this process's `VmSize`;
///   a mapping counts against it as much as a copy;
/// - the cgroup's `memory.max` minus its `memory.current` (a container's limit; cgroup v2);
/// - the kernel's `MemAvailable` (what can be had without swapping).
/// The last two bound only memory that must be resident (a copy, a build); a read-only mapping of a
/// file is page cache, which the kernel can drop and read again.
enum MemoryBudget {
    /// What is left, and which limit says so.
    struct Room: Equatable {
        var bytes: Int
        var limit: String
    }

    /// The address space left under `RLIMIT_AS`, or nil when there is no limit.
    static func addressSpace() -> Room? {
        var rl = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &rl) == 0, rl.rlim_cur != rlim_t.max else { return nil }
        let limit = Int(clamping: rl.rlim_cur)
        let used = statusValue("VmSize:") ?? 0
        return Room(bytes: max(0, limit - used), limit: "ulimit -v \(limit / 1024) KB, \(megabytes(used)) in use")
    }

    /// The resident memory that can still be had: the tighter of the cgroup's limit and MemAvailable.
    static func residentMemory() -> Room? {
        var rooms: [Room] = []
        if let available = meminfoValue("MemAvailable:") { rooms.append(Room(bytes: available, limit: "MemAvailable")) }
        if let cgroup = cgroupRoom() { rooms.append(cgroup) }
        return rooms.min { $0.bytes < $1.bytes }
    }

    /// The tightest limit for `bytes` that must be resident (`resident`) or only mapped.
    static func room(resident: Bool) -> Room? {
        let rooms = [addressSpace(), resident ? residentMemory() : nil].compactMap { $0 }
        return rooms.min { $0.bytes < $1.bytes }
    }

    /// Throws ``GeocoderError/insufficientMemory(dataset:needed:available:reason:)`` when `bytes` do not fit.
    static func check(_ bytes: Int, resident: Bool, dataset: String, for purpose: String) throws {
        guard let room = room(resident: resident), bytes > room.bytes else { return }
        throw GeocoderError.insufficientMemory(dataset: dataset, needed: bytes, available: room.bytes,
                                               reason: "\(purpose); limit: \(room.limit)")
    }

    /// About what building a dataset's index from its shapefiles takes at its peak: measured on the
    /// bundled data (China: 25 MB of .shp, 430 MB peak; the world: 10 MB, 180 MB), 18 bytes per byte
    /// of .shp (GEOS geometries, their validity checks, the cell builder's edge lists) plus the
    /// attribute tables twice over.
    static func buildEstimate(shp: Int, dbf: Int) -> Int { 18 * shp + 2 * dbf + (16 << 20) }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 10 << 20 ? "\(bytes >> 20) MB" : String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
    }

    // MARK: - /proc and /sys

    private static func statusValue(_ key: String) -> Int? { kilobytes(key, in: "/proc/self/status") }
    private static func meminfoValue(_ key: String) -> Int? { kilobytes(key, in: "/proc/meminfo") }

    /// A "Key:   1234 kB" line's value, in bytes.
    private static func kilobytes(_ key: String, in path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let digits = line.dropFirst(key.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// cgroup v2: this process's group's `memory.max` minus `memory.current`, when it has a limit.
    private static func cgroupRoom() -> Room? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        let dir = "/sys/fs/cgroup" + line.dropFirst(3)
        func number(_ file: String) -> Int? {
            (try? String(contentsOfFile: "\(dir)/\(file)", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        guard let max = number("memory.max"), let current = number("memory.current") else { return nil }  // "max": none
        return Room(bytes: Swift.max(0, max - current), limit: "cgroup memory.max \(megabytes(max)), \(megabytes(current)) in use")
    }
}
