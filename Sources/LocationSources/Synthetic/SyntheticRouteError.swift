import GeoModel

/// Why a `SyntheticRoute` can't be built; each case names the parameter at fault.
public enum SyntheticRouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The polyline has no coordinates.
    case noWaypoints
    /// Waypoint `index` is not a valid WGS-84 coordinate.
    case invalidWaypoint(index: Int, Coordinate)
    /// `speed` must be a positive, finite number of metres per second.
    case invalidSpeed(Double)
    /// `fixInterval` must be a positive, finite number of seconds.
    case invalidFixInterval(Double)
    /// `noise` must be a finite number of metres, zero or more.
    case invalidNoise(Double)
    /// `horizontalAccuracy` must be a finite number of metres, zero or more.
    case invalidAccuracy(Double)
    /// The route would need more fixes than can be counted (a tiny interval on a huge route).
    case tooManyFixes(Double)

    public var description: String {
        switch self {
        case .noWaypoints: return "synthetic route: waypoints: the route has no coordinates"
        case .invalidWaypoint(let i, let c): return "synthetic route: waypoints[\(i)]: \(c) is not a valid coordinate"
        case .invalidSpeed(let v): return "synthetic route: speed: \(v) is not a positive number of metres per second"
        case .invalidFixInterval(let v): return "synthetic route: fixInterval: \(v) is not a positive number of seconds"
        case .invalidNoise(let v): return "synthetic route: noise: \(v) is not a distance of 0 metres or more"
        case .invalidAccuracy(let v): return "synthetic route: horizontalAccuracy: \(v) is not a distance of 0 metres or more"
        case .tooManyFixes(let n): return "synthetic route: fixInterval: \(n) fixes is too many; use a longer interval"
        }
    }
}
