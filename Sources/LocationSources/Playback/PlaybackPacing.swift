/// How a playback source (GPX file, NMEA log replay, synthetic route) spaces its fixes in wall-clock
/// time. The one pacing type of every source that plays a timeline.
public enum PlaybackPacing: Sendable, Equatable {
    /// Deliver fixes as fast as the consumer takes them; timestamps still follow the recorded
    /// (or simulated) timeline. For tests, batch geocoding and CLIs.
    case asFastAsPossible
    /// Wait between fixes as long as their timestamps differ, divided by `speedFactor`:
    /// 1 is real time, 10 plays ten times faster, 0.5 half as fast.
    case realTime(speedFactor: Double)

    /// Real time at recorded speed.
    public static let realTime = PlaybackPacing.realTime(speedFactor: 1)

    /// The name `NMEAReplaySource.Pacing` had for ``realTime(speedFactor:)``.
    @available(*, deprecated, renamed: "realTime(speedFactor:)")
    public static func recorded(speedFactor: Double) -> PlaybackPacing { .realTime(speedFactor: speedFactor) }

    /// Wall-clock seconds to wait for `timelineSeconds` of recorded time; `nil` means don't wait.
    /// A non-positive or non-finite speed factor plays as fast as possible rather than never.
    func wallSeconds(for timelineSeconds: Double) -> Double? {
        guard case .realTime(let factor) = self, factor > 0, factor.isFinite else { return nil }
        return max(0, timelineSeconds) / factor
    }
}
