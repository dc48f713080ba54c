import Foundation
import GeoModel

/// One point of a GPX file (`trkpt`, `rtept` or `wpt`), with the optional fields playback uses.
/// Values are exactly what the file says; nothing is derived here.
public struct GPXPoint: Sendable, Hashable {
    /// Which GPX element the point came from.
    public enum Kind: String, Sendable, Hashable {
        case trackPoint = "trkpt"
        case routePoint = "rtept"
        case waypoint = "wpt"
    }

    /// GPX 1.1 `fixType`: the kind of fix the recording receiver had.
    public enum Fix: String, Sendable, Hashable {
        case none
        case twoD = "2d"
        case threeD = "3d"
        case dgps
        case pps
    }

    /// The element the point came from.
    public var kind: Kind
    /// `lat` / `lon` attributes (WGS-84 degrees).
    public var coordinate: Coordinate
    /// `<ele>`: metres (GPX 1.1 leaves the reference open; receivers write height above mean sea level).
    public var elevation: Double?
    /// `<time>`, UTC.
    public var time: Date?
    /// `<hdop>`: horizontal dilution of precision.
    public var hdop: Double?
    /// `<vdop>`: vertical dilution of precision.
    public var vdop: Double?
    /// `<fix>`.
    public var fix: Fix?
    /// `<speed>` (GPX 1.0 only; metres per second).
    public var speed: Double?
    /// `<course>` (GPX 1.0 only; degrees from true north).
    public var course: Double?
    /// `<name>`.
    public var name: String?
    /// Running number of the `trkseg` / `rte` the point belongs to (0 for waypoints), so playback
    /// can tell a gap between segments from movement.
    public var segment: Int
    /// 1-based line of the point's element in the file, for messages about it.
    public var line: Int

    /// A point with the given values (for building documents in code; the parser fills `segment` and `line`).
    public init(kind: Kind, coordinate: Coordinate, elevation: Double? = nil, time: Date? = nil,
                hdop: Double? = nil, vdop: Double? = nil, fix: Fix? = nil, speed: Double? = nil,
                course: Double? = nil, name: String? = nil, segment: Int = 0, line: Int = 0) {
        self.kind = kind
        self.coordinate = coordinate
        self.elevation = elevation
        self.time = time
        self.hdop = hdop
        self.vdop = vdop
        self.fix = fix
        self.speed = speed
        self.course = course
        self.name = name
        self.segment = segment
        self.line = line
    }
}
