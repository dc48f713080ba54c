import Synchronization

/// One `locate()` call: resumed exactly once, by the request's outcome or by cancellation, whichever
/// comes first.
final class LocateWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<LocationManager.Fix, LocationError>, Never>?
        var outcome: Result<LocationManager.Fix, LocationError>?
    }
    private let state = Mutex(State())

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
