/// Runs blocking or CPU-heavy synchronous test work on a thread of its own, so it does not occupy
/// Swift's cooperative pool (2 threads on a 2-core machine) while other suites' async tests need it.
///
/// The work runs in the calling test's task, on a ``DedicatedThreadExecutor`` the task prefers, not on a
/// bare `Thread`: an `#expect` failing inside it is then its test's failure (✘ on the test), where on a
/// bare thread Swift Testing, without the task's task-locals, recorded it for "«unknown»" and the test
/// showed ✔. (The operation, nonisolated and async, starts with a hop to the preferred executor.) Typed
/// throws, so work that cannot fail (`Never`) needs no `try` at the call.
public func onOwnThread<T: Sendable, Failure: Error>(stackSize: Int = 8 << 20,
                                                     _ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let executor = DedicatedThreadExecutor(stackSize: stackSize)
    defer { executor.shutDown() }
    return try await withTaskExecutorPreference(executor) { () async throws(Failure) -> T in
        try work()
    }
}
