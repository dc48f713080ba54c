import Foundation
import Synchronization

/// A GNSS receiver on a serial line (`/dev/ttyUSB0`, `/dev/ttyACM0`, `/dev/serial/by-id/…`, a
/// Bluetooth `rfcomm` port) speaking NMEA 0183.
///
/// The device is opened with termios in raw mode (8N1, no flow control, `O_NOCTTY`, exclusive via
/// `TIOCEXCL`) at the configured rate and read on a dedicated thread, so neither ``events()`` nor
/// ``stop()`` ever blocks the caller. Sentences go through ``NMEALocationDecoder``: one fix per
/// reporting cycle, delivered when the cycle's last sentence arrives (or the line goes quiet for
/// ``Configuration/idleFlush``).
///
/// The device may come and go (a USB receiver unplugged, a Bluetooth link dropped): on end of file,
/// `EIO` or hang-up the source delivers the last complete fix, reports
/// `.error(.deviceDisconnected(path))`, and reopens the same path with back-off (doubling from
/// ``Configuration/reconnectDelay`` to ``Configuration/maximumReconnectDelay``) until it is back or
/// the source is stopped. A device that cannot be opened is reported once per distinct reason as
/// `.error(.sourceUnavailable(…))` and retried the same way, until ``Configuration/retryFor`` (if set)
/// is spent: then the source says it gave up, and its stream ends.
///
/// ```swift
/// let gps = try SerialGPSSource(path: "/dev/ttyUSB0", baudRate: 9600)
/// for await event in gps.events() { … }
/// ```
public final class SerialGPSSource: LocationSource {
    /// Device and behaviour.
    public struct Configuration: Sendable {
        /// The device, or a symlink to it (followed at every reopen, so re-pointing it switches devices).
        public var path: String
        public var baudRate: SerialBaudRate
        /// Take the device exclusively (`TIOCEXCL`), so another program cannot open it and steal bytes.
        public var exclusive: Bool
        /// Parser tolerance; `.strict` (checksums required) suits a live line, where noise happens.
        public var parser: NMEAParser.Options
        public var assembler: NMEAFixAssembler.Configuration
        /// First wait before reopening; doubles at each failure up to `maximumReconnectDelay`, and
        /// starts over once data flows again.
        public var reconnectDelay: Duration
        public var maximumReconnectDelay: Duration
        /// How long the line must be quiet before a cycle whose last sentence is not yet known is
        /// reported anyway.
        public var idleFlush: Duration
        /// Deliver rejected sentences (line noise) as `.error(.parse(…))`; off by default, since a
        /// noisy line would flood the stream. The reader skips them either way.
        public var reportsRejectedLines: Bool
        /// How long to keep retrying a device that cannot be opened or went away, counted as the sum of
        /// the back-off waits since data last flowed (so it does not depend on how busy the machine is).
        /// Once spent, the source reports `.error(.sourceUnavailable("… gave up after …"))` and its
        /// stream ends. nil (the default): retry until stopped.
        public var retryFor: Duration?

        public init(path: String, baudRate: SerialBaudRate = .b9600, exclusive: Bool = true,
                    parser: NMEAParser.Options = .strict, assembler: NMEAFixAssembler.Configuration = .init(),
                    reconnectDelay: Duration = .milliseconds(250), maximumReconnectDelay: Duration = .seconds(8),
                    idleFlush: Duration = .milliseconds(500), reportsRejectedLines: Bool = false,
                    retryFor: Duration? = nil) {
            self.path = path
            self.baudRate = baudRate
            self.exclusive = exclusive
            self.parser = parser
            self.assembler = assembler
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.idleFlush = idleFlush
            self.reportsRejectedLines = reportsRejectedLines
            self.retryFor = retryFor
        }
    }

    public let configuration: Configuration
    private let current = Mutex<SerialGPSReader?>(nil)

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A source for `path` at `baudRate` bits per second, other settings default.
    /// Throws ``SerialPortError/unsupportedBaudRate(_:)`` for a rate termios cannot set.
    public convenience init(path: String, baudRate: Int) throws(SerialPortError) {
        self.init(configuration: Configuration(path: path, baudRate: try SerialBaudRate(baudRate)))
    }

    /// Starts reading on a new thread and returns at once; a run already going is stopped first.
    /// The device is opened by that thread, so a missing or slow device never blocks this call.
    public func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationSourceEvent.self)
        let reader = SerialGPSReader(configuration: configuration, continuation: continuation)
        continuation.onTermination = { _ in reader.stop() }
        let previous = current.withLock { run in
            defer { run = reader }
            return run
        }
        previous?.stop()
        reader.start()
        return stream
    }

    /// Stops reading; the device is closed by the reading thread moments later, and the stream ends.
    public func stop() {
        let reader = current.withLock { run in
            defer { run = nil }
            return run
        }
        reader?.stop()
    }
}
