import Dispatch
import Foundation
import LocationSources
import GeoModel

// Event delivery: the delegate, the closures and the `updates` streams see the same events in the
// same order.
extension LocationManager {
    struct Listeners: Sendable {
        weak var delegate: (any LocationManagerDelegate)?
        var onLocation: (@Sendable (Location) -> Void)?
        var onPlacemark: (@Sendable (Placemark?, Location) -> Void)?
        var onCityChange: (@Sendable (Placemark, Placemark, Location) -> Void)?
        var onError: (@Sendable (LocationError) -> Void)?
        var onWarning: (@Sendable (LocationWarning) -> Void)?
        var onStop: (@Sendable (StopReason) -> Void)?
        var onRegionEvent: (@Sendable (RegionEvent) -> Void)?

        /// Nobody listens (a delegate that went away counts as none).
        var isEmpty: Bool {
            delegate == nil && onLocation == nil && onPlacemark == nil && onCityChange == nil
                && onError == nil && onWarning == nil && onStop == nil && onRegionEvent == nil
        }
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

    /// Called on ``delegateQueue`` with each event of an attached ``RegionMonitor``, right after the
    /// events of the fix that caused it (see ``LocationEvent/region(_:)``).
    public var onRegionEvent: (@Sendable (RegionEvent) -> Void)? {
        get { listeners.withLock { $0.onRegionEvent } }
        set { listeners.withLock { $0.onRegionEvent = newValue } }
    }

    /// Called on ``delegateQueue`` when a run ends.
    public var onStop: (@Sendable (StopReason) -> Void)? {
        get { listeners.withLock { $0.onStop } }
        set { listeners.withLock { $0.onStop = newValue } }
    }

    /// A new sequence of every event from now on, in order. It finishes after the next `.stopped` event
    /// (the end of the current run, or of the next run if none is going), or when the manager goes away.
    /// Get it *before* starting, or events of the start are missed:
    /// ```swift
    /// let updates = manager.updates
    /// manager.startUpdatingLocation()
    /// for await event in updates { ... }
    /// ```
    ///
    /// Nothing is dropped, and memory stays bounded: while a stream has ``EventChannel/limit`` events
    /// waiting for its consumer, the manager stops taking fixes from the source until the consumer
    /// catches up (a replayed file plays as fast as the slowest consumer; a live source's own buffer
    /// absorbs the wait). So consume every stream you take, or release it.
    public var updates: AsyncStream<LocationEvent> {
        let id = nextID()
        let channel = EventChannel(onTermination: { [weak self] in
            guard let self else { return }
            self.queue.async { self.subscribers[id] = nil }
        })
        onQueue { subscribers[id] = channel }
        return channel.stream()
    }

    /// ``updates`` in batches: each element holds every event waiting at that moment, in order (one
    /// when the consumer keeps up, up to a few hundred when it is behind). For a consumer that writes
    /// the events out and wants to flush once per batch rather than once per event. Same lifetime,
    /// order and backpressure as ``updates``.
    public var updateBatches: AsyncStream<[LocationEvent]> {
        let id = nextID()
        let channel = EventChannel(onTermination: { [weak self] in
            guard let self else { return }
            self.queue.async { self.subscribers[id] = nil }
        })
        onQueue { subscribers[id] = channel }
        return channel.batchStream()
    }

    // MARK: - On the work queue

    func emit(_ event: LocationEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        for channel in subscribers.values { channel.yield(event) }
        if case .stopped = event {
            for channel in subscribers.values { channel.finish() }
            subscribers = [:]
        }
        // No delegate and no closure: nothing to deliver, so no hop to the delegate queue (two per fix,
        // a thread wake-up each, were a good part of a --speed max replay's system time). A listener
        // set later gets the events from then on.
        guard !listeners.withLock({ $0.isEmpty }) else { return }
        pendingDeliveries.withLock { $0 += 1 }
        delegateQueue.async {
            self.deliver(event)
            self.pendingDeliveries.withLock { $0 -= 1 }
        }
    }

    /// The listeners that are behind: streams with ``EventChannel/limit`` events unread, and the
    /// delegate queue when that many deliveries wait on it.
    struct Backlog: Sendable {
        var channels: [EventChannel]
        var delegateQueue: DispatchQueue?

        /// Returns when they have caught up. Called by the run's task between source events, never on
        /// the work queue, so the queue stays free for `stop` and for callbacks.
        func wait() async {
            for channel in channels { await channel.waitForSpace(below: EventChannel.limit) }
            if let delegateQueue {
                // Everything queued before this block has been delivered when it runs.
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    delegateQueue.async { c.resume() }
                }
            }
        }
    }

    /// Work queue only.
    func backlog() -> Backlog {
        dispatchPrecondition(condition: .onQueue(queue))
        return Backlog(channels: subscribers.values.filter { $0.count >= EventChannel.limit },
                       delegateQueue: pendingDeliveries.withLock { $0 } >= EventChannel.limit ? delegateQueue : nil)
    }

    func deliver(_ event: LocationEvent) {
        let listeners = self.listeners.withLock { $0 }
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
        case .region(let event):
            delegate?.locationManager(self, didReceiveRegionEvent: event)
            listeners.onRegionEvent?(event)
        case .stopped(let reason):
            delegate?.locationManager(self, didStopWith: reason)
            listeners.onStop?(reason)
        }
    }
}
