/// How many points of each kind a GPX file holds: what a streaming read returns, and what decides
/// which kind playback follows without keeping the points. Points with a bad value count too: a track
/// with a rejected point is still the track the file holds, not a reason to play its waypoints.
public struct GPXPointCounts: Sendable, Hashable {
    /// `trkpt` elements.
    public var trackPoints = 0
    /// `rtept` elements.
    public var routePoints = 0
    /// Top-level `wpt` elements.
    public var waypoints = 0

    public init(trackPoints: Int = 0, routePoints: Int = 0, waypoints: Int = 0) {
        self.trackPoints = trackPoints
        self.routePoints = routePoints
        self.waypoints = waypoints
    }

    /// Counts one more point of `kind`.
    mutating func add(_ kind: GPXPoint.Kind) {
        switch kind {
        case .trackPoint: trackPoints += 1
        case .routePoint: routePoints += 1
        case .waypoint: waypoints += 1
        }
    }

    /// The kind playback follows, as ``GPXDocument/playbackPoints`` chooses it: tracks if there are
    /// any, else routes, else waypoints; `nil` for a file without points.
    public var playbackKind: GPXPoint.Kind? {
        if trackPoints > 0 { return .trackPoint }
        if routePoints > 0 { return .routePoint }
        if waypoints > 0 { return .waypoint }
        return nil
    }

    /// The number of points of ``playbackKind``.
    public var playbackCount: Int {
        switch playbackKind {
        case .trackPoint?: return trackPoints
        case .routePoint?: return routePoints
        case .waypoint?: return waypoints
        case nil: return 0
        }
    }
}
