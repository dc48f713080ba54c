/// One thread's placemarks that combine an admin unit with overlay units (the time zone of a province,
/// say), each made on first use and returned from here afterwards: a query that lands where it landed
/// before pays a hash probe, no allocation and no reference count shared with another thread.
///
/// A key is one 32-bit slot per source: the admin unit's placemark slot (-1: none, a point at sea), then
/// each overlay dataset's unit slot (-1: that overlay has none here). Open addressing with linear
/// probing at most half full; the table doubles when it fills (allocation then, amortised and rare:
/// combinations are few, since a unit overlaps only the zones near it).
///
/// Each entry also keeps a flag word of the combination (``flag(of:)``): nonzero where the admin unit's
/// country is not the time zone's, so that the query path learns it with the placemark, on the same
/// cache line, instead of comparing countries on every query (see `ReverseGeocoder.withOverlays`).
///
/// Raw memory, not arrays: mutable arrays in a class pay Swift's dynamic exclusivity checks on the
/// query path (see ``QueryContext``). Used only by the thread that owns the context.
final class CombinedPlacemarks {
    /// Entries in one block of raw memory, each its key's slots, its flag, then its placemark: the probe that
    /// matches a key finds the value on the same cache line (keys and values in two arrays cost a second
    /// cache miss a query once the table outgrows the caches).
    private struct Table {
        var entries: UnsafeMutableRawPointer
        var capacity: Int
        var count: Int
    }

    /// Slots per key: 1 + the number of overlay datasets.
    let width: Int
    /// Bytes from an entry's start to its placemark (the key's slots and the flag, rounded up to the
    /// value's alignment).
    private let valueOffset: Int
    /// Bytes per entry.
    private let stride: Int
    /// The key of the query in progress, filled by the query path before ``find()``.
    nonisolated(unsafe) let key: UnsafeMutablePointer<Int32>
    nonisolated(unsafe) private let table: UnsafeMutablePointer<Table>
    /// In an unused entry's first slot (slots are >= -1).
    private static let unused = Int32.min
    private static var alignment: Int { max(MemoryLayout<Placemark?>.alignment, MemoryLayout<Int32>.alignment) }

    init(overlays: Int) {
        width = 1 + overlays
        let align = MemoryLayout<Placemark?>.alignment
        valueOffset = ((width + 1) * MemoryLayout<Int32>.stride + align - 1) / align * align
        let size = valueOffset + MemoryLayout<Placemark?>.size
        stride = (size + Self.alignment - 1) / Self.alignment * Self.alignment
        key = .allocate(capacity: width)
        key.initialize(repeating: -1, count: width)
        table = .allocate(capacity: 1)
        table.initialize(to: empty(capacity: 64))
    }

    deinit {
        free(table.pointee)
        table.deallocate()
        key.deallocate()
    }

    @inline(__always)
    private func keyOf(_ t: Table, _ i: Int) -> UnsafeMutablePointer<Int32> {
        (t.entries + i * stride).assumingMemoryBound(to: Int32.self)
    }

    @inline(__always)
    private func valueOf(_ t: Table, _ i: Int) -> UnsafeMutablePointer<Placemark?> {
        (t.entries + i * stride + valueOffset).assumingMemoryBound(to: Placemark?.self)
    }

    private func empty(capacity: Int) -> Table {
        let entries = UnsafeMutableRawPointer.allocate(byteCount: capacity * stride, alignment: Self.alignment)
        let t = Table(entries: entries, capacity: capacity, count: 0)
        for i in 0..<capacity {
            (entries + i * stride).bindMemory(to: Int32.self, capacity: width + 1).initialize(repeating: Self.unused, count: width + 1)
            (entries + i * stride + valueOffset).bindMemory(to: Placemark?.self, capacity: 1).initialize(to: nil)
        }
        return t
    }

    private func free(_ t: Table) {
        for i in 0..<t.capacity { valueOf(t, i).deinitialize(count: 1) }
        t.entries.deallocate()
    }

    @inline(__always)
    private func hash(_ k: UnsafeMutablePointer<Int32>) -> Int {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<width { h = (h ^ UInt64(UInt32(bitPattern: k[i]))) &* 0xBF58_476D_1CE4_E5B9 }
        return Int(truncatingIfNeeded: h >> 32)
    }

    @inline(__always)
    private func matches(_ entry: UnsafeMutablePointer<Int32>, _ k: UnsafeMutablePointer<Int32>) -> Bool {
        for i in 0..<width where entry[i] != k[i] { return false }
        return true
    }

    /// The placemark stored for ``key``, if any.
    @inline(__always)
    func find() -> Placemark? {
        guard let entry = lookup() else { return nil }
        return value(of: entry)
    }

    /// The entry stored for ``key`` (its slots, for ``value(of:)`` and ``flag(of:)``), or nil. Valid until
    /// the next ``insert(_:flag:)``. The entry itself, not its index: reading its flag and placemark then
    /// takes neither the table again nor the index times the stride (callgrind, localities + time zones,
    /// `placemark(for:)` per query: 50 k uniform points 604.4 → 599.8, 50 k GeoNames places 514.5 → 510.5).
    @inline(__always)
    func lookup() -> UnsafeMutablePointer<Int32>? {
        let t = table.pointee
        let mask = t.capacity - 1
        var i = hash(key) & mask
        while true {
            let entry = keyOf(t, i)
            if entry[0] == Self.unused { return nil }
            if matches(entry, key) { return entry }
            i = (i + 1) & mask
        }
    }

    /// The placemark of an entry (from ``lookup()``).
    @inline(__always)
    func value(of entry: UnsafeMutablePointer<Int32>) -> Placemark? {
        (UnsafeMutableRawPointer(entry) + valueOffset).assumingMemoryBound(to: Placemark?.self).pointee
    }

    /// The flag stored with an entry (from ``lookup()``).
    @inline(__always)
    func flag(of entry: UnsafeMutablePointer<Int32>) -> Int32 { entry[width] }

    /// Stores `placemark` and `flag` under ``key`` (which ``lookup()`` did not have).
    @inline(never)
    func insert(_ placemark: Placemark, flag: Int32 = 0) {
        if 2 * (table.pointee.count + 1) > table.pointee.capacity { grow() }
        place(key, flag: flag, placemark, in: &table.pointee)
    }

    /// Entries stored (for tests).
    var count: Int { table.pointee.count }

    private func place(_ k: UnsafeMutablePointer<Int32>, flag: Int32, _ placemark: Placemark, in t: inout Table) {
        let mask = t.capacity - 1
        var i = hash(k) & mask
        while keyOf(t, i)[0] != Self.unused { i = (i + 1) & mask }
        keyOf(t, i).update(from: k, count: width)
        keyOf(t, i)[width] = flag
        valueOf(t, i).pointee = placemark
        t.count += 1
    }

    private func grow() {
        let old = table.pointee
        var new = empty(capacity: old.capacity * 2)
        for i in 0..<old.capacity where keyOf(old, i)[0] != Self.unused {
            place(keyOf(old, i), flag: keyOf(old, i)[width], valueOf(old, i).pointee!, in: &new)
        }
        free(old)
        table.pointee = new
    }
}
