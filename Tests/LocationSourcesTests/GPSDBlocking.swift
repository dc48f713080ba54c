import Foundation
import Glibc

/// Test plumbing: runs blocking system calls on their own thread, so tests running in parallel never
/// tie up the few threads of Swift's cooperative pool (which the client's consumers need).
enum GPSDBlocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// True when `fd` is ready for `events` within `timeout`.
    static func poll(_ fd: Int32, events: Int16, timeout: Duration) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let ms = max(0, Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        while true {
            let n = Glibc.poll(&entry, 1, ms)
            if n < 0, errno == EINTR { continue }
            return n > 0
        }
    }
}

/// A failure in test set-up, with its reason.
struct GPSDTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
