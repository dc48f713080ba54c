import GeoModel

/// A worker's own cache of the added columns of each placemark it has written, already encoded in the
/// output format: a row then costs one copy of these bytes instead of a `String` and an escape per field.
///
/// Keyed by the placemark's identity (its storage object): the engine answers each thread with that
/// thread's own copy of a unit's placemark, so every row in one unit hits the same entry. An entry keeps
/// its placemark alive, so no other placemark can take its identity while it is cached. Two-way
/// set-associative (a new placemark evicts the older of its set's two) and bounded: memory stays flat
/// whatever the input. Sized for the world job: with the time zones and localities, 1 M uniform points
/// meet tens of thousands of distinct placemarks (one per unit, zone and locality combination), and a
/// miss costs some 4,000 instructions (callgrind: a 16 k direct-mapped table missed on 9 % of the rows
/// of 200 k, 380 instructions a row on average).
/// Owned by one worker thread (never shared, so no lock and no shared reference count).
struct PlacemarkBytesCache {
    private static let setBits = 15
    private static let slots = 2 << setBits   // two entries per set: ~3 MB of tables per worker
    /// Bytes held at most; past this the cache starts over.
    private static let arenaLimit = 16 << 20

    private var identities: [ObjectIdentifier?]
    private var placemarks: [Placemark?]
    private var ranges: [Range<Int>]
    private var arena: [UInt8] = []
    /// Where the bytes for "no placemark" (every field empty or null) are: the arena's start.
    private let none: Range<Int>
    private let encode: @Sendable (Placemark?, inout [UInt8]) -> Void
    /// Whether the columns show a distance: a placemark with a per-query distance (a nearest-place
    /// locality) is then encoded for its row, since its storage's identity does not say its distance.
    private let showsDistance: Bool

    init(showsDistance: Bool = false, encode: @escaping @Sendable (Placemark?, inout [UInt8]) -> Void) {
        self.showsDistance = showsDistance
        identities = Array(repeating: nil, count: Self.slots)
        placemarks = Array(repeating: nil, count: Self.slots)
        ranges = Array(repeating: 0..<0, count: Self.slots)
        arena.reserveCapacity(64 << 10)
        encode(nil, &arena)
        none = 0..<arena.count
        self.encode = encode
    }

    /// Appends the encoded columns of `placemark` (nil: no placemark) to `out`.
    @inline(__always)
    mutating func append(_ placemark: Placemark?, to out: inout [UInt8]) {
        guard let placemark else {
            let none = self.none
            arena.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[none])) }
            return
        }
        if showsDistance && placemark.hasQueryDistance {
            encode(placemark, &out)
            return
        }
        let identity = placemark.storageIdentity
        // The object's address, spread over the sets (Fibonacci hashing: allocations are 16-byte aligned).
        let set = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: identity)) &* 0x9E37_79B9_7F4A_7C15) >> (64 - Self.setBits))
        var slot = set << 1
        if identities[slot] != identity {
            if identities[slot | 1] == identity {
                slot |= 1
            } else {
                // A miss: the newest entry goes first, the one it displaces second, the older one out.
                if arena.count > Self.arenaLimit { clear() }
                identities[slot | 1] = identities[slot]
                placemarks[slot | 1] = placemarks[slot]
                ranges[slot | 1] = ranges[slot]
                let start = arena.count
                encode(placemark, &arena)
                identities[slot] = identity
                placemarks[slot] = placemark
                ranges[slot] = start..<arena.count
            }
        }
        let range = ranges[slot]
        arena.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    private mutating func clear() {
        for i in 0..<Self.slots {
            identities[i] = nil
            placemarks[i] = nil
        }
        arena.removeSubrange(none.upperBound...)
    }
}
