import Dispatch
import Foundation
import LocationSources
import GeoModel

// Runs: starting and stopping updates, and feeding the source's events to the work queue one at a
// time.
extension LocationManager {
    struct Run {
        let id: UInt64
        let task: Task<Void, Never>
        /// Standard updates are on (``startUpdatingLocation()``).
        var continuous: Bool
        /// The significant-change service is on; its per-run state.
        var significant: SignificantChangeFilter?
        var sawValidFix = false
        var lastDelivered: Location?
        /// ``LocationWarning/unknownAccuracyDropped(desiredAccuracy:)`` was sent in this run.
        var warnedUnknownAccuracy = false

        /// False for a one-shot run, which ends with its request.
        var keepsRunning: Bool { continuous || significant != nil }
    }

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

    // MARK: - On the work queue

    func beginRun(continuous: Bool) {
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
                // The wait holds no reference to the manager: releasing it while a listener is behind
                // still ends the run (deinit finishes the streams, which lets the wait go).
                guard let backlog = await self?.handOff(event, run: id) else { return }
                await backlog.wait()
            }
            guard let self else { return }
            self.queue.async { self.sourceFinished(run: id) }
        }
        run = Run(id: id, task: task, continuous: continuous)
        snapshot.withLock { $0.isUpdating = true }
    }

    func endRun(_ reason: StopReason) {
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
    /// buffer (not an unbounded queue) absorbs a burst. Returns the listeners that are behind, for the
    /// run's task to wait on.
    func handOff(_ event: LocationSourceEvent, run id: UInt64) async -> Backlog {
        await withCheckedContinuation { (done: CheckedContinuation<Backlog, Never>) in
            queue.async {
                self.handle(event, run: id)
                done.resume(returning: self.backlog())
            }
        }
    }

    func handle(_ event: LocationSourceEvent, run id: UInt64) {
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

    func sourceFinished(run id: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard run?.id == id else { return }
        let failure = request.map(failRequest)
        endRun(.sourceFinished)
        if let failure { resolveWaiters(.failure(failure)) }
    }
}
