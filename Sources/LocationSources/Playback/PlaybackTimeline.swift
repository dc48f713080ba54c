import Foundation
import Synchronization

/// The events one playback run delivers, in order, pulled one at a time: computed on demand by index
/// (a synthetic route, an array of fixes), or produced by a thread of its own as a GPX file is
/// parsed (``init(producing:)``), so a long route or a large file is never materialised.
struct PlaybackTimeline: Sendable {
    private let nextEvent: @Sendable () async -> LocationSourceEvent?
    private let closeEvents: @Sendable () -> Void

    /// The next event, `nil` at the end. One consumer at a time.
    func next() async -> LocationSourceEvent? { await nextEvent() }

    /// The run ended early: releases whatever produces the events.
    func close() { closeEvents() }

    /// `count` events, made by `event(index)` as they are asked for.
    init(count: Int, event: @escaping @Sendable (Int) -> LocationSourceEvent) {
        let cursor = Cursor()
        nextEvent = {
            guard let index = cursor.take(below: count) else { return nil }
            return event(index)
        }
        closeEvents = { cursor.close() }
    }

    /// The events of an array.
    init(_ events: [LocationSourceEvent]) {
        self.init(count: events.count) { events[$0] }
    }

    /// Events `produce` hands over from a thread of its own, started now; it runs until it returns or
    /// `put` says the run is over. At most 256 events wait unread, so the producer goes only as
    /// fast as playback.
    init(producing produce: @escaping @Sendable (PlaybackHandoff) -> Void) {
        let handoff = PlaybackHandoff(capacity: 256)
        let thread = Thread {
            produce(handoff)
            handoff.finish()
        }
        thread.name = "playback producer"
        thread.stackSize = 8 << 20   // libxml2 recurses per nesting level
        thread.start()
        nextEvent = { await handoff.next() }
        closeEvents = { handoff.close() }
    }

    /// The next index to hand out, shared by the closures of one timeline.
    private final class Cursor: Sendable {
        private let state = Mutex((next: 0, closed: false))

        func take(below count: Int) -> Int? {
            state.withLock { state in
                guard !state.closed, state.next < count else { return nil }
                defer { state.next += 1 }
                return state.next
            }
        }

        func close() {
            state.withLock { $0.closed = true }
        }
    }
}
