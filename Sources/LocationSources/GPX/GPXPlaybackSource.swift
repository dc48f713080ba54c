import Foundation
import GeoModel

/// Plays a GPX file (or an already parsed `GPXDocument`) as a location source.
///
/// Follows the document's `playbackPoints` (tracks, else routes, else waypoints, including Xcode's
/// location-simulation files of timed `wpt`s). Each `events()` call reads the file afresh and plays it
/// from the start. A file that can't be parsed (not XML, truncated, empty) yields one
/// `.error(.invalidFile(…))` naming the file and line, and the stream ends. A point with a bad value
/// (`lat="95"`, a `<time>` that is no date) is one `.error(.parse(…))` naming the file, line and
/// field, where the point would have played, and playback goes on with the rest: as NMEA replay does
/// with a rejected line, nothing is dropped silently and one bad point does not cost the track.
///
/// **Any size, bounded memory.** A file is read twice, streaming, on a thread of the run's own: once
/// to check that it parses (so a file cut off at the end is refused before anything plays) and to
/// learn which kind of point plays, then again to play, each point handed over as it is parsed, at
/// most 256 fixes ahead of the consumer. Nothing holds the document.
///
/// **Timeline.** A point's `<time>` is used when present and not earlier than the point before.
/// Otherwise the point comes ``Configuration/untimedInterval`` after the one before: **one second** by
/// default, the rate a receiver logs at. Routes and waypoint lists (`<rtept>`, `<wpt>`) usually have
/// no times; played in real time, an untimed route of N points takes N − 1 seconds whatever the
/// distances, so every point is seen (pacing untimed points by distance at a speed gave Paris → Berlin
/// a day between two waypoints). The first untimed point is at `startDate`, default the moment
/// playback starts. `pacing` decides whether the stream waits out that timeline
/// (``PlaybackPacing/realTime(speedFactor:)``) or delivers at once (``PlaybackPacing/asFastAsPossible``);
/// timestamps are the timeline's either way.
///
/// **Speed and course** come from `<speed>`/`<course>` when the point has them, else from the leg to
/// the point before (or, first in a segment, to the one after): course from the geometry, speed only
/// when both ends have recorded times (a speed from made-up times would be made up too: -1).
///
/// **Accuracy** is `<hdop>` × ``Configuration/metresPerDOP`` (and `<vdop>` likewise); a point without
/// `<hdop>` has an unknown accuracy (negative, unless ``Configuration/horizontalAccuracy`` gives one), and
/// still plays: see ``Location/isValid``.
///
/// Fixes are `.simulated` (so a consumer can tell playback from a live receiver) except a point whose
/// `<fix>` is `none`, which is delivered as an invalid fix (`.none`, negative accuracy).
public final class GPXPlaybackSource: LocationSource {
    /// How to play.
    public struct Configuration: Sendable, Equatable {
        /// One second between untimed points: see the type's notes.
        public static let defaultUntimedInterval: TimeInterval = 1

        /// Real time (optionally sped up) or as fast as possible.
        public var pacing: PlaybackPacing
        /// Seconds from a point to the next one that has no `<time>` (or one earlier than its own).
        /// Negative or non-finite values mean the default.
        public var untimedInterval: TimeInterval
        /// When the first untimed point is reached; `nil` means the moment playback starts.
        public var startDate: Date?
        /// Accuracy reported for points without `<hdop>`, in metres; negative (the default) or not finite: unknown, as
        /// ``Location/horizontalAccuracy`` says it. A GPX file without `<hdop>` says nothing about its
        /// accuracy, so playback does not make a figure up (it used to say 5 m, Xcode's simulated value);
        /// set one (5 for Xcode's) where a consumer needs a number.
        public var horizontalAccuracy: Double
        /// Metres of error per unit of dilution of precision (the receiver's UERE), to turn
        /// `<hdop>` / `<vdop>` into accuracies.
        public var metresPerDOP: Double

        /// Defaults: real time, one second between untimed points, timeline starting when playback
        /// starts, accuracy unknown (-1) without `<hdop>`, 5 m per unit of DOP.
        public init(pacing: PlaybackPacing = .realTime, untimedInterval: TimeInterval = defaultUntimedInterval,
                    startDate: Date? = nil, horizontalAccuracy: Double = -1, metresPerDOP: Double = 5) {
            self.pacing = pacing
            self.untimedInterval = untimedInterval
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

    /// What real-time playback waits on (``PlaybackClock/continuous`` unless a test gives its own).
    public let clock: any PlaybackClock

    /// Plays the GPX file at `url`. The file is read when a run starts, not here.
    public init(contentsOf url: URL, configuration: Configuration = Configuration(), clock: any PlaybackClock = .continuous) {
        self.input = .file(url)
        self.configuration = configuration
        self.clock = clock
    }

    /// Plays an already parsed document; `name` labels error events.
    public init(document: GPXDocument, name: String = "GPX", configuration: Configuration = Configuration(),
                clock: any PlaybackClock = .continuous) {
        self.input = .document(document, name: name)
        self.configuration = configuration
        self.clock = clock
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let input = self.input, configuration = self.configuration
        let runs = self.runs
        let run = PacedPlayback(pacing: configuration.pacing, clock: clock, makeTimeline: {
            Self.timeline(input: input, configuration: configuration)
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
        var builder = GPXTimelineBuilder(configuration: configuration, startDate: startDate)
        var fixes = points.compactMap { builder.add($0) }
        if let last = builder.finish() { fixes.append(last) }
        return fixes
    }

    /// What one run delivers: the timeline, or the one error that prevents it.
    private static func timeline(input: Input, configuration: Configuration) -> PlaybackTimeline {
        switch input {
        case .document(let document, let name):
            let points = document.playbackPoints
            guard !points.isEmpty else { return PlaybackTimeline([.error(.sourceUnavailable(nothingToPlay(name)))]) }
            return PlaybackTimeline(timeline(of: points, configuration: configuration,
                                             startDate: configuration.startDate ?? Date()).map { .location($0) })
        case .file(let url):
            return PlaybackTimeline { handoff in play(url, configuration, into: handoff) }
        }
    }

    /// Checks that the whole file parses, then streams the kind of point that plays through the
    /// timeline, reporting bad points (of any kind: a bad waypoint in a track file is still a bad value
    /// in it) in document order as they are reached.
    private static func play(_ url: URL, _ configuration: Configuration, into handoff: PlaybackHandoff) {
        let counts: GPXPointCounts
        do {
            counts = try GPXParser.read(contentsOf: url, onRejectedPoint: { _ in handoff.isOpen }) { _ in handoff.isOpen }
        } catch {
            _ = handoff.put(.error(.invalidFile(error.description)))
            return
        }
        guard handoff.isOpen else { return }
        guard let kind = counts.playbackKind else {
            _ = handoff.put(.error(.sourceUnavailable(nothingToPlay(url.lastPathComponent))))
            return
        }
        var builder = GPXTimelineBuilder(configuration: configuration, startDate: configuration.startDate ?? Date())
        var open = true
        // The builder gives a point's fix only once the next point is read; a rejection met meanwhile
        // waits for that fix, so events keep the file's order.
        var held: [LocationSourceEvent] = []
        func deliver(_ fix: Location?) {
            if let fix { open = handoff.put(.location(fix)) }
            for event in held where open { open = handoff.put(event) }
            held.removeAll()
        }
        do {
            try GPXParser.read(contentsOf: url, onRejectedPoint: { rejection in
                held.append(.error(.parse(rejection.description)))
                // Memory stays bounded: a long run of bad points after a good one goes out before its fix.
                if !builder.holdsPoint || held.count >= 256 { deliver(nil) }
                return open
            }) { point in
                guard point.kind == kind else { return true }
                if let fix = builder.add(point) { deliver(fix) }
                return open
            }
        } catch {
            // The file changed between the two reads.
            _ = handoff.put(.error(.invalidFile(error.description)))
            return
        }
        if open { deliver(builder.finish()) }
    }

    private static func nothingToPlay(_ name: String) -> String {
        "\(name) has no trkpt, rtept or wpt to play"
    }
}
