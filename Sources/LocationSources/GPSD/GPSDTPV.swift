import Foundation
import GeoModel

/// A gpsd TPV (time-position-velocity) report: the fields this client uses, as gpsd sent them.
/// Absent fields are `nil`; gpsd omits whatever the receiver didn't supply.
public struct GPSDTPV: Sendable, Hashable {
    /// Device path the report came from.
    public var device: String?
    /// 0 = no mode seen yet, 1 = no fix, 2 = 2-D, 3 = 3-D.
    public var mode: Int
    /// Fix status: 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + DR, 7 surveyed time,
    /// 8 simulated, 9 P(Y); absent or 1 means an ordinary GNSS fix.
    public var status: Int?
    /// Receiver time of the fix, UTC.
    public var time: Date?
    /// `lat`, WGS-84 degrees; present when mode is 2 or 3.
    public var latitude: Double?
    /// `lon`, WGS-84 degrees; present when mode is 2 or 3.
    public var longitude: Double?
    /// Height above the ellipsoid (gpsd ≥ 3.20), metres.
    public var altitudeHAE: Double?
    /// Height above mean sea level (gpsd ≥ 3.20), metres.
    public var altitudeMSL: Double?
    /// `alt`: mean sea level in gpsd ≥ 3.20, undefined datum before; used only when `altMSL` is absent.
    public var altitude: Double?
    /// Geoid separation (MSL minus HAE offset), metres.
    public var geoidSeparation: Double?
    /// Ground speed, m/s.
    public var speed: Double?
    /// Course over ground, degrees from true north.
    public var track: Double?
    /// Estimated horizontal position error, metres (95 %).
    public var eph: Double?
    /// Estimated longitude error, metres (95 %).
    public var epx: Double?
    /// Estimated latitude error, metres (95 %).
    public var epy: Double?
    /// Estimated vertical error, metres (95 %).
    public var epv: Double?

    /// A report with the given fields (gpsd's names in the property docs); for tests and replays.
    public init(device: String? = nil, mode: Int, status: Int? = nil, time: Date? = nil,
                latitude: Double? = nil, longitude: Double? = nil, altitudeHAE: Double? = nil,
                altitudeMSL: Double? = nil, altitude: Double? = nil, geoidSeparation: Double? = nil,
                speed: Double? = nil, track: Double? = nil, eph: Double? = nil, epx: Double? = nil,
                epy: Double? = nil, epv: Double? = nil) {
        self.device = device
        self.mode = mode
        self.status = status
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeHAE = altitudeHAE
        self.altitudeMSL = altitudeMSL
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
        self.speed = speed
        self.track = track
        self.eph = eph
        self.epx = epx
        self.epy = epy
        self.epv = epv
    }

    /// The report as a `Location`.
    ///
    /// - Mode 0/1 (no fix), or a fix without lat/lon, is an invalid location: quality `.none`,
    ///   negative accuracy (and NaN coordinates when gpsd sent none).
    /// - `horizontalAccuracy` is `eph` (when not negative); else the larger-axis combination √(epx² + epy²); else
    ///   `assumedHorizontalAccuracy`; else -1, unknown: gpsd had no error estimate (an RMC-only
    ///   receiver). The fix is still valid (``Location/isValid``), and an unknown accuracy does not pass
    ///   as a good one: the manager drops it under any finite `desiredAccuracy`.
    /// - `altitude` is `altMSL`, else `alt`, else `altHAE − geoidSep`.
    /// - `timestamp` is the receiver's `time`, else `receivedAt` (gpsd omits time until it knows the date).
    public func location(receivedAt: Date, assumedHorizontalAccuracy: Double? = nil) -> Location {
        let coordinate = Coordinate(latitude: latitude ?? .nan, longitude: longitude ?? .nan)
        let hasFix = mode >= 2 && latitude != nil && longitude != nil

        var horizontal = -1.0
        if hasFix {
            // A negative eph is no error estimate (gpsd never sends one); it used to make the fix invalid,
            // and now that negative means "unknown" it would pass for one: taken as absent instead.
            if let eph, eph >= 0 {
                horizontal = eph
            } else if let epx, let epy {
                horizontal = (epx * epx + epy * epy).squareRoot()
            } else if let assumedHorizontalAccuracy {
                horizontal = assumedHorizontalAccuracy
            }
        }

        var height = altitudeMSL ?? altitude
        if height == nil, let altitudeHAE, let geoidSeparation { height = altitudeHAE - geoidSeparation }

        let quality: Location.FixQuality
        switch (hasFix, status) {
        case (false, _): quality = .none
        case (true, 2?): quality = .differential
        case (true, 3?), (true, 4?): quality = .rtk
        case (true, 5?), (true, 6?): quality = .estimated
        case (true, 8?): quality = .simulated
        default: quality = mode >= 3 ? .fix3D : .fix2D
        }

        return Location(coordinate: coordinate, altitude: hasFix ? height : nil,
                        horizontalAccuracy: horizontal,
                        verticalAccuracy: hasFix && height != nil ? (epv ?? -1) : -1,
                        speed: speed ?? -1, course: track ?? -1,
                        timestamp: time ?? receivedAt, quality: quality)
    }
}
