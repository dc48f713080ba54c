import Foundation

/// Positions from a gpsd daemon over its JSON protocol (TCP, default `127.0.0.1:2947`).
///
/// Each `events()` call opens its own connection on a background thread, sends
/// `?WATCH={"enable":true,"json":true}`, and turns every TPV report into a `.location` (see
/// `GPSDTPV.location(receivedAt:assumedHorizontalAccuracy:)` for the mapping; mode 1 arrives as an
/// invalid location). Other report classes are ignored.
///
/// It keeps going through trouble, reporting each problem in the stream:
/// - cannot connect → `.sourceUnavailable`, then retries with exponential back-off
///   (`initialReconnectDelay` doubling up to `maxReconnectDelay`);
/// - connection lost (gpsd stopped, network gone) or silent for `silenceTimeout` →
///   `.deviceDisconnected`, then reconnects;
/// - gpsd reports it closed its device → `.deviceDisconnected` (gpsd reopens it by itself);
/// - a line that isn't valid gpsd JSON → `.parse`, and reading goes on.
///
/// `stop()` or cancelling the consumer closes the connection and finishes the stream at once.
public final class GPSDClient: LocationSource {
    /// Where gpsd is and how to treat it.
    public struct Configuration: Sendable, Equatable {
        /// Host name or address; IPv6 literals without brackets.
        public var host: String
        /// TCP port (gpsd's default is 2947).
        public var port: UInt16
        /// Seconds to wait for a TCP connection before trying the next address / reporting failure.
        public var connectTimeout: Double
        /// First wait before reconnecting, seconds; doubles after each failure.
        public var initialReconnectDelay: Double
        /// Longest wait between reconnection attempts, seconds.
        public var maxReconnectDelay: Double
        /// Reconnect when gpsd has sent nothing for this many seconds; `nil` waits forever. gpsd says
        /// nothing to clients when its device stops sending (e.g. a serial cable pulled on a tty it
        /// keeps open), so without this a dead receiver looks like a quiet one.
        public var silenceTimeout: Double?
        /// Accuracy to report for fixes gpsd gives no error estimate for (receivers that send no DOP);
        /// `nil` reports them with negative accuracy, i.e. unknown (see ``Location/isValid``).
        public var assumedHorizontalAccuracy: Double?

        /// Defaults: gpsd's own address (127.0.0.1:2947), 5 s connect timeout, reconnecting after 0.5 s
        /// doubling to 10 s, 15 s silence timeout, no assumed accuracy.
        public init(host: String = "127.0.0.1", port: UInt16 = 2947, connectTimeout: Double = 5,
                    initialReconnectDelay: Double = 0.5, maxReconnectDelay: Double = 10,
                    silenceTimeout: Double? = 15, assumedHorizontalAccuracy: Double? = nil) {
            self.host = host
            self.port = port
            self.connectTimeout = connectTimeout
            self.initialReconnectDelay = initialReconnectDelay
            self.maxReconnectDelay = maxReconnectDelay
            self.silenceTimeout = silenceTimeout
            self.assumedHorizontalAccuracy = assumedHorizontalAccuracy
        }

        /// A configuration for `host`, `host:port`, `:port`, `[v6]` or `[v6]:port` (e.g. a CLI's
        /// `--gpsd` argument); other settings default. `nil` when the text isn't one of those.
        public init?(endpoint: String) {
            var host = endpoint, port: UInt16 = 2947
            if endpoint.hasPrefix("[") {
                guard let close = endpoint.firstIndex(of: "]") else { return nil }
                host = String(endpoint[endpoint.index(after: endpoint.startIndex)..<close])
                let rest = endpoint[endpoint.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":"), let p = UInt16(rest.dropFirst()) else { return nil }
                    port = p
                }
            } else if let colon = endpoint.lastIndex(of: ":"), endpoint.firstIndex(of: ":") == colon {
                guard let p = UInt16(endpoint[endpoint.index(after: colon)...]) else { return nil }
                host = String(endpoint[..<colon])
                port = p
            }
            if host.isEmpty { host = "127.0.0.1" }
            guard port > 0 else { return nil }
            self.init(host: host, port: port)
        }
    }

    /// Where this client connects and how it behaves.
    public let configuration: Configuration
    /// Runs started by `events()` that are still going (internal for tests).
    let runs = SourceRuns()

    /// A client for the gpsd `configuration` describes; nothing connects until `events()`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Convenience for `init(configuration: Configuration(host: host, port: port))`.
    public convenience init(host: String, port: UInt16 = 2947) {
        self.init(configuration: Configuration(host: host, port: port))
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream<LocationSourceEvent>.makeStream(bufferingPolicy: .unbounded)
        let runs = self.runs
        let connection = GPSDConnection(configuration: configuration, continuation: continuation,
                                        finished: { runs.remove($0) })
        runs.insert(connection)
        continuation.onTermination = { _ in connection.stop() }
        connection.start()
        return stream
    }

    public func stop() {
        runs.stopAll()
    }
}
