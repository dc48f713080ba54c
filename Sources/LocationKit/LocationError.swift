import GeoModel
import LocationSources

/// Why the manager could not deliver a location (CoreLocation's `CLError`, for this package).
///
/// Every error a source reports reaches the listeners as one of these (``init(_:)`` maps
/// `LocationSourceError`); nothing is dropped or only logged.
public enum LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A one-shot request (``LocationManager/requestLocation()``, ``LocationManager/locate()``) got no
    /// acceptable fix: its timeout passed, or the source ended first.
    case locationUnknown
    /// The source could not be opened or reached (device, file, server). Mapped from the source.
    case sourceUnavailable(String)
    /// An open device went away; sources that can reconnect keep trying. Mapped from the source.
    case deviceDisconnected(String)
    /// The source met a record it could not parse (file, line and reason), skipped it and went on.
    /// Mapped from the source.
    case parse(String)
    /// A file the source could not parse at all (not XML, truncated); it ended without playing it.
    /// Mapped from the source.
    case invalidFile(String)
    /// Only thrown by ``LocationManager/locate()``: the awaiting task was cancelled, or
    /// ``LocationManager/stopUpdatingLocation()`` ended the request. Never delivered as an event.
    case cancelled
    /// The placemark provider could not answer an accepted fix: its ``GeocoderError``'s description (an
    /// invalid coordinate from a source, or the engine's GEOS failing), never "no place". The fix is still
    /// delivered, with no placemark.
    case geocodingFailed(String)

    /// The typed form of a source's error.
    public init(_ error: LocationSourceError) {
        switch error {
        case .sourceUnavailable(let s): self = .sourceUnavailable(s)
        case .deviceDisconnected(let s): self = .deviceDisconnected(s)
        case .parse(let s): self = .parse(s)
        case .invalidFile(let s): self = .invalidFile(s)
        }
    }

    public var description: String {
        switch self {
        case .locationUnknown: return "location unknown: no acceptable fix"
        case .sourceUnavailable(let s): return "source unavailable: \(s)"
        case .deviceDisconnected(let s): return "device disconnected: \(s)"
        case .parse(let s): return "parse error: \(s)"
        case .invalidFile(let s): return "invalid file: \(s)"
        case .cancelled: return "location request cancelled"
        case .geocodingFailed(let s): return "geocoding failed: \(s)"
        }
    }
}

/// Something the user should hear about that does not stop the manager. New cases may be added (as
/// ``unknownAccuracyDropped(desiredAccuracy:)`` was): switch over it with a `default`.
public enum LocationWarning: Sendable, Hashable, CustomStringConvertible {
    /// The current-placemark file exists but could not be read or decoded; it was ignored (and will be
    /// replaced on the next save).
    case currentPlacemarkUnreadable(path: String, reason: String)
    /// Saving the current placemark failed; the manager keeps going with the in-memory value.
    case currentPlacemarkNotSaved(path: String, reason: String)
    /// A fix whose accuracy is unknown (negative `horizontalAccuracy`: a GPX point without `<hdop>`, an
    /// NMEA cycle without HDOP or GST) was dropped because ``LocationManager/desiredAccuracy`` is finite:
    /// it cannot be shown to be that accurate. Sent once per run, at the first such fix;
    /// ``LocationManager/accuracyAny`` takes them.
    case unknownAccuracyDropped(desiredAccuracy: Double)

    public var description: String {
        switch self {
        case .currentPlacemarkUnreadable(let path, let reason):
            return "ignoring unreadable current-placemark file \(path): \(reason)"
        case .currentPlacemarkNotSaved(let path, let reason):
            return "could not save current placemark to \(path): \(reason)"
        case .unknownAccuracyDropped(let metres):
            return "fixes of unknown accuracy are dropped: desired accuracy is \(metres) m (accept any accuracy to keep them)"
        }
    }
}
