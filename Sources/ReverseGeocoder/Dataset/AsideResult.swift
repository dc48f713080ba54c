import Foundation
import Synchronization

/// A throwing computation run on a thread of its own (not a Dispatch queue: its caller blocks on the
/// result from inside `concurrentPerform`, and a queue's threads may all be such callers).
final class AsideResult<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let r = Result { try body() }
            result.withLock { $0 = r }
            done.signal()
        }
        thread.start()
    }

    /// Waits for the computation and returns what it returned or throws what it threw.
    func value() throws -> T {
        done.wait()
        done.signal()  // a second call returns at once
        return try result.withLock { $0! }.get()
    }
}
