import LocationSources
import GeoModel

/// The delegate of a ``LocationManager`` (CoreLocation's `CLLocationManagerDelegate`).
///
/// Methods are called on the manager's ``LocationManager/delegateQueue``, one at a time, in event order.
/// Every method has an empty default, so implement only what you need. The manager holds its delegate
/// weakly. Conforming types must be `Sendable` because they are called from the delegate queue, not
/// from the thread that set them.
public protocol LocationManagerDelegate: AnyObject, Sendable {
    /// New accepted fixes, oldest first (currently always exactly one).
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location])
    /// The placemark for an accepted fix (`nil`: outside every unit of the dataset).
    func locationManager(_ manager: LocationManager, didUpdatePlacemark placemark: Placemark?,
                         for location: Location)
    /// The current city changed from `from` to `to`, confirmed by the fix `location`.
    func locationManager(_ manager: LocationManager, cityDidChangeFrom from: Placemark, to: Placemark,
                         at location: Location)
    /// An error: from the source (typed), or `.locationUnknown` when a one-shot request failed.
    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError)
    /// A non-fatal problem (current-placemark file unreadable or not saved).
    func locationManager(_ manager: LocationManager, didReceiveWarning warning: LocationWarning)
    /// An attached ``RegionMonitor``'s event, right after the events of the fix that caused it (see
    /// ``LocationEvent/region(_:)``).
    func locationManager(_ manager: LocationManager, didReceiveRegionEvent event: RegionEvent)
    /// The manager stopped: asked to, the source ended, or a one-shot request finished.
    func locationManager(_ manager: LocationManager, didStopWith reason: LocationManager.StopReason)
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: LocationManager, didUpdatePlacemark placemark: Placemark?,
                                for location: Location) {}
    public func locationManager(_ manager: LocationManager, cityDidChangeFrom from: Placemark, to: Placemark,
                                at location: Location) {}
    public func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {}
    public func locationManager(_ manager: LocationManager, didReceiveWarning warning: LocationWarning) {}
    public func locationManager(_ manager: LocationManager, didReceiveRegionEvent event: RegionEvent) {}
    public func locationManager(_ manager: LocationManager, didStopWith reason: LocationManager.StopReason) {}
}
