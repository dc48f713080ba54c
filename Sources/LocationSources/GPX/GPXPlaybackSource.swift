import Foundation
import GeoModel

/// Plays a GPX file (or an already parsed `GPXDocument`) as a location source.
///
/// Follows the document's `playbackPoints` (tracks, else routes, else waypoints, including Xcode's
/// location-simulation files of timed `wpt`s). Each `events()` call reads the file afresh and plays it
/// from the start; a file that can't be read or parsed yields one `.error(.parse(…))` naming the file,
/// line and field, and the stream ends.
///
/// Timeline: a point's `<time>` is used when present and not earlier than the point before;
/// otherwise the point is reached `distance / speed` seconds after the one before (the first untimed
/// point is at `startDate`, default the moment playback starts). `pacing` decides whether the stream
/// waits out that timeline or delivers at once; timestamps are the timeline's either way.
///
/// Fixes are `.simulated` (so a consumer can tell playback from a live receiver) except a point whose
/// `<fix>` is `none`, which is delivered as an invalid fix (`.none`, negative accuracy).
public final class GPXPlaybackSource: LocationSource {
    /// How to play.
    public struct Configuration: Sendable, Equatable {
        /// Real time (optionally sped up) or as fast as possible.
        public var pacing: PlaybackPacing
        /// Metres per second between points that have no `<time>`.
        public var speed: Double
        /// When the first untimed point is reached; `nil` means the moment playback starts.
        public var startDate: Date?
        /// Accuracy reported for points without `<hdop>`, in metres.
        public var horizontalAccuracy: Double
        /// Metres of error per unit of dilution of precision (the receiver's UERE), to turn
        /// `<hdop>` / `<vdop>` into accuracies.
        public var metresPerDOP: Double

        /// Defaults: real time, 10 m/s (36 km/h, a city drive) between untimed points, timeline starting
        /// when playback starts, 5 m accuracy without `<hdop>`, 5 m per unit of DOP.
        public init(pacing: PlaybackPacing = .realTime, speed: Double = 10, startDate: Date? = nil,
                    horizontalAccuracy: Double = 5, metresPerDOP: Double = 5) {
            self.pacing = pacing
            self.speed = speed
            self.startDate = startDate
            self.horizontalAccuracy = horizontalAccuracy
            self.metresPerDOP = metresPerDOP
        }
    }

    private enum Input: Sendable {
        case file(URL)
        case document(GPXDocument, name: String)
    }

    private let input: Input
    /// How this source plays.
    public let configuration: Configuration
    /// Runs started by `events()` that are still going (internal for tests).
    let runs = SourceRuns()

    /// Plays the GPX file at `url`. The file is read when a run starts, not here.
    public init(contentsOf url: URL, configuration: Configuration = Configuration()) {
        self.input = .file(url)
        self.configuration = configuration
    }

    /// Plays an already parsed document; `name` labels error events.
    public init(document: GPXDocument, name: String = "GPX", configuration: Configuration = Configuration()) {
        self.input = .document(document, name: name)
        self.configuration = configuration
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let input = self.input, configuration = self.configuration
        let runs = self.runs
        let run = PacedPlayback(pacing: configuration.pacing, makeTimeline: {
            PlaybackTimeline(Self.events(input: input, configuration: configuration))
        }, finished: { runs.remove($0) })
        runs.insert(run)
        return run.stream()
    }

    public func stop() {
        runs.stopAll()
    }

    /// The fixes playback delivers for `points`, in order, with the timeline described on the type.
    /// Pure, so tests and tools can inspect a playback without running it.
    public static func timeline(of points: [GPXPoint], configuration: Configuration = Configuration(),
                                startDate: Date) -> [Location] {
        guard !points.isEmpty else { return [] }
        let speed = configuration.speed > 0 && configuration.speed.isFinite ? configuration.speed : 10

        var times: [Date] = []
        times.reserveCapacity(points.count)
        for (i, point) in points.enumerated() {
            guard i > 0 else {
                times.append(point.time ?? startDate)
                continue
            }
            let previous = times[i - 1]
            if let time = point.time, time >= previous {
                times.append(time)
            } else {
                let metres = points[i - 1].coordinate.distance(to: point.coordinate)
                times.append(previous.addingTimeInterval(metres / speed))
            }
        }

        return points.indices.map { i in
            let point = points[i]
            // Movement is measured along the segment leading to the point (or, for the first point of a
            // segment, the one leaving it); across trkseg/rte boundaries there was no real movement.
            var leg: (from: Int, to: Int)?
            if i > 0, points[i - 1].segment == point.segment {
                leg = (i - 1, i)
            } else if i + 1 < points.count, points[i + 1].segment == point.segment {
                leg = (i, i + 1)
            }
            var speedValue = point.speed ?? -1
            var course = point.course ?? -1
            if let leg {
                let a = points[leg.from].coordinate, b = points[leg.to].coordinate
                let metres = a.distance(to: b)
                let seconds = times[leg.to].timeIntervalSince(times[leg.from])
                if point.speed == nil, seconds > 0 { speedValue = metres / seconds }
                if point.course == nil, metres > 0 { course = GreatCircle.bearing(from: a, to: b) }
            }
            let invalid = point.fix == GPXPoint.Fix.none
            let horizontal = invalid ? -1
                : point.hdop.map { $0 * configuration.metresPerDOP } ?? configuration.horizontalAccuracy
            let vertical = point.vdop.map { $0 * configuration.metresPerDOP } ?? -1
            return Location(coordinate: point.coordinate, altitude: point.elevation,
                            horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                            speed: speedValue, course: course, timestamp: times[i],
                            quality: invalid ? .none : .simulated)
        }
    }

    /// What one run delivers: the timeline, or the one error that prevents it.
    private static func events(input: Input, configuration: Configuration) -> [LocationSourceEvent] {
        let document: GPXDocument, name: String
        switch input {
        case .file(let url):
            name = url.lastPathComponent
            do {
                document = try GPXParser.parse(contentsOf: url)
            } catch {
                return [.error(.parse(error.description))]
            }
        case .document(let d, let n):
            document = d
            name = n
        }
        let points = document.playbackPoints
        guard !points.isEmpty else {
            return [.error(.sourceUnavailable("\(name) has no trkpt, rtept or wpt to play"))]
        }
        return timeline(of: points, configuration: configuration, startDate: configuration.startDate ?? Date())
            .map { .location($0) }
    }
}
