
// The significant-change service's switches (its rule is SignificantChangeFilter).
extension LocationManager {
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
}
