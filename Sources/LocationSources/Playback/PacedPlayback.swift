import Foundation
import Synchronization

/// One run of a playback source: hands out a timeline of events, spaced by `PlaybackPacing`.
///
/// Pull-driven (`AsyncStream(unfolding:)`): the next fix is produced only when the consumer asks, so
/// as-fast-as-possible playback of a long file never piles fixes up in a buffer, and a slow consumer
/// gets every fix. Real-time waits are anchored to the first fix (fix *n* is due at
/// `start + (tₙ − t₀) / speedFactor`), so waits don't drift, and a consumer that fell behind catches up.
final class PacedPlayback: StoppableRun {
    private struct State {
        var stopped = false
        /// Builds the timeline; taken out and run on first demand (it may read and parse a file).
        var makeTimeline: (@Sendable () -> PlaybackTimeline)?
        var timeline: PlaybackTimeline?
        /// Wall-clock instant and timeline date of the first fix, which every later wait is measured from.
        var anchor: (wall: Duration, timeline: Date)?
        /// The sleep in progress, so `stop()` can cut it short.
        var sleeper: Task<Void, Never>?
    }

    private let state: Mutex<State>
    private let pacing: PlaybackPacing
    private let clock: any PlaybackClock
    private let finished: @Sendable (PacedPlayback) -> Void

    /// - Parameters:
    ///   - makeTimeline: produces the events, called once on the consumer's first request.
    ///   - clock: what the real-time waits are measured on.
    ///   - finished: called once when the run ends (end of timeline, `stop()` or cancellation).
    init(pacing: PlaybackPacing, clock: any PlaybackClock = .continuous, makeTimeline: @escaping @Sendable () -> PlaybackTimeline,
         finished: @escaping @Sendable (PacedPlayback) -> Void) {
        self.pacing = pacing
        self.clock = clock
        self.finished = finished
        self.state = Mutex(State(makeTimeline: makeTimeline))
    }

    /// The stream for this run. Cancelling the consuming task stops the run.
    func stream() -> AsyncStream<LocationSourceEvent> {
        AsyncStream(unfolding: { [self] in await self.next() }, onCancel: { [self] in self.stop() })
    }

    func stop() {
        let (wasRunning, timeline) = state.withLock { state -> (Bool, PlaybackTimeline?) in
            defer {
                state.stopped = true
                state.timeline = nil
                state.makeTimeline = nil
            }
            state.sleeper?.cancel()
            return (!state.stopped, state.timeline)
        }
        timeline?.close()
        if wasRunning { finished(self) }
    }

    private func next() async -> LocationSourceEvent? {
        if Task.isCancelled { stop(); return nil }
        // Build the timeline outside the lock: parsing a large file must not block a concurrent stop().
        if let make = state.withLock({ state in defer { state.makeTimeline = nil }; return state.makeTimeline }) {
            let timeline = make()
            let stopped = state.withLock { state -> Bool in
                if !state.stopped { state.timeline = timeline }
                return state.stopped
            }
            if stopped {
                timeline.close()
                return nil
            }
        }

        // The next event is awaited outside the lock: a file's producer may still be parsing towards it.
        guard let timeline = state.withLock({ $0.stopped ? nil : $0.timeline }),
              let event = await timeline.next() else {
            stop()
            return nil
        }

        enum Step { case end, now(LocationSourceEvent), at(Duration, LocationSourceEvent) }
        let now = clock.now
        let step = state.withLock { state -> Step in
            guard !state.stopped else { return .end }
            guard case .location(let location) = event else { return .now(event) }
            guard let anchor = state.anchor else {
                state.anchor = (now, location.timestamp)
                return .now(event)
            }
            let elapsed = location.timestamp.timeIntervalSince(anchor.timeline)
            guard let wall = pacing.wallSeconds(for: elapsed) else { return .now(event) }
            return .at(anchor.wall + .seconds(wall), event)
        }

        switch step {
        case .end:
            stop()
            return nil
        case .now(let event):
            return event
        case .at(let deadline, let event):
            guard await sleep(until: deadline) else { stop(); return nil }
            return event
        }
    }

    /// Sleeps until `deadline`; false when the run was stopped or the consumer cancelled meanwhile.
    private func sleep(until deadline: Duration) async -> Bool {
        if deadline <= clock.now { return true }
        let clock = self.clock
        let sleeper = Task<Void, Never> { try? await clock.sleep(until: deadline) }
        let started = state.withLock { state -> Bool in
            if state.stopped { return false }
            state.sleeper = sleeper
            return true
        }
        guard started else { sleeper.cancel(); return false }
        await withTaskCancellationHandler { await sleeper.value } onCancel: { sleeper.cancel() }
        let stopped = state.withLock { state -> Bool in
            state.sleeper = nil
            return state.stopped
        }
        return !stopped && !Task.isCancelled
    }
}
