import Foundation
import GeoModel

/// A simulated journey along a polyline: fixes every `fixInterval` seconds while moving at `speed`,
/// following great circles between the waypoints, each displaced by seeded random noise.
///
/// Pure and deterministic: the same parameters and seed give the same fixes, bit for bit, on every run
/// and platform. Fixes are computed by index (`fix(_:startingAt:)`), so a long route at a short interval
/// is never held in memory. The first fix is at the first waypoint (plus noise); the last is exactly at
/// the route's end (plus noise), even when the length isn't a whole number of intervals.
public struct SyntheticRoute: Sendable, Hashable {
    /// The polyline.
    public let waypoints: [Coordinate]
    /// Metres per second along the route.
    public let speed: Double
    /// Seconds between fixes.
    public let fixInterval: Double
    /// Each fix is moved up to this many metres from the true position, uniformly over the disc of that
    /// radius in a random direction. Bounded (rather than Gaussian) so a consumer's test can rely on it.
    public let noise: Double
    /// Seed of the noise.
    public let seed: UInt64
    /// Accuracy the fixes report; `nil` reports `noise`, the largest error a fix can actually have.
    public let horizontalAccuracy: Double?
    /// Cumulative distance at each waypoint, metres.
    private let cumulative: [Double]

    /// - Throws: `SyntheticRouteError` naming the first invalid parameter.
    public init(waypoints: [Coordinate], speed: Double, fixInterval: Double = 1, noise: Double = 0,
                seed: UInt64 = 0, horizontalAccuracy: Double? = nil) throws(SyntheticRouteError) {
        guard !waypoints.isEmpty else { throw .noWaypoints }
        if let bad = waypoints.firstIndex(where: { !$0.isValid }) { throw .invalidWaypoint(index: bad, waypoints[bad]) }
        guard speed > 0, speed.isFinite else { throw .invalidSpeed(speed) }
        guard fixInterval > 0, fixInterval.isFinite else { throw .invalidFixInterval(fixInterval) }
        guard noise >= 0, noise.isFinite else { throw .invalidNoise(noise) }
        if let horizontalAccuracy, !(horizontalAccuracy >= 0 && horizontalAccuracy.isFinite) {
            throw .invalidAccuracy(horizontalAccuracy)
        }
        var cumulative = [0.0]
        for (a, b) in zip(waypoints, waypoints.dropFirst()) { cumulative.append(cumulative.last! + a.distance(to: b)) }
        let intervals = cumulative.last! / speed / fixInterval
        guard intervals < 1e12 else { throw .tooManyFixes(intervals) }

        self.waypoints = waypoints
        self.speed = speed
        self.fixInterval = fixInterval
        self.noise = noise
        self.seed = seed
        self.horizontalAccuracy = horizontalAccuracy
        self.cumulative = cumulative
    }

    /// Great-circle length of the polyline, metres.
    public var length: Double { cumulative.last! }

    /// Seconds from the first fix to the last.
    public var duration: Double { length / speed }

    /// How many fixes the route produces: one per interval, plus one at the end if the end falls between.
    public var fixCount: Int {
        let (whole, remainder) = wholeIntervals
        return whole + 1 + (remainder ? 1 : 0)
    }

    /// Fix `index` (0..<fixCount) of a journey that starts at `startDate`.
    public func fix(_ index: Int, startingAt startDate: Date) -> Location {
        precondition(index >= 0 && index < fixCount, "fix index \(index) outside 0..<\(fixCount)")
        let elapsed = index == fixCount - 1 ? duration : Double(index) * fixInterval
        let (truePosition, course) = position(at: min(elapsed * speed, length))

        var random = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        let direction = random.unitInterval() * 360
        // √u makes the displacement uniform over the disc's area rather than bunched at its centre.
        let radius = noise * random.unitInterval().squareRoot()
        let coordinate = noise > 0
            ? GreatCircle.destination(from: truePosition, bearing: direction, distance: radius)
            : truePosition

        return Location(coordinate: coordinate, altitude: nil, horizontalAccuracy: horizontalAccuracy ?? noise,
                        speed: waypoints.count > 1 && length > 0 ? speed : 0, course: course,
                        timestamp: startDate.addingTimeInterval(elapsed), quality: .simulated)
    }

    /// All fixes of a journey that starts at `startDate`, in order.
    public func fixes(startingAt startDate: Date) -> [Location] {
        (0..<fixCount).map { fix($0, startingAt: startDate) }
    }

    /// Intervals that fit in the duration, and whether a shorter one is left over. A duration that is a
    /// whole number of intervals up to rounding counts as whole, so the end isn't reported twice.
    private var wholeIntervals: (Int, Bool) {
        let q = duration / fixInterval
        let nearest = q.rounded()
        if abs(q - nearest) <= 1e-9 * max(1, q) { return (Int(nearest), false) }
        return (Int(q.rounded(.down)), true)
    }

    /// The point `distance` metres along the polyline, and the direction of travel there
    /// (-1 for a route that doesn't move).
    private func position(at distance: Double) -> (Coordinate, Double) {
        guard waypoints.count > 1, length > 0 else { return (waypoints[0], -1) }
        // Last segment starting at or before `distance` that has length (zero-length legs are skipped).
        var low = 0, high = waypoints.count - 2
        while low < high {
            let mid = (low + high + 1) / 2
            if cumulative[mid] <= distance { low = mid } else { high = mid - 1 }
        }
        var segment = low
        while segment > 0, cumulative[segment + 1] - cumulative[segment] <= 0 { segment -= 1 }
        while cumulative[segment + 1] - cumulative[segment] <= 0 { segment += 1 }

        let a = waypoints[segment], b = waypoints[segment + 1]
        let legLength = cumulative[segment + 1] - cumulative[segment]
        let fraction = max(0, min(1, (distance - cumulative[segment]) / legLength))
        let point = GreatCircle.interpolate(from: a, to: b, fraction: fraction)
        // Heading along the great circle at this point: towards the leg's end, or at the end, away from its start.
        let course = fraction < 1
            ? GreatCircle.bearing(from: point, to: b)
            : (GreatCircle.bearing(from: b, to: a) + 180).truncatingRemainder(dividingBy: 360)
        return (point, course)
    }
}
