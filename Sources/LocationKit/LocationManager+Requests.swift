import Dispatch
import Foundation
import LocationSources
import GeoModel

// One-shot requests: `requestLocation()`, `locate()`, and their timeout on the manager's clock.
extension LocationManager {
    struct Request {
        let id: UInt64
        let timer: any ClockTimer
        var lastSourceError: LocationError?
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
        let waiter = LocateWaiter()
        let result: Result<Fix, LocationError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.register(continuation) else { return }
                queue.async {
                    self.waiters.append(waiter)
                    self.startRequest()
                    self.wakeLocateWatchers()
                }
            }
        } onCancel: {
            waiter.resume(.failure(.cancelled))
        }
        return try result.get()
    }

    /// Returns once at least `count` `locate()` calls wait for the pending request: a test knows its
    /// calls are registered without polling for it.
    func waitForPendingLocates(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                if self.waiters.count >= count {
                    continuation.resume()
                } else {
                    self.locateWatchers.append((count, continuation))
                }
            }
        }
    }

    // MARK: - On the work queue

    func startRequest() {
        dispatchPrecondition(condition: .onQueue(queue))
        if request == nil {
            let id = nextID()
            let timeout = Duration(timeInterval: settings.withLock { $0.requestTimeout })
            let timer = clock.schedule(after: timeout, on: queue) { [weak self] in self?.requestTimedOut(id) }
            request = Request(id: id, timer: timer)
        }
        if run == nil { beginRun(continuous: false) }
    }

    func requestTimedOut(_ id: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let pending = request, pending.id == id else { return }
        let failure = failRequest(pending)
        if run?.keepsRunning == false { endRun(.requestFailed) }
        resolveWaiters(.failure(failure))
    }

    /// Ends the pending request with `.locationUnknown` for listeners; returns what `locate()` throws.
    func failRequest(_ pending: Request) -> LocationError {
        pending.timer.cancel()
        request = nil
        emit(.error(.locationUnknown))
        return pending.lastSourceError ?? .locationUnknown
    }

    func wakeLocateWatchers() {
        let ready = locateWatchers.filter { $0.count <= waiters.count }
        locateWatchers.removeAll { $0.count <= waiters.count }
        for watcher in ready { watcher.continuation.resume() }
    }

    func resolveWaiters(_ result: Result<Fix, LocationError>) {
        let resolving = waiters
        waiters = []
        for waiter in resolving { waiter.resume(result) }
    }
}
