import TestThreads

/// Runs CPU-heavy synchronous test work off Swift's cooperative pool, in the calling test's task
/// (``onOwnThread(stackSize:_:)``: a failing `#expect` inside is that test's), with 8 MB of stack.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await onOwnThread(stackSize: 8 << 20, work)
}
