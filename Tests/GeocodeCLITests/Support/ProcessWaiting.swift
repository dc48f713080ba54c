import Foundation

extension Process {
    /// Waits for the process to end without holding a thread of the cooperative pool.
    ///
    /// Swift Testing runs tests on that pool, which has one thread per core (two on CI). A test that calls
    /// `waitUntilExit()` there blocks a pool thread for as long as the child runs, and a few of them at once
    /// starve every other async test for minutes on a busy machine. Here the blocking wait happens on a
    /// thread of its own, and the test suspends instead.
    @discardableResult
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { c in
            Thread { self.waitUntilExit(); c.resume(returning: self.terminationStatus) }.start()
        }
    }
}

/// Polls `condition` every `interval` until it holds or `limit` has passed, suspending (not blocking a pool
/// thread) in between. Returns whether it held. `limit` is a hang guard, so callers give it generously:
/// a starved machine may only make the wait longer, never make it give up on a working run.
func poll(every interval: Duration, upTo limit: Duration, _ condition: () throws -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try condition()
}
