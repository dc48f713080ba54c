import Dispatch
import Foundation
import LocationSources
import GeoModel

// The configuration: filters, timeouts, hysteresis. Readable and settable from any thread; the work
// queue reads a snapshot per fix.
extension LocationManager {
    struct Settings: Sendable {
        var distanceFilter = LocationManager.distanceFilterNone
        var desiredAccuracy = LocationManager.accuracyAny
        var discardsFirstFix = false
        var requestTimeout: TimeInterval = 30
        var cityChangeHysteresis = CityChangeHysteresis.default
        var placemarkReuseDistance: Double = 0
        var significantChange = SignificantChangeOptions.default
    }

    /// Minimum distance in metres (great circle) between delivered fixes; ≤ 0 (the default,
    /// ``distanceFilterNone``) delivers every accepted fix. Takes effect from the next fix.
    public var distanceFilter: Double {
        get { settings.withLock { $0.distanceFilter } }
        set { settings.withLock { $0.distanceFilter = newValue } }
    }

    /// Fixes whose `horizontalAccuracy` (metres) is worse (larger) than this are dropped, and, unless it
    /// is ``accuracyAny`` (the default), fixes whose accuracy is unknown (negative). The
    /// significant-change service ignores it, as CoreLocation's does.
    public var desiredAccuracy: Double {
        get { settings.withLock { $0.desiredAccuracy } }
        set { settings.withLock { $0.desiredAccuracy = newValue } }
    }

    /// Drop the first valid fix of each run as possibly stale. Default `false`.
    public var discardsFirstFix: Bool {
        get { settings.withLock { $0.discardsFirstFix } }
        set { settings.withLock { $0.discardsFirstFix = newValue } }
    }

    /// Seconds a one-shot request waits for an acceptable fix before failing with `.locationUnknown`,
    /// on ``clock``. Read when the request starts. Default 30.
    public var requestTimeout: TimeInterval {
        get { settings.withLock { $0.requestTimeout } }
        set { settings.withLock { $0.requestTimeout = newValue } }
    }

    /// When a new city replaces the current one; see ``CityChangeHysteresis``. Default `.default`.
    public var cityChangeHysteresis: CityChangeHysteresis {
        get { settings.withLock { $0.cityChangeHysteresis } }
        set { settings.withLock { $0.cityChangeHysteresis = newValue } }
    }

    /// A fix within this many metres of the last coordinate the provider was asked about reuses that
    /// answer without a lookup. The default 0 reuses only for the identical coordinate (a parked
    /// receiver), which is always exact; a larger value trades exactness near borders for fewer lookups.
    public var placemarkReuseDistance: Double {
        get { settings.withLock { $0.placemarkReuseDistance } }
        set { settings.withLock { $0.placemarkReuseDistance = newValue } }
    }

    /// What ``startMonitoringSignificantLocationChanges()`` counts as significant. Default `.default`
    /// (500 m or 5 minutes). Takes effect from the next fix.
    public var significantChangeOptions: SignificantChangeOptions {
        get { settings.withLock { $0.significantChange } }
        set { settings.withLock { $0.significantChange = newValue } }
    }
}
