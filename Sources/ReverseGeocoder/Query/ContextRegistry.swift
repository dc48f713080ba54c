import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Hands each thread its own ``QueryContext`` (through a pthread key) and owns them all, so they are
/// freed with the geocoder. A thread that ends leaves its context here until then: pool threads are few
/// and reused, so this stays bounded by the number of threads that ever queried.
final class ContextRegistry: @unchecked Sendable {
    // @unchecked: `key` is immutable after init and pthread keys are thread-safe by design; `all` is
    // only touched under `lock`.
    // A `let`: a `var` read on every query would pay Swift's dynamic exclusivity check (perf: 3 %).
    private let key: pthread_key_t
    private let lock = NSLock()
    private var all: [QueryContext] = []
    private let partCount: Int, placemarkCount: Int

    init(partCount: Int, placemarkCount: Int) {
        self.partCount = partCount
        self.placemarkCount = placemarkCount
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        self.key = key
        precondition(rc == 0, "pthread_key_create failed (\(rc)): too many geocoders alive at once")
    }

    deinit {
        pthread_key_delete(key)
    }

    /// The calling thread's context without taking a reference (the registry owns it): for the query
    /// path, which uses it inside `_withUnsafeGuaranteedRef` and so pays no reference counting.
    @inline(__always)
    func currentUnmanaged() -> Unmanaged<QueryContext> {
        if let raw = pthread_getspecific(key) { return Unmanaged<QueryContext>.fromOpaque(raw) }
        return Unmanaged.passUnretained(current())
    }

    /// The calling thread's context, created on first use.
    @inline(__always)
    func current() -> QueryContext {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<QueryContext>.fromOpaque(raw).takeUnretainedValue()
        }
        let context = QueryContext(partCount: partCount, placemarkCount: placemarkCount)
        lock.lock()
        all.append(context)
        lock.unlock()
        pthread_setspecific(key, Unmanaged.passUnretained(context).toOpaque())
        return context
    }
}
