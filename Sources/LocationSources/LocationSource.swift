/// Something that produces positions: a receiver, a log replay, a simulation.
///
/// Sources do their I/O off the caller's thread and deliver through an `AsyncStream`, so a consumer
/// (the `LocationManager`) never blocks on a device. A source never throws its errors away: they arrive
/// in the same stream as ``LocationSourceEvent/error(_:)``, and a source that can recover (a serial
/// device coming back, gpsd restarting) keeps going after reporting one.
public protocol LocationSource: Sendable {
    /// Starts the source and returns its events. Calling it again starts a fresh run.
    /// Cancelling the consuming task, or `stop()`, ends the stream.
    func events() -> AsyncStream<LocationSourceEvent>
    /// Stops producing; the stream finishes.
    func stop()
}

/// What a source delivers.
public enum LocationSourceEvent: Sendable, Equatable {
    /// A new fix (may be invalid: the manager decides what to accept).
    case location(Location)
    /// Something went wrong; the source says whether it will keep trying.
    case error(LocationSourceError)
}

/// Errors sources report. Each names what failed so a user can act on it.
public enum LocationSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device, file or server could not be opened / reached.
    case sourceUnavailable(String)
    /// An open device went away (EOF, EIO, hang-up); the source is reconnecting.
    case deviceDisconnected(String)
    /// A record that could not be parsed (file, line and reason): an NMEA line, a GPX point, a gpsd
    /// report. The source skips it and goes on with the rest.
    case parse(String)
    /// A file that cannot be parsed as a whole (not XML, truncated, not GPX): nothing of it plays and
    /// the stream ends. Kept apart from ``parse(_:)`` so a consumer can tell a broken file from a
    /// file with a bad record in it.
    case invalidFile(String)

    public var description: String {
        switch self {
        case .sourceUnavailable(let s): return "source unavailable: \(s)"
        case .deviceDisconnected(let s): return "device disconnected: \(s)"
        case .parse(let s): return "parse error: \(s)"
        case .invalidFile(let s): return "invalid file: \(s)"
        }
    }
}
