import Synchronization

/// Something a source started and `stop()` must be able to end.
protocol StoppableRun: AnyObject, Sendable {
    func stop()
}

/// The runs a source has going, so `LocationSource.stop()` can end every stream it handed out.
/// Each `events()` call is an independent run (its own file read, its own connection).
///
/// Runs are held weakly: a run lives as long as its stream (or thread) needs it, and a stream that
/// was dropped without being read must not stay here for the source's lifetime. A run that ends
/// removes itself as well.
final class SourceRuns: Sendable {
    private struct Entry {
        weak var run: (any StoppableRun)?
    }

    private let runs = Mutex<[ObjectIdentifier: Entry]>([:])

    init() {}

    func insert(_ run: any StoppableRun) {
        runs.withLock { runs in
            runs = runs.filter { $0.value.run != nil }
            runs[ObjectIdentifier(run)] = Entry(run: run)
        }
    }

    func remove(_ run: any StoppableRun) {
        _ = runs.withLock { $0.removeValue(forKey: ObjectIdentifier(run)) }
    }

    /// Runs still alive (for tests).
    var count: Int {
        runs.withLock { $0.values.filter { $0.run != nil }.count }
    }

    /// Stops every run started so far. Runs are stopped outside the lock: a run's stop calls `remove`.
    func stopAll() {
        let current = runs.withLock { runs -> [any StoppableRun] in
            defer { runs.removeAll() }
            return runs.values.compactMap(\.run)
        }
        for run in current { run.stop() }
    }
}
