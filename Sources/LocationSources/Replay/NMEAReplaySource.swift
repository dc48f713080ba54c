import Foundation
import Synchronization

/// Plays a recorded NMEA log (a file of sentences, as `gpspipe -r`, a receiver's SD card or gpsd's
/// regression logs have them) as a location source.
///
/// Each `events()` call reads the file afresh from the start on its own task, decodes it with
/// ``NMEALocationDecoder`` (so fixes are exactly what a live receiver sending those bytes would give)
/// and delivers them:
/// - ``PlaybackPacing/asFastAsPossible``: as fast as the consumer takes them;
/// - ``PlaybackPacing/realTime(speedFactor:)``: spaced as the fixes' timestamps are, divided by the
///   factor (1 is real time). Pauses are measured from the start of the run, so they do not drift, and a
///   recording gap (a receiver switched off for an hour) waits at most ``Configuration/maximumPause``.
///   A timestamp earlier than the one before is delivered at once.
///
/// Lines that are rejected (bad checksum, cut off, text that is no sentence at all; see
/// ``NMEAStreamReader`` for the lines that are silent by design) arrive as
/// `.error(.parse("file:line: reason: text"))` and playback continues; a file that cannot be read
/// yields one `.error(.sourceUnavailable(…))`. The stream finishes at the end of the file, on
/// ``stop()``, or when the consumer stops listening. Timestamps are the receiver's, unchanged.
public final class NMEAReplaySource: LocationSource {
    /// The pacing type this source had of its own, now the shared ``PlaybackPacing``.
    @available(*, deprecated, renamed: "PlaybackPacing")
    public typealias Pacing = PlaybackPacing

    /// How to play.
    public struct Configuration: Sendable {
        /// Real time (optionally sped up) or as fast as possible.
        public var pacing: PlaybackPacing
        /// The longest single wait (wall clock), however long the recording paused.
        public var maximumPause: Duration
        /// Parser tolerance; hand-edited logs may need `.lenient`.
        public var parser: NMEAParser.Options
        /// Cycle merging and accuracy (UERE) settings.
        public var assembler: NMEAFixAssembler.Configuration
        /// Deliver rejected lines as `.error(.parse(…))` events (on by default: a log is evidence).
        public var reportsRejectedLines: Bool

        public init(pacing: PlaybackPacing = .realTime, maximumPause: Duration = .seconds(10),
                    parser: NMEAParser.Options = .strict, assembler: NMEAFixAssembler.Configuration = .init(),
                    reportsRejectedLines: Bool = true) {
            self.pacing = pacing
            self.maximumPause = maximumPause
            self.parser = parser
            self.assembler = assembler
            self.reportsRejectedLines = reportsRejectedLines
        }
    }

    /// The log being played.
    public let url: URL
    public let configuration: Configuration
    /// What real-time playback waits on (``PlaybackClock/continuous`` unless a test gives its own).
    public let clock: any PlaybackClock
    private let current = Mutex<Run?>(nil)

    /// One playback: its task and the stream it feeds.
    private struct Run: Sendable {
        let task: Task<Void, Never>
        let continuation: AsyncStream<LocationSourceEvent>.Continuation
    }

    /// Plays the log at `url`. The file is read when a run starts, not here.
    public init(contentsOf url: URL, configuration: Configuration = Configuration(), clock: any PlaybackClock = .continuous) {
        self.url = url
        self.configuration = configuration
        self.clock = clock
    }

    /// Starts playing from the beginning; a run already going is stopped (its stream finishes).
    public func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationSourceEvent.self)
        let url = url, configuration = configuration, clock = clock
        let task = Task.detached {
            await NMEAReplaySource.play(url, configuration, clock, into: continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        let previous = current.withLock { run in
            defer { run = Run(task: task, continuation: continuation) }
            return run
        }
        previous?.task.cancel()
        previous?.continuation.finish()
        return stream
    }

    /// Stops the current run; its stream finishes.
    public func stop() {
        let run = current.withLock { run in
            defer { run = nil }
            return run
        }
        run?.task.cancel()
        run?.continuation.finish()
    }

    private static func play(_ url: URL, _ configuration: Configuration, _ clock: any PlaybackClock,
                             into continuation: AsyncStream<LocationSourceEvent>.Continuation) async {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            continuation.yield(.error(.sourceUnavailable("\(url.path): \(Self.reason(error))")))
            return
        }
        defer { try? handle.close() }

        var decoder = NMEALocationDecoder(parser: NMEAParser(options: configuration.parser),
                                          assembler: configuration.assembler)
        var pacer = Pacer(pacing: configuration.pacing, maximumPause: configuration.maximumPause, clock: clock)
        while !Task.isCancelled {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 64 * 1024)
            } catch {
                continuation.yield(.error(.sourceUnavailable("\(url.path): \(Self.reason(error))")))
                return
            }
            guard let chunk, !chunk.isEmpty else { break }
            for output in decoder.decode(chunk) {
                guard await deliver(output, url, configuration, &pacer, continuation) else { return }
            }
        }
        for output in decoder.finish() where !Task.isCancelled {
            guard await deliver(output, url, configuration, &pacer, continuation) else { return }
        }
    }

    /// Waits for the output's moment and yields it; false when the run was cancelled meanwhile.
    private static func deliver(_ output: NMEALocationDecoder.Output, _ url: URL, _ configuration: Configuration,
                                _ pacer: inout Pacer,
                                _ continuation: AsyncStream<LocationSourceEvent>.Continuation) async -> Bool {
        switch output {
        case .location(let location):
            guard await pacer.wait(until: location.timestamp) else { return false }
            continuation.yield(.location(location))
        case .rejected(let error, let line, let text):
            if configuration.reportsRejectedLines {
                continuation.yield(.error(.parse("\(url.lastPathComponent):\(line): \(error): \(text)")))
            }
        }
        return true
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }

    /// Turns fix timestamps into wall-clock deadlines measured from the first fix, so rounding in
    /// one sleep never accumulates into the next.
    private struct Pacer {
        let pacing: PlaybackPacing
        let maximumPause: Duration
        let clock: any PlaybackClock
        private var previous: Date?
        private var deadline: Duration?

        init(pacing: PlaybackPacing, maximumPause: Duration, clock: any PlaybackClock) {
            self.pacing = pacing
            self.maximumPause = maximumPause
            self.clock = clock
        }

        /// Sleeps until the moment `timestamp` is due; false if cancelled.
        mutating func wait(until timestamp: Date) async -> Bool {
            defer { previous = timestamp }
            guard let last = previous, let base = deadline else {
                deadline = clock.now
                return !Task.isCancelled
            }
            guard let seconds = pacing.wallSeconds(for: timestamp.timeIntervalSince(last)) else {
                return !Task.isCancelled
            }
            let next = base + min(.seconds(seconds), maximumPause)
            deadline = next
            do {
                try await clock.sleep(until: next)
            } catch {
                return false
            }
            return true
        }
    }
}
