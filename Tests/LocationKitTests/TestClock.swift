import Dispatch
import Foundation
import Synchronization
@testable import LocationKit

/// A ``LocationClock`` that moves only when the test says so. Nothing in a test waits on the wall
/// clock: a timeout happens because the test advanced past it, never because the machine was slow.
final class TestClock: LocationClock {
    private struct Timer {
        let id: UInt64
        let deadline: Duration
        let queue: DispatchQueue
        let action: @Sendable () -> Void
    }

    private struct State {
        var elapsed: Duration = .zero
        var nextID: UInt64 = 0
        var timers: [Timer] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The waiters whose count of pending timers is reached, removed from the list.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = waiters.filter { $0.count <= timers.count }
            waiters.removeAll { $0.count <= timers.count }
            return ready.map(\.continuation)
        }
    }

    private let state = Mutex(State())
    /// The date at time zero.
    let start: Date

    init(start: Date = epoch) { self.start = start }

    var now: Date { start.addingTimeInterval(elapsed.timeInterval) }

    /// Time advanced so far.
    var elapsed: Duration { state.withLock { $0.elapsed } }

    /// Delays from now of the pending timers, soonest first.
    var pending: [Duration] {
        state.withLock { s in s.timers.map { $0.deadline - s.elapsed }.sorted() }
    }

    func schedule(after delay: Duration, on queue: DispatchQueue,
                  _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let (id, ready) = state.withLock { s -> (UInt64, [CheckedContinuation<Void, Never>]) in
            s.nextID += 1
            s.timers.append(Timer(id: s.nextID, deadline: s.elapsed + max(delay, .zero), queue: queue, action: action))
            return (s.nextID, s.satisfiedWaiters())
        }
        for continuation in ready { continuation.resume() }
        return Handle(clock: self, id: id)
    }

    /// Suspends until at least `count` timers are pending (woken by `schedule`, not by polling).
    func waitForTimers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.timers.count >= count { return true }
                s.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Moves time forward by `duration`. Every timer that falls due runs, in deadline order (ties in
    /// scheduling order), on its queue and to completion before the next one and before this returns;
    /// timers those actions schedule run too if they fall due within the step. Call it from a test,
    /// never from one of the queues the timers run on.
    func advance(by duration: Duration) {
        let target = elapsed + duration
        while let due = state.withLock({ s -> Timer? in
            let next = s.timers.filter { $0.deadline <= target }.min { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            s.elapsed = next.map { max(s.elapsed, $0.deadline) } ?? max(s.elapsed, target)
            return next
        }) {
            // Removed on the timer's queue, so a cancel that reached the queue first wins, as with a
            // DispatchWorkItem.
            due.queue.sync {
                let live = state.withLock { s in
                    guard let index = s.timers.firstIndex(where: { $0.id == due.id }) else { return false }
                    s.timers.remove(at: index)
                    return true
                }
                if live { due.action() }
            }
        }
    }

    fileprivate func cancel(_ id: UInt64) {
        state.withLock { $0.timers.removeAll { $0.id == id } }
    }

    private struct Handle: ClockTimer {
        let clock: TestClock
        let id: UInt64
        func cancel() { clock.cancel(id) }
    }
}
