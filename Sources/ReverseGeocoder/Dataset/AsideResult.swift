import Foundation
import Synchronization

/// A throwing computation run on a thread of its own (not a Dispatch queue: its caller blocks on the
/// result from inside a parallel loop, and a queue's threads may all be such callers). When no thread can
/// be made (``Workers``), it runs here, before `init` returns.
final class AsideResult<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        let job: @Sendable () -> Void = { [self] in
            let r = Result { try body() }
            result.withLock { $0 = r }
            done.signal()
        }
        if !Workers.background(job) { job() }
    }

    /// Waits for the computation and returns what it returned or throws what it threw.
    func value() throws -> T {
        done.wait()
        done.signal()  // a second call returns at once
        return try result.withLock { $0! }.get()
    }
}
