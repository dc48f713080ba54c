import Foundation
import Synchronization
@testable import LocationSources

/// Drains a source's stream in the background and lets a test wait, with a deadline, for what it
/// expects to have arrived. Nothing in the gpsd tests waits without a bound.
final class GPSDEventRecorder: Sendable {
    private let recorded = Mutex<[LocationSourceEvent]>([])
    private let ended = Mutex(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<LocationSourceEvent>) {
        let consumer = Task { [self] in
            for await event in stream { recorded.withLock { $0.append(event) } }
            ended.withLock { $0 = true }
        }
        task.withLock { $0 = consumer }
    }

    var events: [LocationSourceEvent] { recorded.withLock { $0 } }
    var locations: [Location] { GPSDEvents.locations(events) }
    var errors: [LocationSourceError] { GPSDEvents.errors(events) }
    var streamEnded: Bool { ended.withLock { $0 } }

    /// Polls (every 20 ms) until `condition` holds for the events so far; false after `timeout`.
    @discardableResult
    func wait(timeout: Duration, until condition: ([LocationSourceEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(events)
    }

    /// Polls `condition` every 20 ms; false if it still doesn't hold after `timeout`.
    static func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    func cancel() {
        task.withLock { $0?.cancel() }
    }
}
