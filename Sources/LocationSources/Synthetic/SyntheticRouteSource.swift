import Foundation

/// Plays a `SyntheticRoute` as a location source: in real time (optionally sped up) or as fast as
/// the consumer takes the fixes. Each `events()` call drives the route from its start again; fixes
/// are `.simulated`.
public final class SyntheticRouteSource: LocationSource {
    /// The route played.
    public let route: SyntheticRoute
    /// Real time, sped up, or as fast as possible.
    public let pacing: PlaybackPacing
    /// Timestamp of the first fix; `nil` means the moment each run starts.
    public let startDate: Date?
    /// Runs started by `events()` that are still going (internal for tests).
    let runs = SourceRuns()

    /// What real-time playback waits on (``PlaybackClock/continuous`` unless a test gives its own).
    public let clock: any PlaybackClock

    /// Plays `route` with `pacing`; fix 0 is stamped `startDate`, or the moment each run starts.
    public init(route: SyntheticRoute, pacing: PlaybackPacing = .realTime, startDate: Date? = nil,
                clock: any PlaybackClock = .continuous) {
        self.route = route
        self.pacing = pacing
        self.startDate = startDate
        self.clock = clock
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let route = self.route, startDate = self.startDate, runs = self.runs
        let run = PacedPlayback(pacing: pacing, clock: clock, makeTimeline: {
            let start = startDate ?? Date()
            return PlaybackTimeline(count: route.fixCount) { .location(route.fix($0, startingAt: start)) }
        }, finished: { runs.remove($0) })
        runs.insert(run)
        return run.stream()
    }

    public func stop() {
        runs.stopAll()
    }
}
