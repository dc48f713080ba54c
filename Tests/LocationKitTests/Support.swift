import Dispatch
import Foundation
import LocationSources
import ReverseGeocoder
import Synchronization
import Testing
@testable import LocationKit

// MARK: - A scripted source

/// A `LocationSource` that plays a fixed script: events, optionally held at gates the test opens.
/// Each `events()` call plays the script from the start (a fresh run). With `finishes: false` the
/// stream stays open after the script until `stop()` or cancellation, like a live receiver.
final class ScriptedSource: LocationSource {
    enum Step: Sendable {
        case event(LocationSourceEvent)
        /// Waits until the test opens the gate.
        case wait(Gate)
    }

    private struct State {
        var runs = 0
        var stops = 0
        var current: AsyncStream<LocationSourceEvent>.Continuation?
    }

    let steps: [Step]
    let finishes: Bool
    private let state = Mutex(State())
    /// One entry per `stop()` call, to wait on.
    private let stopCalls = Recorder<Void>()

    init(_ steps: [Step], finishes: Bool = true) {
        self.steps = steps
        self.finishes = finishes
    }

    convenience init(locations: [Location], finishes: Bool = true) {
        self.init(locations.map { .event(.location($0)) }, finishes: finishes)
    }

    /// How many times `events()` was called.
    var runs: Int { state.withLock { $0.runs } }
    /// How many times `stop()` was called.
    var stops: Int { state.withLock { $0.stops } }

    func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationSourceEvent.self)
        let steps = self.steps, finishes = self.finishes
        let task = Task {
            for step in steps {
                if Task.isCancelled { break }
                switch step {
                case .event(let event): continuation.yield(event)
                case .wait(let gate): await gate.wait()
                }
            }
            if finishes { continuation.finish() }
        }
        continuation.onTermination = { _ in task.cancel() }
        state.withLock {
            $0.runs += 1
            $0.current = continuation
        }
        return stream
    }

    func stop() {
        let current = state.withLock { state -> AsyncStream<LocationSourceEvent>.Continuation? in
            state.stops += 1
            defer { state.current = nil }
            return state.current
        }
        current?.finish()
        stopCalls.append(())
    }

    /// Returns once `stop()` has been called `count` times.
    func waitForStops(_ count: Int) async {
        await stopCalls.wait(count: count)
    }
}

/// A latch: `wait()` suspends until `open()`.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.isOpen { return true }
                s.waiting.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.isOpen = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for c in waiting { c.resume() }
    }
}

// MARK: - A rectangle provider

/// Answers from simple regions: Beijing north of latitude 39.4, Tianjin south of it; districts split
/// by longitude 116.5 (only so that district changes inside a city can be tested); east of longitude
/// 120 is "sea" (no placemark). Counts its lookups and remembers the hints it was given.
final class RegionProvider: PlacemarkProvider {
    static let border = 39.4

    private struct State {
        var lookups = 0
        var hints: [PlacemarkLookup?] = []
    }
    private let state = Mutex(State())

    var lookups: Int { state.withLock { $0.lookups } }
    var hints: [PlacemarkLookup?] { state.withLock { $0.hints } }

    func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        guard coordinate.isValid else { throw .invalidCoordinate(coordinate) }
        state.withLock { $0.lookups += 1 }
        return Self.answer(Datum.convert(coordinate, from: datum, to: .wgs84))
    }

    func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws(GeocoderError) -> Placemark? {
        state.withLock { $0.hints.append(previous) }
        return try placemark(for: coordinate, datum: .wgs84)
    }

    static func answer(_ c: Coordinate) -> Placemark? {
        if c.longitude > 120 { return nil }
        let west = c.longitude < 116.5
        return c.latitude >= border
            ? (west ? .haidian : .chaoyang)
            : (west ? .wuqing : .hexi)
    }
}

extension Placemark {
    /// Province-level cities, as the engine fills them: locality and its code from the province.
    static func municipality(_ name: String, code: String, district: String, districtCode: String) -> Placemark {
        Placemark(country: "China", isoCountryCode: "CN", administrativeArea: name, administrativeAreaCode: code,
                  locality: name, localityCode: code, subLocality: district, subLocalityCode: districtCode,
                  localityIsProvinceFallback: true, dataset: "test-rectangles")
    }

    static let haidian = municipality("Beijing", code: "110000", district: "Haidian", districtCode: "110108")
    static let chaoyang = municipality("Beijing", code: "110000", district: "Chaoyang", districtCode: "110105")
    static let wuqing = municipality("Tianjin", code: "120000", district: "Wuqing", districtCode: "120114")
    static let hexi = municipality("Tianjin", code: "120000", district: "Hexi", districtCode: "120103")
}

// MARK: - Fixes

let epoch = Date(timeIntervalSince1970: 1_700_000_000)

/// A fix at (lat, lon), `t` seconds after `epoch`.
func fix(_ latitude: Double, _ longitude: Double = 116.9, accuracy: Double = 5, t: Double = 0,
         quality: Location.FixQuality = .fix3D) -> Location {
    Location(coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: accuracy,
             timestamp: epoch.addingTimeInterval(t), quality: quality)
}

/// Fixes along latitudes, one second apart.
func track(_ latitudes: [Double], longitude: Double = 116.9) -> [Location] {
    latitudes.enumerated().map { fix($1, longitude, t: Double($0)) }
}

// MARK: - Listening

/// Records events through the delegate.
final class DelegateRecorder: LocationManagerDelegate {
    private let events = Recorder<LocationEvent>()
    /// Set when a callback ran on a queue other than the expected one.
    private let wrongQueue = Mutex(false)
    private let expectedQueue: (DispatchQueue, DispatchSpecificKey<UInt8>)?

    init(expecting queue: (DispatchQueue, DispatchSpecificKey<UInt8>)? = nil) {
        expectedQueue = queue
    }

    var recorded: [LocationEvent] { events.values }
    var calledOnWrongQueue: Bool { wrongQueue.withLock { $0 } }

    /// Returns once the `.stopped` of `runs` runs has been delivered.
    func waitForStop(runs: Int = 1) async {
        await events.wait { $0.filter(isStop).count >= runs }
    }

    private func record(_ event: LocationEvent) {
        if let (_, key) = expectedQueue, DispatchQueue.getSpecific(key: key) == nil {
            wrongQueue.withLock { $0 = true }
        }
        events.append(event)
    }

    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        for location in locations { record(.location(location)) }
    }
    func locationManager(_ manager: LocationManager, didUpdatePlacemark placemark: Placemark?, for location: Location) {
        record(.placemark(placemark, for: location))
    }
    func locationManager(_ manager: LocationManager, cityDidChangeFrom from: Placemark, to: Placemark, at location: Location) {
        record(.cityChanged(from: from, to: to, at: location))
    }
    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {
        record(.error(error))
    }
    func locationManager(_ manager: LocationManager, didReceiveWarning warning: LocationWarning) {
        record(.warning(warning))
    }
    func locationManager(_ manager: LocationManager, didReceiveRegionEvent event: RegionEvent) {
        record(.region(event))
    }
    func locationManager(_ manager: LocationManager, didStopWith reason: LocationManager.StopReason) {
        record(.stopped(reason))
    }
}

/// Records events through the closures.
final class ClosureRecorder: Sendable {
    private let events = Recorder<LocationEvent>()
    var recorded: [LocationEvent] { events.values }

    /// Returns once the `.stopped` of `runs` runs has been delivered.
    func waitForStop(runs: Int = 1) async {
        await events.wait { $0.filter(isStop).count >= runs }
    }

    func attach(to manager: LocationManager) {
        let events = self.events
        manager.onLocation = { location in events.append(.location(location)) }
        manager.onPlacemark = { placemark, location in events.append(.placemark(placemark, for: location)) }
        manager.onCityChange = { from, to, location in events.append(.cityChanged(from: from, to: to, at: location)) }
        manager.onError = { error in events.append(.error(error)) }
        manager.onWarning = { warning in events.append(.warning(warning)) }
        manager.onStop = { reason in events.append(.stopped(reason)) }
        manager.onRegionEvent = { event in events.append(.region(event)) }
    }
}

/// Every event of `manager`'s ``LocationManager/updates`` from now on, recorded as they arrive, so a
/// test can wait for the one it needs.
func streamRecorder(_ manager: LocationManager) -> (Recorder<LocationEvent>, Task<[LocationEvent], Never>) {
    let recorder = Recorder<LocationEvent>()
    let updates = manager.updates
    let task = Task {
        for await event in updates { recorder.append(event) }
        return recorder.values
    }
    return (recorder, task)
}

/// What each listening style saw during one run.
struct Recording {
    var delegate: [LocationEvent]
    var closures: [LocationEvent]
    var stream: [LocationEvent]
}

/// Attaches all three listeners, calls `start`, and collects until the run's `.stopped` event has
/// reached every listener. (No deadline: a run that never stops hangs the test, visibly.)
func record(_ manager: LocationManager, start: (LocationManager) -> Void) async -> Recording {
    let delegate = DelegateRecorder()
    let closures = ClosureRecorder()
    manager.delegate = delegate
    closures.attach(to: manager)
    let updates = manager.updates
    let collector = Task {
        var seen: [LocationEvent] = []
        for await event in updates { seen.append(event) }
        return seen
    }
    start(manager)
    let stream = await collector.value
    await delegate.waitForStop()
    await closures.waitForStop()
    #expect(delegate.recorded.last.map(isStop) == true && closures.recorded.last.map(isStop) == true,
            "the .stopped is the last event delegate and closures got")
    withExtendedLifetime(delegate) {}
    return Recording(delegate: delegate.recorded, closures: closures.recorded, stream: stream)
}

/// Runs `manager` continuously until the source finishes; returns the events (checked equal across
/// the three listening styles).
func drive(_ manager: LocationManager) async -> [LocationEvent] {
    let recording = await record(manager) { $0.startUpdatingLocation() }
    #expect(recording.delegate == recording.stream)
    #expect(recording.closures == recording.stream)
    return recording.stream
}

func isStop(_ event: LocationEvent) -> Bool {
    if case .stopped = event { return true }
    return false
}

extension [LocationEvent] {
    var locations: [Location] {
        compactMap { if case .location(let l) = $0 { return l } else { return nil } }
    }
    var placemarks: [Placemark?] {
        compactMap { if case .placemark(let p, _) = $0 { return .some(p) } else { return nil } }
    }
    /// (from locality, to locality, latitude of the confirming fix) for each city change.
    var cityChanges: [CityChangeSummary] {
        compactMap {
            if case .cityChanged(let from, let to, let at) = $0 {
                return CityChangeSummary(from: from.locality ?? "?", to: to.locality ?? "?",
                                         latitude: at.coordinate.latitude)
            }
            return nil
        }
    }
    var errors: [LocationError] {
        compactMap { if case .error(let e) = $0 { return e } else { return nil } }
    }
    var warnings: [LocationWarning] {
        compactMap { if case .warning(let w) = $0 { return w } else { return nil } }
    }
}

struct CityChangeSummary: Equatable, CustomStringConvertible {
    var from: String
    var to: String
    var latitude: Double
    var description: String { "\(from)→\(to)@\(latitude)" }
}

/// A fresh empty directory under the system temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("LocationKitTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension [LocationEvent] {
    /// The region events, in order.
    var regionEvents: [RegionEvent] {
        compactMap { if case .region(let e) = $0 { return e } else { return nil } }
    }

    /// Where a region event is not right after the events of the fix that caused it: its fix must be the
    /// latest `.location`, and it must come after that fix's `.placemark` (and `.cityChanged`). Empty
    /// when every region event is in causal order.
    var regionEventsOutOfOrder: [String] {
        var problems: [String] = []
        var latest: Location?
        for (i, event) in enumerated() {
            switch event {
            case .location(let l): latest = l
            case .region(let e):
                let cause: Location?
                switch e {
                case .stateDetermined(_, _, let l): cause = l
                case .entered(_, let l), .exited(_, let l): cause = l
                }
                if cause == nil || cause != latest { problems.append("\(i): \(e) after the fix \(latest.map { "\($0.coordinate)" } ?? "none")") }
                switch self[i - 1] {
                case .placemark, .cityChanged, .region: break
                default: problems.append("\(i): \(e) right after \(self[i - 1]), not its fix's placemark")
                }
            default: break
            }
        }
        return problems
    }
}

extension [RegionEvent] {
    /// The entered and exited events as "+id" and "-id", in order (the story of a drive in words).
    var transitions: [String] {
        compactMap { event -> String? in
            switch event {
            case .entered(let r, _): return "+" + r.identifier
            case .exited(let r, _): return "-" + r.identifier
            default: return nil
            }
        }
    }
}
