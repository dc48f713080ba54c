import Dispatch
import Foundation
import LocationSources
import GeoModel
import Synchronization

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
/// 1. Invalid fixes (``Location/isValid`` false: no fix, bad coordinate, accuracy NaN or infinite) are
///    dropped. A fix of unknown accuracy (negative `horizontalAccuracy`: a GPX point without `<hdop>`,
///    an NMEA cycle without HDOP or GST) is valid.
/// 2. With ``discardsFirstFix``, the first valid fix of each run is dropped (receivers often start with
///    a cached, stale position).
/// 3. Fixes with `horizontalAccuracy > desiredAccuracy` are dropped, and so are fixes of unknown
///    accuracy unless ``desiredAccuracy`` is ``accuracyAny`` (the default): they cannot be shown to be
///    accurate enough. The first of these in a run sends ``LocationWarning/unknownAccuracyDropped(desiredAccuracy:)``.
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
///   source produced the fixes that caused them. Nothing is dropped, and nothing piles up: when a stream's consumer or the delegate queue
///   falls ``EventChannel/limit`` events behind, the manager waits before taking the source's next event.
/// - ``startUpdatingLocation()``, ``stopUpdatingLocation()`` and ``requestLocation()`` take effect
///   before they return. After ``stopUpdatingLocation()`` returns, the run's only remaining event is
///   its `.stopped` (plus any events already handed to the delegate queue before it).
public final class LocationManager: @unchecked Sendable {
    // @unchecked: the `var` state below is only touched on `queue` (asserted with
    // dispatchPrecondition); everything else is immutable or behind a `Mutex`. The behaviour lives in
    // extensions, one concern per file: LocationManager+Settings, +Runs, +FixProcessing, +Requests,
    // +Delivery, +FixObservers, and SignificantChange/LocationManager+SignificantChange.

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
    /// Value of ``desiredAccuracy`` that accepts any valid fix, also one whose accuracy is unknown (any
    /// larger value, such as `.infinity`, does the same).
    public static let accuracyAny: Double = .greatestFiniteMagnitude

    // MARK: - State shared with the extensions (LocationManager+*.swift)

    // Any thread, behind a mutex.
    let settings = Mutex(Settings())
    let listeners = Mutex(Listeners())
    let snapshot = Mutex(Snapshot())
    let ids = Mutex<UInt64>(0)
    /// Events handed to `delegateQueue` and not delivered yet (bounded by the run's backpressure).
    let pendingDeliveries = Mutex(0)
    /// Position reporters (and tests) attached to this manager (see ``addFixObserver(_:)``).
    let fixObservers = Mutex<[(id: UInt64, observe: @Sendable (Fix) -> Void)]>([])
    /// Region monitors attached to this manager (see ``addRegionJudge(_:)``).
    let regionJudges = Mutex<[(id: UInt64, judge: @Sendable (Fix) -> [RegionEvent])]>([])

    /// The source of fixes.
    public let source: any LocationSource
    /// The placemark provider (the engine).
    public let geocoder: any PlacemarkProvider
    /// Where the current placemark is persisted; `nil`: not persisted.
    public let currentPlacemarkStore: PlacemarkStore?
    /// The queue delegate methods and closures are called on (serial unless you passed a concurrent one,
    /// which would lose the ordering guarantee).
    public let delegateQueue: DispatchQueue
    /// What ``requestTimeout`` is measured on, and the date the current placemark is saved with.
    public let clock: any LocationClock

    // Work queue only (asserted with dispatchPrecondition).
    let queue: DispatchQueue
    let queueKey = DispatchSpecificKey<UInt8>()
    var run: Run?
    var request: Request?
    var waiters: [LocateWaiter] = []
    var locateWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var subscribers: [UInt64: EventChannel] = [:]
    var tracker = CityTracker(hysteresis: .default)
    var lastLookup: PlacemarkLookup?

    // MARK: - Life cycle

    /// - Parameters:
    ///   - source: where fixes come from.
    ///   - geocoder: answers placemarks for WGS-84 coordinates.
    ///   - currentPlacemarkFile: where to persist the current placemark; `nil` to keep it in memory only.
    ///   - delegateQueue: where delegate methods and closures run; `nil` for a private serial queue.
    ///   - clock: the time request timeouts run on; tests pass a manual one.
    public init(source: any LocationSource, geocoder: any PlacemarkProvider,
                currentPlacemarkFile: URL? = nil, delegateQueue: DispatchQueue? = nil,
                clock: any LocationClock = SystemClock()) {
        self.source = source
        self.clock = clock
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
        for watcher in locateWatchers { watcher.continuation.resume() }
        for channel in subscribers.values { channel.finish() }
    }

    // MARK: - State

    /// The most recent accepted fix (of any run).
    public var location: Location? { snapshot.withLock { $0.location } }

    /// The placemark shown to the user: the latest placemark in the current city (see
    /// ``CityChangeHysteresis``), with the latest fix's nearest-place distance. Restored from
    /// ``currentPlacemarkStore`` when a run starts; saved there only when the place changes (not when
    /// only that distance does: ``Placemark/isSamePlace(as:)``).
    public var currentPlacemark: Placemark? { snapshot.withLock { $0.currentPlacemark } }

    /// True while a run (continuous, significant-change or one-shot) is going.
    public var isUpdatingLocation: Bool { snapshot.withLock { $0.isUpdating } }

    /// True while the significant-change service is on.
    public var isMonitoringSignificantLocationChanges: Bool {
        snapshot.withLock { $0.isMonitoringSignificantChanges }
    }

    // MARK: - Work queue

    func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: queueKey) != nil { return body() }
        return queue.sync(execute: body)
    }

    func nextID() -> UInt64 {
        ids.withLock { $0 += 1; return $0 }
    }
}

extension LocationManager {
    struct Snapshot: Sendable {
        var location: Location?
        var currentPlacemark: Placemark?
        var isUpdating = false
        var isMonitoringSignificantChanges = false
    }
}
