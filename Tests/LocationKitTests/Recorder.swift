import Synchronization

/// Values appended from any thread, and waits for a condition on them that wake on each append:
/// a test waits for the event itself, with no polling and no deadline.
final class Recorder<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiters: [(condition: @Sendable ([Value]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    init() {}

    var values: [Value] { state.withLock { $0.values } }

    func append(_ value: Value) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.values.append(value)
            let values = s.values
            var ready: [CheckedContinuation<Void, Never>] = []
            s.waiters.removeAll { waiter in
                guard waiter.condition(values) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `condition` holds for the values recorded so far.
    func wait(until condition: @escaping @Sendable ([Value]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if condition(s.values) { return true }
                s.waiters.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once at least `count` values are recorded.
    func wait(count: Int) async {
        await wait { $0.count >= count }
    }
}
