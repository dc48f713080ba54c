import Foundation
import GeoModel

/// One position fix, as CoreLocation's `CLLocation` describes it. Coordinates are always WGS-84
/// (what receivers report); unknown values are `nil` (or negative accuracy), never a made-up 0.
///
/// **Unknown accuracy.** A negative ``horizontalAccuracy`` says the source does not know how accurate
/// the position is (a GPX point without `<hdop>`, an NMEA cycle without HDOP or GST, gpsd without an
/// error estimate): as in CoreLocation, do not read it as a radius. Whether there is a position at all
/// is ``quality`` (``FixQuality/none``: none), so such a fix is still ``isValid``; ``LocationManager``
/// delivers it unless a finite `desiredAccuracy` asks for an accuracy it cannot be shown to have.
public struct Location: Sendable, Hashable, Codable {
    /// How good the receiver says the fix is.
    public enum FixQuality: String, Sendable, Codable {
        /// The receiver reports no usable position.
        case none
        /// A 2-D fix (no altitude).
        case fix2D
        /// A 3-D fix.
        case fix3D
        /// Differential (DGPS, SBAS) fix.
        case differential
        /// RTK fixed / float, or other survey-grade fix.
        case rtk
        /// Dead reckoning / estimated.
        case estimated
        /// Simulated or manual input (playback, synthetic routes).
        case simulated
    }

    /// WGS-84 position.
    public var coordinate: Coordinate
    /// Metres above mean sea level, when known.
    public var altitude: Double?
    /// Radius of uncertainty in metres; negative means unknown (CoreLocation's convention: not a radius to
    /// trust). See ``horizontalAccuracyIsKnown``.
    public var horizontalAccuracy: Double
    /// Altitude uncertainty in metres; negative means unknown.
    public var verticalAccuracy: Double
    /// Ground speed in metres per second; negative means unknown.
    public var speed: Double
    /// Course over ground in degrees from true north; negative means unknown.
    public var course: Double
    /// When the fix was taken (receiver time where it gave one).
    public var timestamp: Date
    /// The receiver's quality for this fix.
    public var quality: FixQuality

    public init(coordinate: Coordinate, altitude: Double? = nil, horizontalAccuracy: Double,
                verticalAccuracy: Double = -1, speed: Double = -1, course: Double = -1,
                timestamp: Date, quality: FixQuality) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.quality = quality
    }

    /// A fix an app may use: a real position (``quality`` not ``FixQuality/none``, a valid coordinate)
    /// whose accuracy is a finite number, known (≥ 0) or unknown (negative). NaN or infinite accuracy is
    /// garbage, not "unknown", and makes the fix invalid.
    ///
    /// (A negative accuracy used to make a fix invalid too, so a source with a position but no error
    /// estimate had to make one up, as GPX playback's 5 m, or see its fixes dropped.)
    public var isValid: Bool { quality != .none && horizontalAccuracy.isFinite && coordinate.isValid }

    /// Whether ``horizontalAccuracy`` is a radius in metres (≥ 0), not the "unknown" of a negative value.
    public var horizontalAccuracyIsKnown: Bool { horizontalAccuracy >= 0 && horizontalAccuracy.isFinite }
}

extension Location {
    /// A location at a WGS-84 latitude and longitude, as `CLLocation(latitude:longitude:)` makes one:
    /// accuracy 0 m, altitude, speed and course unknown, timestamped now, quality ``FixQuality/simulated``
    /// (nobody measured it).
    public init(latitude: Double, longitude: Double, timestamp: Date = Date()) {
        self.init(coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: 0,
                  timestamp: timestamp, quality: .simulated)
    }

    /// A location at a WGS-84 coordinate (see ``init(latitude:longitude:timestamp:)``).
    public init(_ coordinate: Coordinate, timestamp: Date = Date()) {
        self.init(coordinate: coordinate, horizontalAccuracy: 0, timestamp: timestamp, quality: .simulated)
    }
}

extension Coordinate {
    /// The location's WGS-84 coordinate (the same as `location.coordinate`).
    public init(_ location: Location) { self = location.coordinate }
}
