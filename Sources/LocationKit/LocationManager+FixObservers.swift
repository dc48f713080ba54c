// Fix observers: how a RegionMonitor or PositionReporter attached to the manager gets each accepted
// fix with its placemark.
extension LocationManager {
    /// Calls `observe` with every accepted fix and its placemark, on the work queue, in order, right
    /// after its `.placemark` event; returns a token for ``removeFixObserver(_:)``. This is how a
    /// ``PositionReporter`` reuses the placemark the manager already resolved (no second engine call).
    /// `observe` must return quickly (hand the fix to a queue of its own) and must not call back into
    /// the manager synchronously.
    func addFixObserver(_ observe: @escaping @Sendable (Fix) -> Void) -> UInt64 {
        let id = nextID()
        fixObservers.withLock { $0.append((id, observe)) }
        return id
    }

    /// Calls `judge` with every accepted fix and its placemark, on the work queue, in order, after the
    /// fix's `.placemark` (and `.cityChanged`) events, and sends the region events it returns to this
    /// manager's listeners as ``LocationEvent/region(_:)`` before anything of the next fix: a
    /// ``RegionMonitor``'s events so come in causal order among the location events. Returns a token
    /// for ``removeFixObserver(_:)``. `judge` runs synchronously on the work queue (the region book's
    /// work is a few comparisons) and must not call back into the manager synchronously.
    func addRegionJudge(_ judge: @escaping @Sendable (Fix) -> [RegionEvent]) -> UInt64 {
        let id = nextID()
        regionJudges.withLock { $0.append((id, judge)) }
        return id
    }

    /// Stops calling the observer (or region judge) registered under `id`. A fix being handed over
    /// right now may still reach it.
    func removeFixObserver(_ id: UInt64) {
        fixObservers.withLock { $0.removeAll { $0.id == id } }
        regionJudges.withLock { $0.removeAll { $0.id == id } }
    }
}
