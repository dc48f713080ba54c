import Dispatch
import Foundation

/// The time the facade's timers run on: a one-shot request's timeout, the ``PositionReporter``'s
/// retry back-off and ``PositionReporter/flush(timeout:)``, and the wall-clock dates stamped on what
/// is written down (a report's `recorded`, the saved current placemark's date). Production uses
/// ``SystemClock``; tests pass a manual clock and move it forward themselves, so no test waits on the
/// wall clock.
///
/// Filters that compare fixes (distance and time filters, significant change, city-change and region
/// dwell, the reporter's 100 m / 10 s rule) do not read this clock: they measure time on the fixes'
/// own timestamps, so a log replayed faster than real time behaves as it did when it was recorded.
/// The reporter's HTTP request timeout is not on this clock either: it is a property of the network
/// connection, enforced by libcurl.
///
/// Why a protocol of ours and not Swift's `Clock`: every timer here must run on a serial dispatch
/// queue (the owner's state lives there). With `Clock`, each timer would be a `Task` sleeping on the
/// clock and then hopping to the queue, and a manual clock could only resume the sleepers, not tell
/// the test when their work on the queue was done, so tests would be back to polling. Scheduling on
/// a queue lets a manual clock run what is due on that queue before `advance` returns. `Clock`'s
/// instants also have no calendar date, which the records need.
public protocol LocationClock: Sendable {
    /// The current date (wall clock).
    var now: Date { get }

    /// Runs `action` on `queue` once `delay` has passed on this clock, unless the returned timer is
    /// cancelled first. A negative delay counts as zero.
    func schedule(after delay: Duration, on queue: DispatchQueue,
                  _ action: @escaping @Sendable () -> Void) -> any ClockTimer
}

/// A pending ``LocationClock/schedule(after:on:_:)`` action.
public protocol ClockTimer: Sendable {
    /// Stops the action from running if it has not started. Idempotent.
    func cancel()
}

extension Duration {
    /// `seconds` as a `Duration`: negative or NaN is zero, and it is capped at ~31 years so that
    /// deadline arithmetic cannot overflow.
    init(timeInterval seconds: TimeInterval) {
        self = seconds > 0 ? .nanoseconds(Int64((min(seconds, 1e9) * 1e9).rounded())) : .zero
    }

    /// This duration in seconds.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
