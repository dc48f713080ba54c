#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Memory for an index build's large arrays (the edges, the level frames, the tree, the crossing lists),
/// in 2 MB pages where the kernel gives them.
///
/// Why: building the bundled China districts (1 M vertices) writes some 450 MB of fresh memory in 4 KB
/// pages: 113,000 page faults and a third of a second of system time (perf, session 13). glibc's malloc asks for no huge pages (Debian's kernel gives them only where
/// `madvise` asks: `transparent_hugepage/enabled` is `madvise`), and a library cannot set the
/// `glibc.malloc.hugetlb` tunable, which is read at exec. So the arrays that matter are mapped here,
/// advised, and unmapped by their owner: with the tunable the same build took 7,900 faults and 12 % less
/// CPU (Benchmarks/results/build-speed.md, session 13).
///
/// Small requests, and any the kernel refuses (an address-space limit), come from malloc, 64-byte
/// aligned either way (a two-level node of ``CellIndex`` is then one cache line). Which of the two a
/// buffer came from follows from its size, and for the rare refused mapping from a recorded set of
/// addresses, so ``free(_:)`` needs nothing but the buffer as ``allocate(_:count:)`` returned it.
///
/// A freed mapping is kept as a spare (``SpareMappings``, 256 MB in all at most) for the next
/// allocation it fits, until ``releaseSpares()``: a build frees its edges and frames just before it
/// allocates the crossing lists and the records, and fresh pages cost a fault and the kernel's clearing
/// of every byte (clear_page was 3–14 % of a build's CPU, perf, session 18). So memory from here is
/// never promised zeroed; every caller writes what it reads.
enum LargeAllocation {
    /// From this size on, a mapping of its own: a huge page is 2 MB, and below that malloc's heap reuses
    /// freed memory without a fault.
    static let mappedFrom = 4 << 20
    static let hugePage = 2 << 20

    /// Large buffers malloc served because the kernel refused a mapping (rare: an address-space limit),
    /// so ``free(_:)`` hands them back to malloc.
    private static let fromMalloc = Mutex<Set<Int>>([])

    /// Freed mappings not yet returned to the kernel: about what one large layer's build frees between
    /// its phases at most.
    private static let spares = Mutex(SpareMappings(limit: 256 << 20))

    /// Uninitialized room for `count` elements (at least one is allocated, so the base is never nil).
    static func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutableBufferPointer<T> {
        let bytes = max(1, count) * MemoryLayout<T>.stride
        precondition(MemoryLayout<T>.alignment <= 64)
        let length = mappedLength(bytes)
        if let length, let p = takeSpare(length) {
            return UnsafeMutableBufferPointer(start: p.bindMemory(to: T.self, capacity: max(1, count)), count: count)
        }
        if let length, let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED {
            // Zeroed and untouched: the pages are faulted in, 2 MB at a time, as the build writes them.
            _ = madvise(p, length, MADV_HUGEPAGE)
            return UnsafeMutableBufferPointer(start: p.bindMemory(to: T.self, capacity: max(1, count)), count: count)
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        if length != nil { fromMalloc.withLock { _ = $0.insert(Int(bitPattern: p)) } }
        return UnsafeMutableBufferPointer(start: p.bindMemory(to: T.self, capacity: max(1, count)), count: count)
    }

    /// Frees a buffer from ``allocate(_:count:)``, with the count it was allocated with.
    static func free<T>(_ buffer: UnsafeMutableBufferPointer<T>) {
        guard let base = buffer.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        if let length = mappedLength(max(1, buffer.count) * MemoryLayout<T>.stride),
           fromMalloc.withLock({ $0.remove(Int(bitPattern: raw)) == nil }) {
            if !spares.withLock({ $0.keep(address: Int(bitPattern: raw), length: length) }) { munmap(raw, length) }
        } else {
            raw.deallocate()
        }
    }

    static func free<T>(_ buffer: UnsafeBufferPointer<T>) { free(UnsafeMutableBufferPointer(mutating: buffer)) }

    /// Returns the spare mappings to the kernel: called when a dataset's build is done (its layers reuse
    /// each other's) and after a whole load (a dataset read back from its cache frees its build for the
    /// next one's), so a process does not hold memory it no longer uses.
    static func releaseSpares() {
        for spare in spares.withLock({ $0.drain() }) { munmap(UnsafeMutableRawPointer(bitPattern: spare.address), spare.length) }
    }

    /// `length` bytes of spare memory, if a spare holds that many.
    private static func takeSpare(_ length: Int) -> UnsafeMutableRawPointer? {
        spares.withLock { $0.take(length: length) }.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }

    /// The mapping's length for `bytes`: whole huge pages (the kernel puts a mapping of whole huge pages
    /// on a huge-page boundary, so all of it can be backed by them); nil below ``mappedFrom``.
    static func mappedLength(_ bytes: Int) -> Int? {
        bytes >= mappedFrom ? (bytes + hugePage - 1) / hugePage * hugePage : nil
    }
}
