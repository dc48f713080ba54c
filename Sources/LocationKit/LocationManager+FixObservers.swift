
// Fix observers: how a RegionMonitor or PositionReporter attached to the manager gets each accepted
// fix with its placemark.
extension LocationManager {
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
}
