import Foundation
import GeoModel

/// Turns GPX points into playback fixes one at a time, by the rules on ``GPXPlaybackSource``
/// (timeline, speed and course from the neighbouring points), holding only the point before and the
/// point after the one it completes: so a file of any length plays in constant memory.
struct GPXTimelineBuilder {
    private struct Stamped {
        var point: GPXPoint
        var time: Date
        /// The time is the file's own, not one playback gave an untimed point.
        var isRecorded: Bool
    }

    private let configuration: GPXPlaybackSource.Configuration
    private let startDate: Date
    private let interval: TimeInterval
    private var previous: Stamped?
    private var current: Stamped?

    init(configuration: GPXPlaybackSource.Configuration, startDate: Date) {
        self.configuration = configuration
        self.startDate = startDate
        let interval = configuration.untimedInterval
        self.interval = interval >= 0 && interval.isFinite ? interval : GPXPlaybackSource.Configuration.defaultUntimedInterval
    }

    /// Adds the next point; returns the fix of the point before it, now that its neighbours are known.
    mutating func add(_ point: GPXPoint) -> Location? {
        let stamped = stamp(point)
        defer {
            previous = current
            current = stamped
        }
        guard let current else { return nil }
        return location(of: current, before: previous, after: stamped)
    }

    /// A point was added whose fix is still to come (from the next `add` or `finish`).
    var holdsPoint: Bool { current != nil }

    /// The fix of the last point, at the end of the points.
    mutating func finish() -> Location? {
        defer {
            previous = nil
            current = nil
        }
        guard let current else { return nil }
        return location(of: current, before: previous, after: nil)
    }

    private func stamp(_ point: GPXPoint) -> Stamped {
        guard let last = current else {
            return Stamped(point: point, time: point.time ?? startDate, isRecorded: point.time != nil)
        }
        if let time = point.time, time >= last.time {
            return Stamped(point: point, time: time, isRecorded: true)
        }
        return Stamped(point: point, time: last.time.addingTimeInterval(interval), isRecorded: false)
    }

    private func location(of stamped: Stamped, before: Stamped?, after: Stamped?) -> Location {
        let point = stamped.point
        // Movement is measured along the segment leading to the point (or, for the first point of a
        // segment, the one leaving it); across trkseg/rte boundaries there was no real movement.
        var leg: (from: Stamped, to: Stamped)?
        if let before, before.point.segment == point.segment {
            leg = (before, stamped)
        } else if let after, after.point.segment == point.segment {
            leg = (stamped, after)
        }
        var speed = point.speed ?? -1
        var course = point.course ?? -1
        if let leg {
            let a = leg.from.point.coordinate, b = leg.to.point.coordinate
            let metres = a.distance(to: b)
            let seconds = leg.to.time.timeIntervalSince(leg.from.time)
            // A speed from times playback made up would be invented; only recorded times give one.
            if point.speed == nil, seconds > 0, leg.from.isRecorded, leg.to.isRecorded { speed = metres / seconds }
            if point.course == nil, metres > 0 { course = GreatCircle.bearing(from: a, to: b) }
        }
        let invalid = point.fix == GPXPoint.Fix.none
        // Without <hdop> the file says nothing of the accuracy: unknown (negative), not a made-up figure,
        // unless the configuration gives one.
        let assumed = configuration.horizontalAccuracy.isFinite ? configuration.horizontalAccuracy : -1
        let horizontal = invalid ? -1 : point.hdop.map { $0 * configuration.metresPerDOP } ?? assumed
        let vertical = point.vdop.map { $0 * configuration.metresPerDOP } ?? -1
        return Location(coordinate: point.coordinate, altitude: point.elevation,
                        horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                        speed: speed, course: course, timestamp: stamped.time,
                        quality: invalid ? .none : .simulated)
    }
}
