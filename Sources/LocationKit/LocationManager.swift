import Dispatch
import Foundation
import LocationSources
import ReverseGeocoder

/// The CoreLocation-style facade: takes fixes from a ``LocationSource``, filters them, asks a
/// ``PlacemarkProvider`` for each accepted fix's placemark, tracks the current city with hysteresis,
/// persists it, and tells listeners (delegate, closures, ``updates``) what happened.
///
/// ```swift
/// let manager = LocationManager(source: replay, geocoder: engine, currentPlacemarkFile: stateFile)
/// manager.distanceFilter = 20
/// let updates = manager.updates            // subscribe before starting
/// manager.startUpdatingLocation()
/// for await event in updates {             // ends after the run's .stopped
///     if case .cityChanged(let from, let to, _) = event { print(from.locality ?? "?", "→", to.locality ?? "?") }
/// }
/// let here = try await manager.locate()    // one fix and its placemark
/// ```
///
/// ## Runs
/// A *run* starts with ``startUpdatingLocation()`` (continuous) or ``requestLocation()`` / ``locate()``
/// (one-shot, when not already running) and ends with exactly one ``LocationEvent/stopped(_:)`` event:
/// ``stopUpdatingLocation()`` was called, the source's stream finished (end of a replayed file), or a
/// one-shot request got its fix or failed. Each run calls the source's `events()` afresh.
///
/// ## Filtering (per fix, in this order)
/// 1. Invalid fixes (``Location/isValid`` false: no fix, negative accuracy, bad coordinate) are dropped.
/// 2. With ``discardsFirstFix``, the first valid fix of each run is dropped (receivers often start with
///    a cached, stale position).
/// 3. Fixes with `horizontalAccuracy > desiredAccuracy` are dropped.
/// 4. Fixes closer than ``distanceFilter`` metres (great circle) to the last delivered fix of this run
///    are dropped. The first fix of a run always passes, and so does a fix that answers a pending
///    one-shot request (a parked receiver must still be able to answer one).
///
/// ## Significant changes
/// ``startMonitoringSignificantLocationChanges()`` is CoreLocation's low-power service: it delivers a
/// fix only after ``SignificantChangeOptions/distance`` metres of movement or
/// ``SignificantChangeOptions/maximumInterval`` seconds, ignoring steps 3 and 4 above (see
/// ``SignificantChangeOptions``). It and ``startUpdatingLocation()`` are independent services sharing
/// one run: while both are on, a fix that either would deliver is delivered (once); stopping one leaves
/// the other running, and the run ends when neither is on and no one-shot request is pending.
///
/// ## Lifetime
/// Keep a reference to the manager while you use it: releasing it ends a run (the source is stopped
/// and ``updates`` streams finish), like releasing a `CLLocationManager`.
///
/// ## Threading and delivery
/// - The manager is `Sendable`; every method and property may be used from any thread or task.
/// - Work (filtering, placemark lookups, city tracking, saving the current placemark) happens on one
///   private serial queue, one source event at a time, in source order.
/// - Delegate methods and closures are called on ``delegateQueue``: by default a private serial queue
///   created for this manager (a command-line program on Linux has no running main loop, so `.main`
///   would never deliver). Pass `.main` to the initialiser for UI code that runs a main loop.
/// - ``updates`` streams are fed from the work queue directly; their consumers run wherever they run.
/// - All three see the same events in the same order; within a run, events keep the order in which the
///   source produced the fixes that caused them. Nothing is dropped: streams buffer without limit.
/// - ``startUpdatingLocation()``, ``stopUpdatingLocation()`` and ``requestLocation()`` take effect
///   before they return. After ``stopUpdatingLocation()`` returns, the run's only remaining event is
///   its `.stopped` (plus any events already handed to the delegate queue before it).
public final class LocationManager: @unchecked Sendable {
    // @unchecked: the mutable state below the "Work-queue state" mark is only touched on `queue`
    // (asserted with dispatchPrecondition); everything else is immutable or `Locked`.

    /// Why a run ended.
    public enum StopReason: Sendable, Hashable {
        /// ``stopUpdatingLocation()`` was called.
        case requested
        /// The source's stream finished (a replayed file ended, or the source gave up).
        case sourceFinished
        /// A one-shot request got its fix.
        case requestFulfilled
        /// A one-shot request timed out (a `.locationUnknown` error came just before).
        case requestFailed
    }

    /// An accepted fix and its placemark: what ``locate()`` returns.
    public struct Fix: Sendable, Hashable {
        public var location: Location
        public var placemark: Placemark?

        public init(location: Location, placemark: Placemark?) {
            self.location = location
            self.placemark = placemark
        }
    }

    /// Value of ``distanceFilter`` that disables it (any value ≤ 0 does).
    public static let distanceFilterNone: Double = -1
    /// Value of ``desiredAccuracy`` that accepts any valid fix.
    public static let accuracyAny: Double = .greatestFiniteMagnitude

    // MARK: - Configuration and listeners (any thread)

    private struct Settings: Sendable {
        var distanceFilter = LocationManager.distanceFilterNone
        var desiredAccuracy = LocationManager.accuracyAny
        var discardsFirstFix = false
        var requestTimeout: TimeInterval = 30
        var cityChangeHysteresis = CityChangeHysteresis.default
        var placemarkReuseDistance: Double = 0
        var significantChange = SignificantChangeOptions.default
    }

    private struct Listeners: Sendable {
        weak var delegate: (any LocationManagerDelegate)?
        var onLocation: (@Sendable (Location) -> Void)?
        var onPlacemark: (@Sendable (Placemark?, Location) -> Void)?
        var onCityChange: (@Sendable (Placemark, Placemark, Location) -> Void)?
        var onError: (@Sendable (LocationError) -> Void)?
        var onWarning: (@Sendable (LocationWarning) -> Void)?
        var onStop: (@Sendable (StopReason) -> Void)?
    }

    private struct Snapshot: Sendable {
        var location: Location?
        var currentPlacemark: Placemark?
        var isUpdating = false
        var isMonitoringSignificantChanges = false
    }

    private let settings = Locked(Settings())
    private let listeners = Locked(Listeners())
    private let snapshot = Locked(Snapshot())
    private let ids = Locked<UInt64>(0)
    /// Region monitors and position reporters attached to this manager (see ``addFixObserver(_:)``).
    private let fixObservers = Locked<[(id: UInt64, observe: @Sendable (Fix) -> Void)]>([])

    /// The source of fixes.
    public let source: any LocationSource
    /// The placemark provider (the engine).
    public let geocoder: any PlacemarkProvider
    /// Where the current placemark is persisted; `nil`: not persisted.
    public let currentPlacemarkStore: PlacemarkStore?
    /// The queue delegate methods and closures are called on (serial unless you passed a concurrent one,
    /// which would lose the ordering guarantee).
    public let delegateQueue: DispatchQueue

    /// Minimum distance in metres (great circle) between delivered fixes; ≤ 0 (the default,
    /// ``distanceFilterNone``) delivers every accepted fix. Takes effect from the next fix.
    public var distanceFilter: Double {
        get { settings.withLock { $0.distanceFilter } }
        set { settings.withLock { $0.distanceFilter = newValue } }
    }

    /// Fixes whose `horizontalAccuracy` (metres) is worse (larger) than this are dropped. Default
    /// ``accuracyAny``.
    public var desiredAccuracy: Double {
        get { settings.withLock { $0.desiredAccuracy } }
        set { settings.withLock { $0.desiredAccuracy = newValue } }
    }

    /// Drop the first valid fix of each run as possibly stale. Default `false`.
    public var discardsFirstFix: Bool {
        get { settings.withLock { $0.discardsFirstFix } }
        set { settings.withLock { $0.discardsFirstFix = newValue } }
    }

    /// Seconds a one-shot request waits for an acceptable fix before failing with `.locationUnknown`.
    /// Read when the request starts. Default 30.
    public var requestTimeout: TimeInterval {
        get { settings.withLock { $0.requestTimeout } }
        set { settings.withLock { $0.requestTimeout = newValue } }
    }

    /// When a new city replaces the current one; see ``CityChangeHysteresis``. Default `.default`.
    public var cityChangeHysteresis: CityChangeHysteresis {
        get { settings.withLock { $0.cityChangeHysteresis } }
        set { settings.withLock { $0.cityChangeHysteresis = newValue } }
    }

    /// A fix within this many metres of the last coordinate the provider was asked about reuses that
    /// answer without a lookup. The default 0 reuses only for the identical coordinate (a parked
    /// receiver), which is always exact; a larger value trades exactness near borders for fewer lookups.
    public var placemarkReuseDistance: Double {
        get { settings.withLock { $0.placemarkReuseDistance } }
        set { settings.withLock { $0.placemarkReuseDistance = newValue } }
    }

    /// What ``startMonitoringSignificantLocationChanges()`` counts as significant. Default `.default`
    /// (500 m or 5 minutes). Takes effect from the next fix.
    public var significantChangeOptions: SignificantChangeOptions {
        get { settings.withLock { $0.significantChange } }
        set { settings.withLock { $0.significantChange = newValue } }
    }

    /// The delegate, held weakly. Called on ``delegateQueue``.
    public var delegate: (any LocationManagerDelegate)? {
        get { listeners.withLock { $0.delegate } }
        set { listeners.withLock { $0.delegate = newValue } }
    }

    /// Called on ``delegateQueue`` for each accepted fix.
    public var onLocation: (@Sendable (Location) -> Void)? {
        get { listeners.withLock { $0.onLocation } }
        set { listeners.withLock { $0.onLocation = newValue } }
    }

    /// Called on ``delegateQueue`` with each accepted fix's placemark (`nil`: outside the dataset).
    public var onPlacemark: (@Sendable (Placemark?, Location) -> Void)? {
        get { listeners.withLock { $0.onPlacemark } }
        set { listeners.withLock { $0.onPlacemark = newValue } }
    }

    /// Called on ``delegateQueue`` with (from, to, confirming fix) when the current city changes.
    public var onCityChange: (@Sendable (Placemark, Placemark, Location) -> Void)? {
        get { listeners.withLock { $0.onCityChange } }
        set { listeners.withLock { $0.onCityChange = newValue } }
    }

    /// Called on ``delegateQueue`` for each error.
    public var onError: (@Sendable (LocationError) -> Void)? {
        get { listeners.withLock { $0.onError } }
        set { listeners.withLock { $0.onError = newValue } }
    }

    /// Called on ``delegateQueue`` for each warning.
    public var onWarning: (@Sendable (LocationWarning) -> Void)? {
        get { listeners.withLock { $0.onWarning } }
        set { listeners.withLock { $0.onWarning = newValue } }
    }

    /// Called on ``delegateQueue`` when a run ends.
    public var onStop: (@Sendable (StopReason) -> Void)? {
        get { listeners.withLock { $0.onStop } }
        set { listeners.withLock { $0.onStop = newValue } }
    }

    /// The most recent accepted fix (of any run).
    public var location: Location? { snapshot.withLock { $0.location } }

    /// The placemark shown to the user: the latest placemark in the current city (see
    /// ``CityChangeHysteresis``). Restored from ``currentPlacemarkStore`` when a run starts.
    public var currentPlacemark: Placemark? { snapshot.withLock { $0.currentPlacemark } }

    /// True while a run (continuous, significant-change or one-shot) is going.
    public var isUpdatingLocation: Bool { snapshot.withLock { $0.isUpdating } }

    /// True while the significant-change service is on.
    public var isMonitoringSignificantLocationChanges: Bool {
        snapshot.withLock { $0.isMonitoringSignificantChanges }
    }

    // MARK: - Work-queue state (only on `queue`)

    private struct Run {
        let id: UInt64
        let task: Task<Void, Never>
        /// Standard updates are on (``startUpdatingLocation()``).
        var continuous: Bool
        /// The significant-change service is on; its per-run state.
        var significant: SignificantChangeFilter?
        var sawValidFix = false
        var lastDelivered: Location?

        /// False for a one-shot run, which ends with its request.
        var keepsRunning: Bool { continuous || significant != nil }
    }

    private struct Request {
        let id: UInt64
        let timer: DispatchWorkItem
        var lastSourceError: LocationError?
    }

    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<UInt8>()
    private var run: Run?
    private var request: Request?
    private var waiters: [Waiter] = []
    private var subscribers: [UInt64: AsyncStream<LocationEvent>.Continuation] = [:]
    private var tracker = CityTracker(hysteresis: .default)
    private var lastLookup: PlacemarkLookup?

    // MARK: - Life cycle

    /// - Parameters:
    ///   - source: where fixes come from.
    ///   - geocoder: answers placemarks for WGS-84 coordinates.
    ///   - currentPlacemarkFile: where to persist the current placemark; `nil` to keep it in memory only.
    ///   - delegateQueue: where delegate methods and closures run; `nil` for a private serial queue.
    public init(source: any LocationSource, geocoder: any PlacemarkProvider,
                currentPlacemarkFile: URL? = nil, delegateQueue: DispatchQueue? = nil) {
        self.source = source
        self.geocoder = geocoder
        self.currentPlacemarkStore = currentPlacemarkFile.map(PlacemarkStore.init(url:))
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "LocationKit.LocationManager.delegate")
        self.queue = DispatchQueue(label: "LocationKit.LocationManager.work")
        queue.setSpecific(key: queueKey, value: 1)
    }

    deinit {
        // No other reference exists any more, so the work-queue state can be touched here directly.
        if let run {
            run.task.cancel()
            source.stop()
        }
        request?.timer.cancel()
        for waiter in waiters { waiter.resume(.failure(.cancelled)) }
        for continuation in subscribers.values { continuation.finish() }
    }

    // MARK: - Public control

    /// Starts (or keeps) continuous updates. A one-shot run in progress becomes continuous.
    public func startUpdatingLocation() {
        onQueue {
            if run != nil {
                run!.continuous = true
            } else {
                beginRun(continuous: true)
            }
        }
    }

    /// Stops updates and cancels a pending one-shot request (without an error). The run ends with
    /// `.stopped(.requested)`, unless the significant-change service is on: then only standard updates
    /// stop and the run goes on under that service. Does nothing when not running.
    public func stopUpdatingLocation() {
        onQueue {
            let cancelled = request != nil
            if let request {
                request.timer.cancel()
                self.request = nil
            }
            if run?.significant != nil {
                run!.continuous = false
            } else if run != nil {
                endRun(.requested)
            }
            if cancelled { resolveWaiters(.failure(.cancelled)) }
        }
    }

    /// Starts (or keeps) the significant-change service: a fix is delivered only when it is significant
    /// (see ``SignificantChangeOptions``), ignoring ``distanceFilter`` and ``desiredAccuracy``. Starts a
    /// run when none is going; the first valid fix of the run is delivered. Delivered fixes go through
    /// everything else as usual (placemark, city tracking, attached monitors and reporters).
    public func startMonitoringSignificantLocationChanges() {
        onQueue {
            if run == nil { beginRun(continuous: false) }
            if run!.significant == nil {
                run!.significant = SignificantChangeFilter(options: settings.withLock { $0.significantChange })
            }
            snapshot.withLock { $0.isMonitoringSignificantChanges = true }
        }
    }

    /// Stops the significant-change service. The run ends with `.stopped(.requested)` unless standard
    /// updates are on or a one-shot request is pending (it then ends with that request). Does nothing
    /// when the service is off.
    public func stopMonitoringSignificantLocationChanges() {
        onQueue {
            guard run?.significant != nil else { return }
            run!.significant = nil
            snapshot.withLock { $0.isMonitoringSignificantChanges = false }
            if !run!.continuous, request == nil { endRun(.requested) }
        }
    }

    /// Asks for one acceptable fix. It is delivered like any other (location, placemark, maybe city
    /// change). If none arrives within ``requestTimeout`` seconds, or the source ends first, listeners
    /// get `.error(.locationUnknown)`. When not already running, this starts a one-shot run that ends
    /// after the request (`.requestFulfilled`, `.requestFailed` or `.sourceFinished`); during
    /// continuous updates the request is answered by the next fix that passes the filters other than
    /// the distance filter, and updates go on. A second request while one is pending joins it.
    public func requestLocation() {
        onQueue { startRequest() }
    }

    /// ``requestLocation()`` for async code: returns the fix and its placemark. Throws
    /// `.locationUnknown` when the request fails, or the last source error reported during the request
    /// when there was one (so "gpsd unreachable" is not reported as a bare "location unknown");
    /// `.cancelled` when the task is cancelled or ``stopUpdatingLocation()`` ends the request.
    /// Listeners see the request's events as usual.
    public func locate() async throws(LocationError) -> Fix {
        let waiter = Waiter()
        let result: Result<Fix, LocationError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.register(continuation) else { return }
                queue.async {
                    self.waiters.append(waiter)
                    self.startRequest()
                }
            }
        } onCancel: {
            waiter.resume(.failure(.cancelled))
        }
        return try result.get()
    }

    /// A new sequence of every event from now on, in order. It finishes after the next `.stopped` event
    /// (the end of the current run, or of the next run if none is going), or when the manager goes away.
    /// Get it *before* starting, or events of the start are missed:
    /// ```swift
    /// let updates = manager.updates
    /// manager.startUpdatingLocation()
    /// for await event in updates { ... }
    /// ```
    public var updates: AsyncStream<LocationEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .unbounded)
        let id = nextID()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.subscribers[id] = nil }
        }
        onQueue { subscribers[id] = continuation }
        return stream
    }

    /// `locate()` calls waiting for the pending request (for tests).
    var pendingLocateCount: Int { onQueue { waiters.count } }

    // MARK: - Fix observers

    /// Calls `observe` with every accepted fix and its placemark, on the work queue, in order, right
    /// after its `.placemark` event; returns a token for ``removeFixObserver(_:)``. This is how a
    /// ``RegionMonitor`` or ``PositionReporter`` reuses the placemark the manager already resolved (no
    /// second engine call). `observe` must return quickly (hand the fix to a queue of its own) and must
    /// not call back into the manager synchronously.
    func addFixObserver(_ observe: @escaping @Sendable (Fix) -> Void) -> UInt64 {
        let id = nextID()
        fixObservers.withLock { $0.append((id, observe)) }
        return id
    }

    /// Stops calling the observer registered under `id`. A fix being handed over right now may still
    /// reach it.
    func removeFixObserver(_ id: UInt64) {
        fixObservers.withLock { $0.removeAll { $0.id == id } }
    }

    // MARK: - Work queue

    private func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: queueKey) != nil { return body() }
        return queue.sync(execute: body)
    }

    private func nextID() -> UInt64 {
        ids.withLock { $0 += 1; return $0 }
    }

    private func beginRun(continuous: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        let id = nextID()
        tracker.beginRun()
        if tracker.current == nil, let store = currentPlacemarkStore {
            do throws(PlacemarkStore.Failure) {
                if let restored = try store.load() {
                    tracker.restore(restored)
                    snapshot.withLock { $0.currentPlacemark = tracker.current }
                }
            } catch {
                emit(.warning(.currentPlacemarkUnreadable(path: store.url.path, reason: error.description)))
            }
        }
        let events = source.events()
        let task = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handOff(event, run: id)
            }
            guard let self else { return }
            self.queue.async { self.sourceFinished(run: id) }
        }
        run = Run(id: id, task: task, continuous: continuous)
        snapshot.withLock { $0.isUpdating = true }
    }

    private func endRun(_ reason: StopReason) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let ending = run else { return }
        run = nil
        ending.task.cancel()
        source.stop()
        snapshot.withLock {
            $0.isUpdating = false
            $0.isMonitoringSignificantChanges = false
        }
        emit(.stopped(reason))
    }

    /// Processes one source event on the work queue; returns when it is done, so the source's own
    /// buffer (not an unbounded queue) absorbs a burst.
    private func handOff(_ event: LocationSourceEvent, run id: UInt64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                self.handle(event, run: id)
                done.resume()
            }
        }
    }

    private func handle(_ event: LocationSourceEvent, run id: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard run?.id == id else { return }  // a late event of a run that was stopped
        switch event {
        case .error(let sourceError):
            let error = LocationError(sourceError)
            request?.lastSourceError = error
            emit(.error(error))
        case .location(let location):
            process(location)
        }
    }

    private func process(_ location: Location) {
        guard var current = run else { return }
        let settings = self.settings.wrapped
        guard location.isValid else { return }
        if !current.sawValidFix {
            current.sawValidFix = true
            run = current
            if settings.discardsFirstFix { return }
        }
        // Standard updates and one-shot requests: steps 3 and 4. The significant-change service: its
        // own rule. A fix either would deliver is delivered.
        let accurate = location.horizontalAccuracy <= settings.desiredAccuracy
        var accepted = false
        if current.continuous || request != nil, accurate {
            accepted = request != nil || settings.distanceFilter <= 0 || current.lastDelivered.map {
                location.coordinate.distance(to: $0.coordinate) >= settings.distanceFilter
            } ?? true
        }
        if var significant = current.significant {
            significant.options = settings.significantChange
            accepted = accepted || significant.isSignificant(location)
            if accepted { significant.delivered(location) }
            current.significant = significant
        }
        guard accepted else { return }
        current.lastDelivered = location
        run = current

        let placemark: Placemark?
        if let cached = lastLookup,
           cached.coordinate == location.coordinate
            || location.coordinate.distance(to: cached.coordinate) <= settings.placemarkReuseDistance {
            placemark = cached.placemark
        } else {
            do {
                placemark = try geocoder.placemark(for: location.coordinate, previous: lastLookup)
            } catch {
                // The engine failed to answer, which is not "no place": the fix is delivered and the
                // error reported; the placemark, city tracking and current placemark stay as they were.
                emit(.location(location))
                emit(.error(.geocodingFailed(String(describing: error))))
                return
            }
            lastLookup = PlacemarkLookup(coordinate: location.coordinate, placemark: placemark)
        }

        tracker.hysteresis = settings.cityChangeHysteresis
        let outcome = tracker.observe(placemark, at: location.coordinate)
        let shown = tracker.current
        snapshot.withLock {
            $0.location = location
            $0.currentPlacemark = shown
        }
        emit(.location(location))
        emit(.placemark(placemark, for: location))
        let fix = Fix(location: location, placemark: placemark)
        for observer in fixObservers.wrapped { observer.observe(fix) }
        if let change = outcome.cityChange {
            emit(.cityChanged(from: change.from, to: change.to, at: location))
        }
        if outcome.currentChanged, let shown, let store = currentPlacemarkStore {
            do throws(PlacemarkStore.Failure) {
                try store.save(shown)
            } catch {
                emit(.warning(.currentPlacemarkNotSaved(path: store.url.path, reason: error.description)))
            }
        }
        // A fix the significant-change service let through despite desiredAccuracy does not answer.
        if let pending = request, accurate {
            pending.timer.cancel()
            request = nil
            // End the run before waking `locate()` callers, so they see `isUpdatingLocation == false`.
            if run?.keepsRunning == false { endRun(.requestFulfilled) }
            resolveWaiters(.success(fix))
        }
    }

    private func sourceFinished(run id: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard run?.id == id else { return }
        let failure = request.map(failRequest)
        endRun(.sourceFinished)
        if let failure { resolveWaiters(.failure(failure)) }
    }

    private func startRequest() {
        dispatchPrecondition(condition: .onQueue(queue))
        if request == nil {
            let id = nextID()
            let timer = DispatchWorkItem { [weak self] in self?.requestTimedOut(id) }
            request = Request(id: id, timer: timer)
            queue.asyncAfter(deadline: .now() + max(0, settings.withLock { $0.requestTimeout }), execute: timer)
        }
        if run == nil { beginRun(continuous: false) }
    }

    private func requestTimedOut(_ id: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let pending = request, pending.id == id else { return }
        let failure = failRequest(pending)
        if run?.keepsRunning == false { endRun(.requestFailed) }
        resolveWaiters(.failure(failure))
    }

    /// Ends the pending request with `.locationUnknown` for listeners; returns what `locate()` throws.
    private func failRequest(_ pending: Request) -> LocationError {
        pending.timer.cancel()
        request = nil
        emit(.error(.locationUnknown))
        return pending.lastSourceError ?? .locationUnknown
    }

    private func resolveWaiters(_ result: Result<Fix, LocationError>) {
        let resolving = waiters
        waiters = []
        for waiter in resolving { waiter.resume(result) }
    }

    // MARK: - Delivery

    private func emit(_ event: LocationEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        for continuation in subscribers.values { continuation.yield(event) }
        if case .stopped = event {
            for continuation in subscribers.values { continuation.finish() }
            subscribers = [:]
        }
        delegateQueue.async { self.deliver(event) }
    }

    private func deliver(_ event: LocationEvent) {
        let listeners = self.listeners.wrapped
        let delegate = listeners.delegate
        switch event {
        case .location(let location):
            delegate?.locationManager(self, didUpdateLocations: [location])
            listeners.onLocation?(location)
        case .placemark(let placemark, let location):
            delegate?.locationManager(self, didUpdatePlacemark: placemark, for: location)
            listeners.onPlacemark?(placemark, location)
        case .cityChanged(let from, let to, let location):
            delegate?.locationManager(self, cityDidChangeFrom: from, to: to, at: location)
            listeners.onCityChange?(from, to, location)
        case .error(let error):
            delegate?.locationManager(self, didFailWithError: error)
            listeners.onError?(error)
        case .warning(let warning):
            delegate?.locationManager(self, didReceiveWarning: warning)
            listeners.onWarning?(warning)
        case .stopped(let reason):
            delegate?.locationManager(self, didStopWith: reason)
            listeners.onStop?(reason)
        }
    }
}

/// One `locate()` call: resumed exactly once, by the request's outcome or by cancellation, whichever
/// comes first.
private final class Waiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<LocationManager.Fix, LocationError>, Never>?
        var outcome: Result<LocationManager.Fix, LocationError>?
    }
    private let state = Locked(State())

    /// Stores the continuation; if the outcome is already known (cancelled before registering),
    /// resumes it at once and returns false.
    func register(_ continuation: CheckedContinuation<Result<LocationManager.Fix, LocationError>, Never>) -> Bool {
        let early: Result<LocationManager.Fix, LocationError>? = state.withLock {
            if let outcome = $0.outcome { return outcome }
            $0.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(returning: early)
            return false
        }
        return true
    }

    func resume(_ result: Result<LocationManager.Fix, LocationError>) {
        let continuation: CheckedContinuation<Result<LocationManager.Fix, LocationError>, Never>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            let waiting = state.continuation
            state.continuation = nil
            return waiting
        }
        continuation?.resume(returning: result)
    }
}
