import Dispatch
import Foundation
import LocationKit
import LocationSources
import GeoModel
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `geocode track`: drives the LocationManager from a GPX file, an NMEA log, a serial GPS or gpsd, and
/// prints one line per event (location, placemark, city changed, error), or NDJSON with `--json`.
/// Ctrl-C stops the manager cleanly: the stream ends, the current placemark (if persisted) is saved.
enum TrackCommand: Command {
    static let name = "track"
    static let summary = "Follow positions (GPX, NMEA log, serial GPS, gpsd) and print each event."
    static let usage = """
        geocode track --gpx FILE [--speed X] [options]
        geocode track --nmea FILE [--speed X] [options]
        geocode track --serial DEVICE [--baud N] [--retry-for SECONDS] [options]
        geocode track --gpsd [HOST:PORT] [options]
        options: [--region FILE] [--report URL|FILE [--report-queue DIR]] [--significant] [--json]
        """
    static let details = """
        Prints one line per event: location, placemark, city changed, error. A city change is reported
        only when the city really changes (3 fixes and 30 m past the border), not on every fix.

        --region FILE monitors the regions in a JSON file (circles, or administrative areas by code or
        name) and prints entered/exited events, each right after the lines of the fix that caused it
        (the same output for the same input, every run). --report sends every accepted position (with
        its place) to an HTTP(S) URL as JSON, or appends it to a local NDJSON file; reports wait in a
        durable queue (--report-queue, default ./geocode-report-queue) until delivered, so nothing is
        lost across outages or restarts. --significant delivers a fix only after 500 m of movement or 5 minutes.

        --speed X replays files X times faster than recorded (default 1); --speed max as fast as possible.
        --baud is 4800, 9600 (default), 19200, 38400, 57600 or 115200. gpsd defaults to 127.0.0.1:2947.
        A serial device that cannot be opened, or goes away, is retried with back-off for --retry-for
        seconds in all (default 30; "forever" never gives up); the budget starts again whenever data
        flows. Then track exits 5.

        Exit status: 0 the source ended, 130 interrupted (Ctrl-C), 2 bad command line,
        3 the GPX file could not be parsed (not XML, truncated, empty), or the --region file is not a
        regions file or names an area (code or name) that no unit of the loaded data has,
        4 data directory missing or unloadable, 5 the source or the --region file could not be opened or
        read (no such file, a directory, a serial device given up on) or the output could not be written.
        Lines an NMEA log rejects and GPX points with a bad value are reported as "error" events naming
        the file and line, the rest plays, and they do not change the exit status.

        Examples:
          geocode track --gpx drive.gpx --speed 20
          geocode track --nmea receiver.log --speed max --json
          geocode track --serial /dev/ttyUSB0 --baud 4800
          geocode track --gpsd 127.0.0.1:2947
          geocode track --gpx drive.gpx --region regions.json --report https://example.org/positions
        """
    static let options: [OptionSpec] = [
        OptionSpec("gpx", value: "FILE", help: "play a GPX file (tracks, routes or waypoints)"),
        OptionSpec("nmea", value: "FILE", help: "replay an NMEA 0183 log"),
        OptionSpec("serial", value: "DEVICE", help: "read NMEA from a serial GPS (e.g. /dev/ttyUSB0)"),
        OptionSpec("baud", value: "N", help: "serial baud rate (default 9600)"),
        OptionSpec("retry-for", value: "SECONDS", help: "give up on a serial device after retrying this long (default 30, or \"forever\")"),
        OptionSpec("gpsd", help: "read from gpsd (optionally followed by HOST:PORT)"),
        OptionSpec("speed", value: "X", help: "replay speed factor for --gpx/--nmea, or \"max\""),
        OptionSpec("distance-filter", value: "METRES", help: "report a fix only after moving this far"),
        OptionSpec("desired-accuracy", value: "METRES", help: "drop fixes less accurate than this, and those of unknown accuracy"),
        OptionSpec("current-placemark", value: "FILE", help: "persist the current placemark here (restored on start)"),
        OptionSpec("region", value: "FILE", help: "monitor the regions in this JSON file; print entered/exited"),
        OptionSpec("report", value: "URL|FILE", help: "send accepted positions to an HTTP(S) URL or append to an NDJSON file"),
        OptionSpec("report-queue", value: "DIR", help: "durable queue for --report (default ./geocode-report-queue)"),
        OptionSpec("significant", help: "significant-change mode: a fix only after 500 m or 5 minutes"),
        OptionSpec("json", short: "j", help: "print NDJSON: one object per event"),
        MaxDistanceOption.spec,
        .lang, .worldview, .borders, .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        let source = try makeSource(arguments)
        // A missing or unreadable region file is a missing input like a missing --gpx (exit 5, naming it);
        // RegionMonitor's own error says neither which file nor which option, and would cost a data load first.
        // A file that is no regions file is refused before the data load too (exit 3).
        let regionFile = try arguments.value("region").map(existing)
        let regions = try regionFile.map(readRegions)
        let lookup = try context.openLookup(dataOption: arguments.value("data"), load: .stream)
        // The caches are checked as fixes read them: a damaged block found hours into a run is said then.
        let late = LateWarnings(lookup, stderr: context.stderr)
        defer { late.sayNew() }  // one the region monitor's unit listing found, after the last fix
        let manager = LocationManager(source: source, geocoder: WarningLookup(base: lookup, late: late),
                                      currentPlacemarkFile: arguments.value("current-placemark").map { URL(fileURLWithPath: $0) })
        if let v = arguments.value("distance-filter") { manager.distanceFilter = try metres(v, "--distance-filter") }
        if let v = arguments.value("desired-accuracy") { manager.desiredAccuracy = try metres(v, "--desired-accuracy") }
        let json = arguments.flag("json")
        let output = context.stdout
        let outcome = TrackOutcome()
        let sourceKind = arguments.value("gpx") != nil ? "gpx" : arguments.value("nmea") != nil ? "nmea"
            : arguments.value("serial") != nil ? "serial" : "gpsd"
        /// Writes event lines (each ending in a newline); a failed write stops the run (nothing else could
        /// be printed either).
        let print: @Sendable (String) -> Void = { text in
            do throws(CLIError) {
                try output.emit(text)
            } catch {
                if outcome.recordFailure(error) {
                    manager.stopUpdatingLocation()
                    manager.stopMonitoringSignificantLocationChanges()
                }
            }
        }

        // Regions and the reporter attach to the manager and see each accepted fix with its placemark.
        // The manager sends region events in its own stream, each after the fix that caused it, so they
        // are printed in the loop below in causal order: the same output for the same input on every run.
        var regionMonitor: RegionMonitor?
        if let regionFile, let regions {
            let monitor = try Self.regionMonitor(regions, file: regionFile, lookup: lookup)
            monitor.attach(to: manager)
            regionMonitor = monitor
        }
        var reporter: PositionReporter?
        if let destination = arguments.value("report") {
            let queue = URL(fileURLWithPath: arguments.value("report-queue") ?? "geocode-report-queue")
            do {
                reporter = try PositionReporter(configuration: .init(destination: .init(argument: destination), queueDirectory: queue))
            } catch {
                throw CLIError(.ioError, "cannot open the report queue \(queue.path): \(error)")
            }
            reporter?.attach(to: manager)
        }
        // Ctrl-C / SIGTERM stop the manager; the event loop then ends by itself.
        let interrupted = outcome
        var signalSources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: number, queue: .global())
            s.setEventHandler {
                interrupted.setInterrupted()
                manager.stopUpdatingLocation()
                manager.stopMonitoringSignificantLocationChanges()
            }
            s.resume()
            signalSources.append(s)
        }
        defer { signalSources.forEach { $0.cancel() } }

        // Events come in batches of what is waiting: the lines of one batch go out in one write, so a
        // live track still prints each event as it comes, while a replay at --speed max does not pay a
        // system call per line. The manager waits for this loop (backpressure), so memory stays bounded.
        let updates = manager.updateBatches
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            var text = ""
            let writer = TrackEventJSON()
            for await batch in updates {
                for event in batch {
                    if case .error(let error) = event, let failure = sourceFailure(error, kind: sourceKind) {
                        _ = outcome.recordFailure(failure)
                    }
                    if let line = json ? writer.line(event) ?? jsonLine(event) : textLine(event) {
                        text += line
                        text += "\n"
                    }
                }
                if !text.isEmpty {
                    print(text)
                    text.removeAll(keepingCapacity: true)
                }
            }
            done.signal()
        }
        if arguments.flag("significant") {
            manager.startMonitoringSignificantLocationChanges()
        } else {
            manager.startUpdatingLocation()
        }
        done.wait()
        // Its events were all printed with the fixes'; detaching also keeps it alive until here (the
        // manager holds it weakly).
        regionMonitor?.detach()
        if let reporter {
            // Give queued reports a last chance; whatever is still unsent stays queued for next time.
            reporter.retryNow()
            let flushed = DispatchSemaphore(value: 0)
            Task.detached {
                _ = await reporter.flush(timeout: .seconds(5))
                flushed.signal()
            }
            flushed.wait()
            if reporter.pendingCount > 0 {
                context.stderr.write("geocode: \(reporter.pendingCount) reports not delivered yet; they stay queued for the next run\n")
            }
            reporter.close()
        }
        if interrupted.isInterrupted { return .interrupted }
        if let failure = outcome.failure { throw failure }
        // A serial source only ends by itself when it gave up on the device (its error was printed).
        if sourceKind == "serial" {
            throw CLIError(.ioError, "gave up on serial device \(arguments.value("serial")!) (--retry-for)")
        }
        return .success
    }

    /// The regions file, checked as a file (exit 3 naming the file and the JSON path of what is wrong).
    static func readRegions(_ file: URL) throws(CLIError) -> RegionFile {
        do {
            return try RegionFile.load(contentsOf: file)
        } catch {
            if case .unreadable = error { throw .io("\(error)") }
            throw .badInput("\(error)")
        }
    }

    /// The monitor of the file's regions, each administrative area checked against the loaded data:
    /// a code or name no unit has would never fire, so it is refused at start, exit 3 like any other
    /// region the file gets wrong (the file is the bad input; the data loaded fine), naming the file,
    /// the region and the code. A lookup that cannot list its units (a test stand-in) is not checked.
    static func regionMonitor(_ regions: RegionFile, file: URL, lookup: any GeocodeLookup) throws(CLIError) -> RegionMonitor {
        var known: KnownAdministrativeUnits?
        let hasAreas = regions.regions.contains { if case .administrative = $0.area { true } else { false } }
        if hasAreas, let catalog = lookup as? any AdministrativeUnitCatalog {
            do {
                // Only the units the file names: listing every unit (and its 150 names) cost more
                // CPU than the rest of track's start.
                known = try KnownAdministrativeUnits(catalog, checking: regions.regions)
            } catch {
                throw CLIError(.dataUnavailable, "cannot list the units of the data to check \(file.path): \(error)")
            }
        }
        do {
            return try RegionMonitor(regions: regions.regions, hysteresis: regions.hysteresis, knownUnits: known)
        } catch {
            throw .badInput("\(RegionFile.Failure.invalid(path: file.path, error.description))")
        }
    }

    /// The exit a source's error means for track: a file that could not be opened (5) or could not be
    /// parsed at all (3). A record a file source rejects (an NMEA line, a GPX point) is evidence, not
    /// failure, like a bad row in batch: the rest plays. A live source (serial, gpsd) reconnects, so its
    /// errors are not the end of the run.
    static func sourceFailure(_ error: LocationError, kind: String) -> CLIError? {
        switch (error, kind) {
        case (.sourceUnavailable(let why), "gpx"), (.sourceUnavailable(let why), "nmea"):
            return CLIError(.ioError, "cannot read the --\(kind) source: \(why)")
        case (.invalidFile(let why), _):
            return CLIError(.badInput, "cannot parse the --\(kind) file: \(why)")
        default:
            return nil
        }
    }

    static func makeSource(_ a: ParsedArguments) throws(CLIError) -> any LocationSource {
        let chosen = ["gpx", "nmea", "serial"].filter { a.value($0) != nil } + (a.flag("gpsd") ? ["gpsd"] : [])
        guard chosen.count == 1 else {
            throw .usage(chosen.isEmpty ? "choose a source: --gpx, --nmea, --serial or --gpsd"
                                        : "choose one source, not \(chosen.map { "--" + $0 }.joined(separator: " and "))")
        }
        if a.value("baud") != nil && chosen[0] != "serial" { throw .usage("--baud goes with --serial") }
        if a.value("retry-for") != nil && chosen[0] != "serial" { throw .usage("--retry-for goes with --serial") }
        if a.value("speed") != nil && !["gpx", "nmea"].contains(chosen[0]) { throw .usage("--speed goes with --gpx or --nmea") }
        if chosen[0] != "gpsd" { try a.rejectPositionals() }
        // nil = as fast as possible.
        var factor: Double? = 1
        if let s = a.value("speed") {
            if s == "max" { factor = nil } else if let f = Double(s), f > 0, f.isFinite { factor = f } else {
                throw .usage("--speed takes a positive number or \"max\", not \"\(s)\"")
            }
        }
        switch chosen[0] {
        case "gpx":
            let url = try existing(a.value("gpx")!)
            return GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: factor.map { .realTime(speedFactor: $0) } ?? .asFastAsPossible))
        case "nmea":
            let url = try existing(a.value("nmea")!)
            return NMEAReplaySource(contentsOf: url, configuration: .init(pacing: factor.map { .realTime(speedFactor: $0) } ?? .asFastAsPossible))
        case "serial":
            let baud = Int(a.value("baud") ?? "9600") ?? -1
            let rate: SerialBaudRate
            do {
                rate = try SerialBaudRate(baud)
            } catch {
                throw .usage("unsupported baud rate \(a.value("baud") ?? ""): use 4800, 9600, 19200, 38400, 57600 or 115200")
            }
            return SerialGPSSource(configuration: .init(path: a.value("serial")!, baudRate: rate,
                                                        retryFor: try retryBudget(a.value("retry-for"))))
        default:
            guard a.positionals.count <= 1 else { throw .usage("--gpsd takes at most one HOST:PORT") }
            guard let configuration = GPSDClient.Configuration(endpoint: a.positionals.first ?? "127.0.0.1:2947") else {
                throw .usage("bad gpsd address \"\(a.positionals[0])\" (HOST:PORT)")
            }
            return GPSDClient(configuration: configuration)
        }
    }

    /// The default of --retry-for, in seconds.
    static let defaultRetrySeconds = 30

    /// --retry-for: seconds (≥ 0), or "forever" (nil).
    static func retryBudget(_ text: String?) throws(CLIError) -> Duration? {
        guard let text else { return .seconds(defaultRetrySeconds) }
        if text == "forever" { return nil }
        guard let s = Double(text), s.isFinite, s >= 0 else {
            throw .usage("--retry-for takes seconds (a number ≥ 0) or \"forever\", not \"\(text)\"")
        }
        return .milliseconds(Int64((s * 1000).rounded()))
    }

    /// A file source's path: it must be a readable regular file (a directory would fail later with an
    /// opaque Foundation error).
    static func existing(_ path: String) throws(CLIError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError(.ioError, "cannot read \(path): no such file")
        }
        if isDirectory.boolValue { throw CLIError(.ioError, "cannot read \(path): it is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw CLIError(.ioError, "cannot read \(path): permission denied") }
        return URL(fileURLWithPath: path)
    }

    static func metres(_ text: String, _ option: String) throws(CLIError) -> Double {
        guard let v = Double(text), v.isFinite, v >= 0 else { throw .usage("\(option) takes metres (a number ≥ 0), not \"\(text)\"") }
        return v
    }

    // MARK: Output

    /// `2024-05-01T00:00:00Z`: UTC, whole seconds (truncated). Formatted by hand with `gmtime_r`:
    /// Foundation's ISO 8601 format style cost about as much per line as everything else together.
    static func time(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var t = tm()
        guard gmtime_r(&seconds, &t) != nil else { return "\(date)" }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = Int(t.tm_year) + 1900
        let y = year >= 1000 ? "\(year)" : String(repeating: "0", count: max(0, 4 - "\(year)".count)) + "\(year)"
        return "\(y)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))Z"
    }

    static func place(_ p: Placemark?) -> String {
        guard let p else { return "(no place)" }
        return [p.country, p.administrativeArea, p.locality, p.subLocality].compactMap { $0 }.joined(separator: " / ")
    }

    static func textLine(_ event: LocationEvent) -> String? {
        switch event {
        case .location(let l):
            // No "±" for a fix whose accuracy is unknown (a GPX point without <hdop>, an NMEA cycle
            // without HDOP or GST): a figure there would be made up.
            let accuracy = l.horizontalAccuracyIsKnown ? " ±\(metres(l.horizontalAccuracy))m" : ""
            return "\(time(l.timestamp)) location \(String(format: "%.6f,%.6f", l.coordinate.latitude, l.coordinate.longitude))\(accuracy)"
        case .placemark(let p, let l):
            return "\(time(l.timestamp)) placemark \(place(p))"
        case .cityChanged(let from, let to, let l):
            return "\(time(l.timestamp)) city changed \(from.locality ?? "?") → \(to.locality ?? "?")"
        case .error(let e):
            return "error \(e)"
        case .warning(let w):
            return "warning \(w)"
        case .region(let e):
            return regionText(e)
        case .stopped:
            return nil
        }
    }

    /// Whole metres, rounded half away from zero. Past what an `Int` holds (a GPX `<hdop>1e300</hdop>` is
    /// a valid, absurd value) printed by `%.0f`: converting it to `Int` stopped the process with a trap.
    static func metres(_ value: Double) -> String {
        let rounded = value.rounded()
        return abs(rounded) < 1e18 ? "\(Int(rounded))" : String(format: "%.0f", rounded)
    }

    static func regionText(_ event: RegionEvent) -> String? {
        switch event {
        case .stateDetermined(let r, let state, let l):
            return "\(l.map { time($0.timestamp) + " " } ?? "")region \(r.identifier) \(state.rawValue)"
        case .entered(let r, let l): return "\(time(l.timestamp)) region entered \(r.identifier)"
        case .exited(let r, let l): return "\(time(l.timestamp)) region exited \(r.identifier)"
        }
    }

    static func regionJSON(_ event: RegionEvent) -> String? {
        var o: [String: Any] = [:]
        switch event {
        case .stateDetermined(let r, let state, let l):
            o = ["event": "region_state", "region": r.identifier, "state": state.rawValue]
            if let l { o["time"] = time(l.timestamp) }
        case .entered(let r, let l): o = ["event": "region_entered", "region": r.identifier, "time": time(l.timestamp)]
        case .exited(let r, let l): o = ["event": "region_exited", "region": r.identifier, "time": time(l.timestamp)]
        }
        return jsonText(o)
    }

    /// The JSON line of the events `TrackEventJSON` leaves alone (errors, warnings and region events:
    /// rare); nil for a stop.
    /// Location, placemark and city-change lines are `TrackEventJSON`'s only.
    static func jsonLine(_ event: LocationEvent) -> String? {
        let o: [String: Any]
        switch event {
        case .error(let e): o = ["event": "error", "message": "\(e)"]
        case .warning(let w): o = ["event": "warning", "message": "\(w)"]
        case .region(let e): return regionJSON(e)
        case .location, .placemark, .cityChanged, .stopped: return nil
        }
        return jsonText(o)
    }

    /// One line of the events left to `JSONSerialization`, as ``TrackEventJSON`` writes the others:
    /// sorted keys, and `/` as it is, not `\/` (region ids such as `eu/paris`, paths in messages; region
    /// events were written with `\/`, unlike every other line).
    private static func jsonText(_ o: [String: Any]) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// How a track run ended, set from the signal handler's queue and the printing task, read after the loop.
final class TrackOutcome: Sendable {
    private struct State {
        var interrupted = false
        var failure: CLIError?
    }
    private let state = Mutex(State())
    func setInterrupted() { state.withLock { $0.interrupted = true } }
    var isInterrupted: Bool { state.withLock { $0.interrupted } }
    /// Keeps the first failure; true when this was it.
    func recordFailure(_ error: CLIError) -> Bool {
        state.withLock { s in
            guard s.failure == nil else { return false }
            s.failure = error
            return true
        }
    }
    var failure: CLIError? { state.withLock { $0.failure } }
}
