import Synchronization

/// Something a source started and `stop()` must be able to end.
protocol StoppableRun: AnyObject, Sendable {
    func stop()
}

/// The runs a source has going, so `LocationSource.stop()` can end every stream it handed out.
/// Each `events()` call is an independent run (its own file read, its own connection); a finished
/// run removes itself so the set doesn't grow.
final class SourceRuns: Sendable {
    private let runs = Mutex<[ObjectIdentifier: any StoppableRun]>([:])

    init() {}

    func insert(_ run: any StoppableRun) {
        runs.withLock { $0[ObjectIdentifier(run)] = run }
    }

    func remove(_ run: any StoppableRun) {
        _ = runs.withLock { $0.removeValue(forKey: ObjectIdentifier(run)) }
    }

    /// Stops every run started so far. Runs are stopped outside the lock: a run's stop may call `remove`.
    func stopAll() {
        let current = runs.withLock { runs -> [any StoppableRun] in
            defer { runs.removeAll() }
            return Array(runs.values)
        }
        for run in current { run.stop() }
    }
}
