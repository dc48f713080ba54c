import Dispatch
import Synchronization

/// A bounded hand-off from one producing thread (a GPX file being parsed) to one async consumer
/// (a playback run). The producer blocks while `capacity` events wait unread, so a file is parsed
/// only as fast as it is played and memory stays bounded; the consumer suspends, without blocking
/// a thread, until an event or the end arrives. `close()` (the run stopped) wakes both sides.
final class PlaybackHandoff: Sendable {
    private struct State {
        var queue: [LocationSourceEvent] = []
        var head = 0
        var finished = false
        var closed = false
        var waiter: CheckedContinuation<LocationSourceEvent?, Never>?
        /// The producer found the queue full and waits for `room`.
        var producerWaits = false
    }

    private let state = Mutex(State())
    private let capacity: Int
    /// Wakes a producer that found the queue full (a semaphore, not a lock; it starts at 0, as
    /// libdispatch requires of a semaphore that is released with waits unmatched).
    private let room = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Producer: waits for room, then hands `event` over. False once the consumer has gone: stop.
    func put(_ event: LocationSourceEvent) -> Bool {
        enum Step { case closed, queued, handed(CheckedContinuation<LocationSourceEvent?, Never>), full }
        while true {
            let step = state.withLock { state -> Step in
                if state.closed { return .closed }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return .handed(waiter)
                }
                if state.queue.count - state.head < capacity {
                    state.queue.append(event)
                    return .queued
                }
                state.producerWaits = true
                return .full
            }
            switch step {
            case .closed: return false
            case .queued: return true
            case .handed(let waiter):
                waiter.resume(returning: event)
                return true
            case .full:
                room.wait()
            }
        }
    }

    /// Producer side: false once the consumer has gone.
    var isOpen: Bool { !state.withLock { $0.closed } }

    /// Producer: no more events.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<LocationSourceEvent?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Consumer: gone for good. Unread events are dropped and a waiting producer is woken.
    func close() {
        let (waiter, producerWaits) = state.withLock { state in
            state.closed = true
            state.queue = []
            state.head = 0
            defer {
                state.waiter = nil
                state.producerWaits = false
            }
            return (state.waiter, state.producerWaits)
        }
        waiter?.resume(returning: nil)
        if producerWaits { room.signal() }
    }

    /// Consumer: the next event, or `nil` at the end (or after `close()`).
    func next() async -> LocationSourceEvent? {
        await withCheckedContinuation { continuation in
            let (ready, wake) = state.withLock { state -> (LocationSourceEvent??, Bool) in
                if state.head < state.queue.count {
                    let event = state.queue[state.head]
                    state.head += 1
                    if state.head >= 1024, state.head * 2 >= state.queue.count {
                        state.queue.removeFirst(state.head)
                        state.head = 0
                    }
                    defer { state.producerWaits = false }
                    return (.some(event), state.producerWaits)
                }
                if state.finished || state.closed { return (.some(nil), false) }
                state.waiter = continuation
                return (nil, false)
            }
            if wake { room.signal() }
            guard let ready else { return }
            continuation.resume(returning: ready)
        }
    }
}
