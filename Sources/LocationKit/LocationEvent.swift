import LocationSources
import GeoModel

/// Everything a ``LocationManager`` tells its listeners, as one value. The ``LocationManager/updates``
/// sequence yields these; the delegate and the closures receive the same events, in the same order,
/// one method / closure per case.
public enum LocationEvent: Sendable, Hashable {
    /// An accepted fix (passed validity, desiredAccuracy, discard-first and distanceFilter).
    /// Delegate: `didUpdateLocations` (a one-element array). Closure: `onLocation`.
    case location(Location)
    /// The placemark for that fix; `nil` when no unit of the dataset contains it. Always follows its
    /// `.location` event. Delegate: `didUpdatePlacemark`. Closure: `onPlacemark`.
    case placemark(Placemark?, for: Location)
    /// The current city changed (see ``CityChangeHysteresis`` for exactly when). Follows the
    /// `.placemark` event of the fix that confirmed the change. Delegate: `cityDidChangeFrom`.
    /// Closure: `onCityChange`.
    case cityChanged(from: Placemark, to: Placemark, at: Location)
    /// An error (from the source, or a failed one-shot request). Delegate: `didFailWithError`.
    /// Closure: `onError`.
    case error(LocationError)
    /// A problem that does not stop anything (e.g. a corrupt current-placemark file).
    /// Delegate: `didReceiveWarning`. Closure: `onWarning`.
    case warning(LocationWarning)
    /// An event of a ``RegionMonitor`` attached to this manager (``RegionMonitor/attach(to:)``), caused
    /// by the latest fix: it follows that fix's `.placemark` (and its `.cityChanged`, if any) and comes
    /// before the next fix's `.location`, so a consumer sees each region event after the fix that
    /// caused it, in the same order on every run. The monitor's own listeners get the same events.
    /// Delegate: `didReceiveRegionEvent`. Closure: `onRegionEvent`.
    ///
    /// New in this version: a `switch` over `LocationEvent` without a `default` needs this case.
    case region(RegionEvent)
    /// The manager stopped producing events; always the last event of a run.
    /// Delegate: `didStop`. Closure: `onStop`.
    case stopped(LocationManager.StopReason)
}

extension LocationEvent: CustomStringConvertible {
    /// One short line, for logs and test output (not a stable format).
    public var description: String {
        switch self {
        case .location(let l):
            let accuracy = l.horizontalAccuracyIsKnown ? "±\(l.horizontalAccuracy)m" : "accuracy unknown"
            return "location \(l.coordinate) \(accuracy) \(l.quality.rawValue) at \(l.timestamp.timeIntervalSince1970)"
        case .placemark(let p, let l):
            return "placemark \(p.map(Self.describe) ?? "none") for \(l.coordinate)"
        case .cityChanged(let from, let to, let l):
            return "cityChanged \(Self.describe(from)) → \(Self.describe(to)) at \(l.coordinate)"
        case .error(let e): return "error \(e)"
        case .warning(let w): return "warning \(w)"
        case .region(let e): return "region \(e)"
        case .stopped(let r): return "stopped \(r)"
        }
    }

    private static func describe(_ p: Placemark) -> String {
        [p.isoCountryCode ?? p.country, p.administrativeArea, p.localityIsProvinceFallback ? nil : p.locality,
         p.subLocality].compactMap { $0 }.joined(separator: "/")
    }
}
