/// One thread's placemarks that combine an admin unit with overlay units (the time zone of a province,
/// say), each made on first use and returned from here afterwards: a query that lands where it landed
/// before pays a hash probe, no allocation and no reference count shared with another thread.
///
/// A key is one 32-bit slot per source: the admin unit's placemark slot (-1: none, a point at sea), then
/// each overlay dataset's unit slot (-1: that overlay has none here). Open addressing with linear
/// probing at most half full; the table doubles when it fills (allocation then, amortised and rare:
/// combinations are few, since a unit overlaps only the zones near it).
///
/// Raw memory, not arrays: mutable arrays in a class pay Swift's dynamic exclusivity checks on the
/// query path (see ``QueryContext``). Used only by the thread that owns the context.
final class CombinedPlacemarks {
    private struct Table {
        var keys: UnsafeMutablePointer<Int32>
        var values: UnsafeMutablePointer<Placemark?>
        var capacity: Int
        var count: Int
    }

    /// Slots per key: 1 + the number of overlay datasets.
    let width: Int
    /// The key of the query in progress, filled by the query path before ``find()``.
    nonisolated(unsafe) let key: UnsafeMutablePointer<Int32>
    nonisolated(unsafe) private let table: UnsafeMutablePointer<Table>
    /// In `keys[i * width]` of an unused entry (slots are >= -1).
    private static let unused = Int32.min

    init(overlays: Int) {
        width = 1 + overlays
        key = .allocate(capacity: width)
        key.initialize(repeating: -1, count: width)
        table = .allocate(capacity: 1)
        table.initialize(to: Self.empty(capacity: 64, width: width))
    }

    deinit {
        Self.free(table.pointee, width: width)
        table.deallocate()
        key.deallocate()
    }

    private static func empty(capacity: Int, width: Int) -> Table {
        let keys = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * width)
        keys.initialize(repeating: unused, count: capacity * width)
        let values = UnsafeMutablePointer<Placemark?>.allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
        return Table(keys: keys, values: values, capacity: capacity, count: 0)
    }

    private static func free(_ t: Table, width: Int) {
        t.values.deinitialize(count: t.capacity)
        t.values.deallocate()
        t.keys.deallocate()
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
        let t = table.pointee
        let mask = t.capacity - 1
        var i = hash(key) & mask
        while true {
            let entry = t.keys + i * width
            if entry[0] == Self.unused { return nil }
            if matches(entry, key) { return t.values[i] }
            i = (i + 1) & mask
        }
    }

    /// Stores `placemark` under ``key`` (which ``find()`` did not have).
    @inline(never)
    func insert(_ placemark: Placemark) {
        if 2 * (table.pointee.count + 1) > table.pointee.capacity { grow() }
        place(key, placemark, in: &table.pointee)
    }

    /// Entries stored (for tests).
    var count: Int { table.pointee.count }

    private func place(_ k: UnsafeMutablePointer<Int32>, _ placemark: Placemark, in t: inout Table) {
        let mask = t.capacity - 1
        var i = hash(k) & mask
        while t.keys[i * width] != Self.unused { i = (i + 1) & mask }
        (t.keys + i * width).update(from: k, count: width)
        t.values[i] = placemark
        t.count += 1
    }

    private func grow() {
        let old = table.pointee
        var new = Self.empty(capacity: old.capacity * 2, width: width)
        for i in 0..<old.capacity where old.keys[i * width] != Self.unused {
            place(old.keys + i * width, old.values[i]!, in: &new)
        }
        Self.free(old, width: width)
        table.pointee = new
    }
}
