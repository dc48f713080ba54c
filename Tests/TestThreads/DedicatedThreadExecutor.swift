import Foundation

/// A task executor with one thread of its own: the jobs of a task that prefers it
/// (`withTaskExecutorPreference`) run there, off Swift's cooperative pool, but still *inside* that task.
///
/// That is the point of it for tests. Swift Testing finds the test an issue belongs to through task-local
/// values (the current test, its configuration); a plain `Thread` inherits none of them, so an `#expect`
/// failing on one was recorded for "«unknown»" and its test still showed ✔. A job run here is the
/// task's own, so its task-locals come with it.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `isShutDown` are guarded by `condition` (hence `@unchecked Sendable`).
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isShutDown = false

    /// The key of the mark each executor's thread carries in its thread dictionary.
    private static let threadMark = "DedicatedThreadExecutor"

    /// Whether the caller runs on the thread of some `DedicatedThreadExecutor`, for tests of its users.
    /// (A thread name cannot tell: on Linux, `Thread.current.name` there read its creator's name.)
    public static var isCurrentThreadOne: Bool { Thread.current.threadDictionary[threadMark] != nil }

    /// Starts the thread, with `stackSize` bytes of stack.
    public init(stackSize: Int) {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[Self.threadMark] = true
            runJobs()
        }
        thread.stackSize = stackSize
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        // A job after shutDown() would never run and its task would hang: fail loudly instead.
        precondition(!isShutDown, "DedicatedThreadExecutor: a job arrived after shutDown()")
        jobs.append(job)
        condition.signal()
    }

    /// Lets the thread end once the jobs it has are done. Call it when no task prefers this executor
    /// any more (after `withTaskExecutorPreference` returns).
    public func shutDown() {
        condition.lock()
        isShutDown = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isShutDown { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
