import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scratch folders of test processes, named `<prefix>-<pid>-…` under the system temporary directory.
///
/// Why: a test run's folders hold index caches (a few hundred MB per run of the CLI tests), and a run that
/// is killed, or simply ends, used to leave them behind: 39 runs had piled up 11 GB in /tmp. Now each
/// process removes its own folders when it exits, and the first use in a process removes the folders of
/// earlier processes that are provably gone (their pid no longer exists).
public enum ScratchDirectories {
    private static let created = Mutex<[String]>([])
    private static let registered = Mutex<Set<String>>([])

    /// A new, existing folder `<prefix>-<pid>-<suffix>`, removed at process exit.
    public static func make(prefix: String, suffix: String) -> URL {
        sweepOnce(prefix: prefix)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())-\(suffix)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        created.withLock { $0.append(url.path) }
        return url
    }

    /// Removes the folders of `prefix` left by processes that no longer exist (once per prefix and process),
    /// and arranges for this process's own to be removed when it exits.
    private static func sweepOnce(prefix: String) {
        let first = registered.withLock { set in
            defer { set.insert(prefix) }
            return set.isEmpty ? 2 : (set.contains(prefix) ? 0 : 1)
        }
        if first == 0 { return }
        if first == 2 { atexit { ScratchDirectories.removeOwn() } }
        let tmp = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? [] {
            guard name.hasPrefix(prefix + "-") else { continue }
            let rest = name.dropFirst(prefix.count + 1)
            guard let pid = Int32(rest.prefix { $0.isNumber }), pid != getpid() else { continue }
            // Gone: no such process. (EPERM means it exists under another user: leave it.)
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name))
            }
        }
    }

    private static func removeOwn() {
        for path in created.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
