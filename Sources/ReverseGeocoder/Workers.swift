#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The engine's parallel loops and background builds, on threads of its own rather than Dispatch's.
///
/// Why not `DispatchQueue.concurrentPerform` and `DispatchQueue.global().async`: when a new thread's
/// stack cannot be mapped (a process under `ulimit -v`, the bound issue 19's memory checks are tested
/// with), libdispatch retries `pthread_create` forever (`_dispatch_temporary_resource_shortage`, a
/// second's sleep a try), and the caller waits with it: `geocode 39.9087 116.3975` under
/// `ulimit -v 212500` hung in `CacheVerifier.verifyAll` instead of answering or failing. Here a thread
/// that cannot be made is simply not made: a loop's iterations are done by the threads that exist (the
/// caller at least), and a background build is left to whoever first needs it (each such build is a lazy
/// value that its reader builds when it is not there yet).
enum Workers {
    /// The cores this process may run on, read once.
    static let cores = max(1, ReverseGeocoder.usableCores())

    /// Threads `perform` has started that are still running. A loop inside a loop (each dataset's
    /// layers read side by side, each layer's tree built by workers) takes only the cores left, as
    /// Dispatch's narrower nested `concurrentPerform` did, instead of cores × cores threads.
    private static let running = Atomic<Int>(0)

    /// Calls `body(i)` once for each i in 0 ..< `iterations`, on up to `threads` threads (the caller's
    /// among them, and no more extra threads than there are idle cores), and returns when every call has
    /// returned. The order of the calls is not defined.
    static func perform(iterations: Int, threads: Int = cores, _ body: (Int) -> Void) {
        let extra = iterations > 1 && threads > 1 ? reserve(min(threads, iterations) - 1) : 0
        guard extra > 0 else {
            for i in 0..<max(0, iterations) { body(i) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let loop = Loop(iterations: iterations, body: body)
            var started: [pthread_t] = []
            for _ in 0..<extra {
                guard let thread = start(loop) else { break }  // no thread: the others do its share
                started.append(thread)
            }
            loop.run()
            for thread in started { pthread_join(thread, nil) }
        }
        running.subtract(extra, ordering: .releasing)
    }

    /// Up to `wanted` of the idle cores, counted as running.
    private static func reserve(_ wanted: Int) -> Int {
        var current = running.load(ordering: .relaxed)
        while true {
            let k = max(0, min(wanted, cores - 1 - current))
            if k == 0 { return 0 }
            let (done, now) = running.compareExchange(expected: current, desired: current + k, ordering: .acquiringAndReleasing)
            if done { return k }
            current = now
        }
    }

    /// Runs `work` on a new thread of its own, and returns whether one could be made. The work must not
    /// be needed for correctness: when no thread can be made it does not run.
    @discardableResult
    static func background(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard let thread = start(Task(work)) else { return false }
        pthread_detach(thread)
        return true
    }

    /// Something a started thread runs once.
    private class Runnable: @unchecked Sendable {
        func run() {}
    }

    /// One loop's iterations, handed out one at a time to whichever thread asks next.
    private final class Loop: Runnable, @unchecked Sendable {
        let iterations: Int
        let body: (Int) -> Void
        let next = Atomic<Int>(0)

        init(iterations: Int, body: @escaping (Int) -> Void) {
            self.iterations = iterations
            self.body = body
        }

        override func run() {
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < iterations else { return }
                body(i)
            }
        }
    }

    private final class Task: Runnable, @unchecked Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
        override func run() { work() }
    }

    /// A new thread running `r.run()`, or nil when the system cannot make one (its stack not mapped:
    /// EAGAIN/ENOMEM).
    private static func start(_ r: Runnable) -> pthread_t? {
        let context = Unmanaged.passRetained(r).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, nil, { raw in
            let r = Unmanaged<Runnable>.fromOpaque(raw!).takeRetainedValue()
            r.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Runnable>.fromOpaque(context).release()
            return nil
        }
        #if canImport(Glibc)
        return thread
        #else
        return thread!
        #endif
    }
}
