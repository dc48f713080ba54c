import CHotPath
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Hands each thread its own ``QueryContext`` (through a pthread key) and owns them all, so they are
/// freed with the geocoder. A thread that ends leaves its context here until then: pool threads are few
/// and reused, so this stays bounded by the number of threads that ever queried.
final class ContextRegistry: @unchecked Sendable {
    // @unchecked: `key` is immutable after init and pthread keys are thread-safe by design; `all` is a
    // Mutex. (The contexts themselves are not Sendable: each is used only by the thread it was made for.)
    // A `let`: a `var` read on every query would pay Swift's dynamic exclusivity check (perf: 3 %).
    private let key: pthread_key_t
    /// Keeps every context alive; only touched when a thread makes its first query.
    private let all = Mutex<[Kept]>([])
    /// A context held only to keep it alive: the registry never uses it, its own thread does.
    private struct Kept: @unchecked Sendable { let context: QueryContext }
    private let partCount: Int, placemarkCount: Int, overlayCount: Int
    /// This registry's number in each thread's ``CHotPath`` slot, which remembers the context of the
    /// registry the thread queried last: a query reads it in two loads, where `pthread_getspecific` is a
    /// call (about 20 of a found point's 400 instructions). Numbers are never reused, so a slot left by a
    /// registry since freed can never match another.
    private let number: UInt64
    private static let lastNumber = Atomic<UInt64>(0)

    init(partCount: Int, placemarkCount: Int, overlayCount: Int = 0) {
        number = Self.lastNumber.add(1, ordering: .relaxed).newValue
        self.partCount = partCount
        self.placemarkCount = placemarkCount
        self.overlayCount = overlayCount
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
    func currentUnmanaged() throws(GEOSError) -> Unmanaged<QueryContext> {
        if let raw = hot_path_thread_value(number) { return Unmanaged<QueryContext>.fromOpaque(raw) }
        return try fromKey()
    }

    /// The thread's context when its slot holds another registry's (or none): from the pthread key,
    /// which holds this registry's context for every thread that has one, else a new one. Out of line:
    /// a thread that queries one geocoder comes here once.
    @inline(never)
    private func fromKey() throws(GEOSError) -> Unmanaged<QueryContext> {
        let context: Unmanaged<QueryContext>
        if let raw = pthread_getspecific(key) { context = Unmanaged<QueryContext>.fromOpaque(raw) } else { context = try makeCurrent() }
        hot_path_set_thread_value(number, context.toOpaque())
        return context
    }

    /// The calling thread's context, created on first use.
    @inline(__always)
    func current() throws(GEOSError) -> QueryContext {
        try currentUnmanaged().takeUnretainedValue()
    }

    /// A new context for the calling thread (its first query). Fails when GEOS cannot make a context;
    /// nothing is registered then, so the thread's next query tries again.
    @inline(never)
    private func makeCurrent() throws(GEOSError) -> Unmanaged<QueryContext> {
        let context = try QueryContext(partCount: partCount, placemarkCount: placemarkCount, overlayCount: overlayCount)
        let kept = Kept(context: context)
        all.withLock { $0.append(kept) }
        let unmanaged = Unmanaged.passUnretained(context)
        pthread_setspecific(key, unmanaged.toOpaque())
        return unmanaged
    }
}
