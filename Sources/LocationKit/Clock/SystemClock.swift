import Dispatch
import Foundation

/// The production ``LocationClock``: `Date()` for dates, and Dispatch's monotonic timers (which do
/// not jump with the wall clock) for delays.
public struct SystemClock: LocationClock {
    public init() {}

    public var now: Date { Date() }

    public func schedule(after delay: Duration, on queue: DispatchQueue,
                         _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let item = DispatchWorkItem(block: action)
        queue.asyncAfter(deadline: .now() + Duration(timeInterval: delay.timeInterval).timeInterval, execute: item)
        return DispatchTimer(item: item)
    }
}

/// A scheduled `DispatchWorkItem`.
private struct DispatchTimer: ClockTimer, @unchecked Sendable {
    // @unchecked: DispatchWorkItem is thread-safe (cancel may be called from any thread) but is not
    // marked Sendable in corelibs-libdispatch.
    let item: DispatchWorkItem

    func cancel() { item.cancel() }
}
