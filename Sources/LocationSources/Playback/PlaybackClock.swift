/// The time a playback source (GPX file, NMEA log replay, synthetic route) paces its fixes on.
///
/// Production uses ``continuous`` (the system's monotonic clock). A test passes a clock of its own
/// whose `sleep(until:)` returns at once and moves its time to the deadline, so a real-time run of an
/// hour's log plays in microseconds and every fix's moment is exact: no test waits on, or measures,
/// the wall clock. (Why not Swift's `Clock`: its instants are an associated type, and an `any Clock`
/// gives instants no arithmetic; a duration since the clock's own origin is all pacing needs.)
public protocol PlaybackClock: Sendable {
    /// Time since the clock's origin (the same origin for the clock's whole life).
    var now: Duration { get }

    /// Returns once `now` has reached `deadline` (at once when it already has). Throws
    /// `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Duration) async throws
}

extension PlaybackClock where Self == ContinuousPlaybackClock {
    /// The system's monotonic clock (`ContinuousClock`): keeps counting while the machine sleeps.
    public static var continuous: ContinuousPlaybackClock { ContinuousPlaybackClock() }
}

/// ``PlaybackClock`` on `ContinuousClock`, its origin the moment it was made.
public struct ContinuousPlaybackClock: PlaybackClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var now: Duration { origin.duration(to: .now) }

    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin.advanced(by: deadline), clock: .continuous)
    }
}
