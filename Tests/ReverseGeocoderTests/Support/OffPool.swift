import Foundation

/// Runs CPU-heavy synchronous test work on a thread of its own, so it does not occupy Swift's
/// cooperative pool (2 threads on a 2-core machine) while other suites' async tests need it.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
