import Synchronization
@testable import LocationSources

/// A ``PlaybackClock`` whose sleeps return at once and move its time to their deadlines: a real-time
/// run plays instantly, and each fix's moment on the clock is exactly when playback meant it (tests
/// read `now` as each fix arrives, and `deadlines` for every wait asked).
final class VirtualPlaybackClock: PlaybackClock {
    private let time = Mutex(Duration.zero)
    private let asked = Mutex<[Duration]>([])

    var now: Duration { time.withLock { $0 } }
    /// Every `sleep(until:)` deadline, in order.
    var deadlines: [Duration] { asked.withLock { $0 } }

    func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        asked.withLock { $0.append(deadline) }
        time.withLock { $0 = max($0, deadline) }
    }
}
