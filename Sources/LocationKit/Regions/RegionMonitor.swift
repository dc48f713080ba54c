import Dispatch
import Foundation
import LocationSources
import GeoModel
import Synchronization

/// Watches regions (circles and administrative areas) and reports entering and leaving them: the
/// model is CoreLocation's `CLMonitor` / region monitoring.
///
/// ```swift
/// let monitor = try RegionMonitor.load(contentsOf: URL(fileURLWithPath: "regions.json"))
/// let events = monitor.events                   // subscribe before adding regions or attaching
/// monitor.attach(to: manager)                   // every fix the manager accepts, with its placemark
/// try monitor.add(.circle("depot", center: Coordinate(latitude: 39.9087, longitude: 116.3975), radius: 200))
/// try monitor.add(.administrative("shenzhen", .code("440300", level: .city)))
/// manager.startUpdatingLocation()
/// for await event in events {
///     if case .entered(let region, _) = event { print("entered", region.identifier) }
/// }
/// ```
///
/// ## Fixes
/// The monitor judges the fixes a ``LocationManager`` accepts (``attach(to:)``), or fixes you hand it
/// with ``observe(_:placemark:)``. Administrative areas are decided from the placemark the manager has
/// already resolved for the fix: monitoring costs no engine lookups. Circles are decided by
/// great-circle distance. ``RegionHysteresis`` (margin, dwell) keeps a fix jittering on a border from
/// flapping.
///
/// ## Scale
/// Regions are indexed (circles in a multi-level grid, administrative areas in a dictionary by code
/// and name), so a fix costs work proportional to the regions near it and those the device is in, not
/// to the number monitored: tens of thousands of regions are fine. ``statistics`` counts the work.
///
/// ## Events and threading
/// The monitor is `Sendable`. Its state lives on a private serial queue; fixes are processed there one
/// at a time, in the order they arrive. Events go, in the same order, to every ``events`` sequence
/// (from that queue), and to the delegate and the closures on ``delegateQueue`` (a private serial queue
/// unless you pass one). ``add(_:)`` emits the region's initial ``RegionEvent/stateDetermined(_:_:at:)``
/// before it returns.
///
/// A fix of the attached manager is judged while the manager processes it, and the manager also
/// delivers the events it causes to its own listeners, as ``LocationEvent/region(_:)`` right after that
/// fix's `.location` and `.placemark` (and `.cityChanged`): listen to the manager (``LocationManager/updates``,
/// its delegate or ``LocationManager/onRegionEvent``) for one stream in causal order, the same on every
/// run. The monitor's own ``events``, delegate and closures are separate streams: their events are in
/// order among themselves, not among the manager's.
///
/// Keep a reference to the monitor while you use it: releasing it detaches it from its manager and
/// finishes its ``events`` sequences.
///
/// ## Areas the data does not have
/// An administrative area is recognised by a code or name in each fix's placemark, so one that no unit
/// of the data has (a mistyped code, another dataset's code, a name in a language the data lacks) would
/// never fire. Give the monitor the data's units (``KnownAdministrativeUnits``, from the engine) and it
/// refuses such a region, as it refuses an invalid one:
///
/// ```swift
/// let units = try KnownAdministrativeUnits(engine)     // engine: a ReverseGeocoder
/// let monitor = try RegionMonitor.load(contentsOf: url, knownUnits: units)
/// // regions.json: region "langfang": no city in the loaded data has code "131001"
/// ```
public final class RegionMonitor: @unchecked Sendable {
    // @unchecked: `book` and `subscribers` are only touched on `queue` (asserted); the rest is
    // immutable or behind a `Mutex`.

    /// Why a region could not be added.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The region cannot be monitored: ``MonitoredRegion/problem``, or an area ``knownUnits`` does not
        /// have (``KnownAdministrativeUnits/problem(with:)``).
        case invalidRegion(identifier: String, reason: String)
        case duplicateIdentifier(String)

        public var description: String {
            switch self {
            case .invalidRegion(let id, let reason): return "region \"\(id)\": \(reason)"
            case .duplicateIdentifier(let id): return "region \"\(id)\" appears more than once"
            }
        }
    }

    /// How much work the monitor has done: regions evaluated (a distance or a placemark comparison).
    public struct Statistics: Sendable, Hashable {
        /// Regions monitored now.
        public var regions: Int
        /// Fixes processed.
        public var fixes: Int
        /// Regions evaluated, in total (per fix, plus one per region added after a fix).
        public var evaluations: Int
        /// Regions evaluated for the latest fix.
        public var lastFixEvaluations: Int
        /// The most regions evaluated for one fix (the first fix after adding many regions evaluates
        /// them all once, to decide their initial state).
        public var maximumFixEvaluations: Int
        /// Placemarks whose names were normalized for comparing with the areas given by name: once per
        /// placemark the engine hands out, not per fix (fixes in one unit share its placemark, and the
        /// monitor keeps the last few placemarks' names); 0 while no area is given by name.
        public var placemarksNormalized: Int
    }

    private struct Listeners: Sendable {
        weak var delegate: (any RegionMonitorDelegate)?
        var onStateDetermined: (@Sendable (MonitoredRegion, RegionState, Location?) -> Void)?
        var onEnter: (@Sendable (MonitoredRegion, Location) -> Void)?
        var onExit: (@Sendable (MonitoredRegion, Location) -> Void)?
    }

    private struct Attachment: @unchecked Sendable {
        // A weak reference to a Sendable class; @unchecked only because `weak` makes it a var.
        weak var manager: LocationManager?
        var token: UInt64
    }

    /// Where delegate methods and closures are called.
    public let delegateQueue: DispatchQueue

    private let queue = DispatchQueue(label: "LocationKit.RegionMonitor")
    private let queueKey = DispatchSpecificKey<UInt8>()
    private let listeners = Mutex(Listeners())
    private let attachment = Mutex<Attachment?>(nil)
    private let ids = Mutex<UInt64>(0)
    private var book: RegionBook
    private var subscribers: [UInt64: AsyncStream<RegionEvent>.Continuation] = [:]
    /// What every administrative area added is checked against; `nil`: not checked.
    public let knownUnits: KnownAdministrativeUnits?

    // MARK: - Life cycle

    /// A monitor with `regions` (all checked first; none is added if one is invalid, names an area
    /// `knownUnits` does not have, or shares an identifier with another). Their initial `.unknown`
    /// events are not observable (no one can subscribe yet); they are decided by the first fix, which
    /// sends `.stateDetermined` for each.
    ///
    /// `knownUnits`: the data's units, to refuse an administrative area no fix can ever be in (see
    /// "Areas the data does not have"), here and in every ``add(_:)``; `nil` (the default) checks none.
    public convenience init(regions: [MonitoredRegion] = [], hysteresis: RegionHysteresis = .default,
                            delegateQueue: DispatchQueue? = nil, knownUnits: KnownAdministrativeUnits? = nil) throws(Failure) {
        try self.init(regions: regions, hysteresis: hysteresis, delegateQueue: delegateQueue, knownUnits: knownUnits,
                      cachedPlacemarks: 4)
    }

    /// `cachedPlacemarks`: how many placemarks' normalized names the monitor keeps (``RegionBook``); the
    /// tests compare 0 (every fix's names normalized afresh) with the default.
    init(regions: [MonitoredRegion], hysteresis: RegionHysteresis, delegateQueue: DispatchQueue?,
         knownUnits: KnownAdministrativeUnits?, cachedPlacemarks: Int) throws(Failure) {
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "LocationKit.RegionMonitor.delegate")
        self.book = RegionBook(hysteresis: hysteresis, cachedPlacemarks: cachedPlacemarks)
        self.knownUnits = knownUnits
        queue.setSpecific(key: queueKey, value: 1)
        try Self.validate(regions, knownUnits: knownUnits)
        for region in regions { _ = book.add(region) }
    }

    /// A monitor with the regions and hysteresis of a regions file (see ``RegionFile``), each area
    /// checked against `knownUnits` when given. The error names the file and the region
    /// (`regions.json: region "x": no city in the loaded data has code "999999"`).
    public static func load(contentsOf url: URL, delegateQueue: DispatchQueue? = nil,
                            knownUnits: KnownAdministrativeUnits? = nil) throws(RegionFile.Failure) -> RegionMonitor {
        let file = try RegionFile.load(contentsOf: url)
        do {
            return try RegionMonitor(regions: file.regions, hysteresis: file.hysteresis, delegateQueue: delegateQueue,
                                     knownUnits: knownUnits)
        } catch {
            throw .invalid(path: url.path, error.description)
        }
    }

    deinit {
        if let attached = attachment.withLock({ $0 }) { attached.manager?.removeFixObserver(attached.token) }
        for continuation in subscribers.values { continuation.finish() }
    }

    // MARK: - Regions

    /// The hysteresis applied to every region; changing it takes effect from the next fix.
    public var hysteresis: RegionHysteresis {
        get { onQueue { book.hysteresis } }
        set { onQueue { book.setHysteresis(newValue) } }
    }

    /// Starts monitoring `region`, replacing a region with the same identifier (without an exit event).
    /// Sends its initial `.stateDetermined` (from the latest fix, or `.unknown`) before returning.
    public func add(_ region: MonitoredRegion) throws(Failure) {
        try add(contentsOf: [region])
    }

    /// Adds several regions at once; none is added if one is invalid (or names an area ``knownUnits``
    /// does not have) or two share an identifier.
    public func add(contentsOf regions: [MonitoredRegion]) throws(Failure) {
        try Self.validate(regions, knownUnits: knownUnits)
        onQueue {
            for region in regions { emit(book.add(region)) }
        }
    }

    /// Stops monitoring the region with `identifier`, without an event. Returns false when there is none.
    @discardableResult
    public func remove(identifier: String) -> Bool {
        onQueue { book.remove(identifier) }
    }

    /// Stops monitoring every region.
    public func removeAll() {
        onQueue { book.removeAll() }
    }

    /// The monitored regions, in the order they were added.
    public var regions: [MonitoredRegion] { onQueue { book.regions } }

    /// The current state of the region with `identifier`; `nil` when it is not monitored.
    public func state(for identifier: String) -> RegionState? {
        onQueue { book.state(of: identifier) }
    }

    /// Work done so far (see ``Statistics``).
    public var statistics: Statistics {
        onQueue {
            let c = book.counters
            return Statistics(regions: book.count, fixes: c.fixes, evaluations: c.evaluations,
                              lastFixEvaluations: c.lastFixEvaluations, maximumFixEvaluations: c.maximumFixEvaluations,
                              placemarksNormalized: c.placemarksNormalized)
        }
    }

    // MARK: - Fixes

    /// Judges one fix and its placemark (`nil`: outside every unit of the data). Returns at once; the
    /// fix is processed on the monitor's queue after the ones handed in before it.
    public func observe(_ location: Location, placemark: Placemark?) {
        queue.async { self.process(location, placemark) }
    }

    /// Judges every fix `manager` accepts, with the placemark it resolved, from now on, as the manager
    /// processes it; the manager delivers the events to its listeners too (``LocationEvent/region(_:)``),
    /// right after the fix's own. A monitor is attached to at most one manager: attaching again
    /// detaches it from the previous one. The manager does not keep the monitor alive.
    public func attach(to manager: LocationManager) {
        let token = manager.addRegionJudge { [weak self] fix in
            self?.judge(fix.location, fix.placemark) ?? []
        }
        let previous = attachment.withLock { current -> Attachment? in
            defer { current = Attachment(manager: manager, token: token) }
            return current
        }
        if let previous { previous.manager?.removeFixObserver(previous.token) }
    }

    /// Stops judging the attached manager's fixes.
    public func detach() {
        if let previous = attachment.withLock({ current -> Attachment? in defer { current = nil }; return current }) {
            previous.manager?.removeFixObserver(previous.token)
        }
    }

    /// Returns once every fix handed in before the call has been processed and its events sent to
    /// ``events`` (delegate and closures may still be running on ``delegateQueue``).
    public func waitUntilIdle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }

    private func process(_ location: Location, _ placemark: Placemark?) {
        dispatchPrecondition(condition: .onQueue(queue))
        for event in book.observe(location, placemark: placemark) { emit(event) }
    }

    /// An attached manager's fix, judged now (on the manager's work queue, waiting for fixes handed in
    /// before it): its events go to this monitor's listeners and back to the manager, which sends them
    /// on after the fix's own events. Nothing on the monitor's queue ever waits for the manager's, so
    /// the wait cannot deadlock.
    private func judge(_ location: Location, _ placemark: Placemark?) -> [RegionEvent] {
        onQueue {
            let events = book.observe(location, placemark: placemark)
            for event in events { emit(event) }
            return events
        }
    }

    // MARK: - Listeners

    /// The delegate, held weakly; called on ``delegateQueue``.
    public var delegate: (any RegionMonitorDelegate)? {
        get { listeners.withLock { $0.delegate } }
        set { listeners.withLock { $0.delegate = newValue } }
    }

    /// Called on ``delegateQueue`` with (region, state, fix) for each ``RegionEvent/stateDetermined(_:_:at:)``.
    public var onStateDetermined: (@Sendable (MonitoredRegion, RegionState, Location?) -> Void)? {
        get { listeners.withLock { $0.onStateDetermined } }
        set { listeners.withLock { $0.onStateDetermined = newValue } }
    }

    /// Called on ``delegateQueue`` for each ``RegionEvent/entered(_:at:)``.
    public var onEnter: (@Sendable (MonitoredRegion, Location) -> Void)? {
        get { listeners.withLock { $0.onEnter } }
        set { listeners.withLock { $0.onEnter = newValue } }
    }

    /// Called on ``delegateQueue`` for each ``RegionEvent/exited(_:at:)``.
    public var onExit: (@Sendable (MonitoredRegion, Location) -> Void)? {
        get { listeners.withLock { $0.onExit } }
        set { listeners.withLock { $0.onExit = newValue } }
    }

    /// A new sequence of every event from now on, in order; it finishes when the monitor goes away.
    /// Get it before adding regions or attaching, or their first events are missed.
    public var events: AsyncStream<RegionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RegionEvent.self, bufferingPolicy: .unbounded)
        let id = ids.withLock { $0 += 1; return $0 }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.subscribers[id] = nil }
        }
        onQueue { subscribers[id] = continuation }
        return stream
    }

    private func emit(_ event: RegionEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        for continuation in subscribers.values { continuation.yield(event) }
        delegateQueue.async { self.deliver(event) }
    }

    private func deliver(_ event: RegionEvent) {
        let listeners = self.listeners.withLock { $0 }
        switch event {
        case .stateDetermined(let region, let state, let location):
            listeners.delegate?.regionMonitor(self, didDetermineState: state, for: region, at: location)
            listeners.onStateDetermined?(region, state, location)
        case .entered(let region, let location):
            listeners.delegate?.regionMonitor(self, didEnterRegion: region, at: location)
            listeners.onEnter?(region, location)
        case .exited(let region, let location):
            listeners.delegate?.regionMonitor(self, didExitRegion: region, at: location)
            listeners.onExit?(region, location)
        }
    }

    // MARK: - Helpers

    private func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: queueKey) != nil { return body() }
        return queue.sync(execute: body)
    }

    private static func validate(_ regions: [MonitoredRegion], knownUnits: KnownAdministrativeUnits?) throws(Failure) {
        var seen = Set<String>()
        for region in regions {
            if let problem = region.problem ?? knownUnits?.problem(with: region) {
                throw .invalidRegion(identifier: region.identifier, reason: problem)
            }
            guard seen.insert(region.identifier).inserted else { throw .duplicateIdentifier(region.identifier) }
        }
    }
}

/// The delegate of a ``RegionMonitor`` (CoreLocation's region callbacks of `CLLocationManagerDelegate`).
///
/// Called on the monitor's ``RegionMonitor/delegateQueue``, one at a time, in event order. Every method
/// has an empty default. The monitor holds its delegate weakly.
public protocol RegionMonitorDelegate: AnyObject, Sendable {
    /// A region's initial state (see ``RegionEvent/stateDetermined(_:_:at:)``).
    func regionMonitor(_ monitor: RegionMonitor, didDetermineState state: RegionState, for region: MonitoredRegion,
                       at location: Location?)
    /// The device entered `region`; `location` confirmed it.
    func regionMonitor(_ monitor: RegionMonitor, didEnterRegion region: MonitoredRegion, at location: Location)
    /// The device left `region`; `location` confirmed it.
    func regionMonitor(_ monitor: RegionMonitor, didExitRegion region: MonitoredRegion, at location: Location)
}

extension RegionMonitorDelegate {
    public func regionMonitor(_ monitor: RegionMonitor, didDetermineState state: RegionState,
                              for region: MonitoredRegion, at location: Location?) {}
    public func regionMonitor(_ monitor: RegionMonitor, didEnterRegion region: MonitoredRegion,
                              at location: Location) {}
    public func regionMonitor(_ monitor: RegionMonitor, didExitRegion region: MonitoredRegion,
                              at location: Location) {}
}
