/// The points of a GPX file, grouped by kind, each list in document order.
public struct GPXDocument: Sendable, Hashable {
    /// Every `trkpt` of every `trk`/`trkseg`.
    public var trackPoints: [GPXPoint]
    /// Every `rtept` of every `rte`.
    public var routePoints: [GPXPoint]
    /// Every top-level `wpt` (Xcode's location-simulation files are a list of these with `<time>`).
    public var waypoints: [GPXPoint]

    /// A document with the given point lists, each in playback order.
    public init(trackPoints: [GPXPoint] = [], routePoints: [GPXPoint] = [], waypoints: [GPXPoint] = []) {
        self.trackPoints = trackPoints
        self.routePoints = routePoints
        self.waypoints = waypoints
    }

    /// Adds `point` to the list of its kind.
    public mutating func append(_ point: GPXPoint) {
        switch point.kind {
        case .trackPoint: trackPoints.append(point)
        case .routePoint: routePoints.append(point)
        case .waypoint: waypoints.append(point)
        }
    }

    /// What playback follows: the tracks if there are any, else the routes, else the waypoints.
    /// Only one kind, because a file that has a track usually lists its waypoints as points of interest,
    /// not as places the recording passed through.
    public var playbackPoints: [GPXPoint] {
        if !trackPoints.isEmpty { return trackPoints }
        if !routePoints.isEmpty { return routePoints }
        return waypoints
    }
}
