import Foundation
import Glibc
import TestThreads

/// Test plumbing: runs blocking system calls on their own thread, so tests running in parallel never
/// tie up the few threads of Swift's cooperative pool (which the client's consumers need).
enum GPSDBlocking {
    /// `body` runs on a thread of its own but in the calling test's task (``onOwnThread(stackSize:_:)``):
    /// on the bare `Thread` it had, an `#expect` in it was recorded for "«unknown»" and its test passed.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await onOwnThread(stackSize: 1 << 20, body)
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
