import Foundation
import LocationSources

/// When ``LocationManager/startMonitoringSignificantLocationChanges()`` delivers a fix: CoreLocation's
/// significant-change service, for a receiver that reports continuously.
///
/// While the service is on, a valid fix is delivered when **either** holds:
/// - it is at least ``distance`` metres (great circle) from the last fix delivered while the service
///   was on in this run, or
/// - its timestamp is at least ``maximumInterval`` seconds after that fix's timestamp (a heartbeat for
///   a receiver that is not moving; `nil` turns it off), or earlier than it (the receiver's clock went
///   back, so the interval is measured afresh from this fix).
///
/// The first valid fix of each run is always delivered. As CoreLocation documents for this service,
/// ``LocationManager/distanceFilter`` and ``LocationManager/desiredAccuracy`` are ignored; invalid
/// fixes are still dropped, and ``LocationManager/discardsFirstFix`` still applies. Time is measured on
/// the fixes' own timestamps, so a log replayed faster than real time behaves as it did when recorded.
///
/// Unlike CoreLocation there is no five-minute floor between deliveries: a fix that moved
/// ``distance`` metres is delivered at once.
public struct SignificantChangeOptions: Sendable, Hashable {
    /// Metres of movement that make a fix significant. Default 500 (CoreLocation's figure).
    public var distance: Double
    /// Seconds after which the next fix is delivered even without movement; `nil`: never. Default 300.
    public var maximumInterval: TimeInterval?

    public init(distance: Double = 500, maximumInterval: TimeInterval? = 300) {
        self.distance = distance.isFinite ? max(0, distance) : 500
        self.maximumInterval = maximumInterval.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }

    /// 500 m or 5 minutes.
    public static let `default` = SignificantChangeOptions()
}

/// The per-run state of the significant-change rule; pure, so it is tested on its own.
struct SignificantChangeFilter: Sendable {
    var options: SignificantChangeOptions
    /// The last fix delivered while the service was on (the anchor movement and time are measured from).
    private(set) var anchor: Location?

    init(options: SignificantChangeOptions) {
        self.options = options
    }

    /// Whether `location` (already known to be valid) is significant.
    func isSignificant(_ location: Location) -> Bool {
        guard let anchor else { return true }
        if location.coordinate.distance(to: anchor.coordinate) >= options.distance { return true }
        if let interval = options.maximumInterval {
            let elapsed = location.timestamp.timeIntervalSince(anchor.timestamp)
            if elapsed >= interval || elapsed < 0 { return true }
        }
        return false
    }

    /// Records a delivered fix as the new anchor.
    mutating func delivered(_ location: Location) {
        anchor = location
    }
}
