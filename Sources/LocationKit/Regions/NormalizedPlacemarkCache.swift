import GeoModel

/// The ``NormalizedPlacemark`` of the last few placemarks a ``RegionBook`` judged, by placemark identity
/// (``Placemark/storageIdentity``, the storage object every copy of one placemark shares).
///
/// The engine hands out its thread's one copy of a unit's placemark for every point in the unit, so
/// consecutive fixes mostly bring the same placemark and the region rules need its names normalized
/// once, not on every fix. A few entries rather than one: a track along a border alternates between two
/// units' placemarks. Identity is the quick key, and it is a safe one:
/// - an entry holds its placemark, so no other placemark can be given that storage (and identity)
///   while the entry is cached;
/// - a placemark's storage never changes while another value shares it (it is copied on write), so a
///   changed placemark, such as one localized to another language (``Placemark/localized(to:)``), has
///   another identity.
///
/// A placemark of another identity may still be the same unit's: each engine thread has its own copy,
/// and a manager's fixes are looked up on whichever thread its queue runs on (in the test suite's
/// parallel runs, one fix in three came with another copy than the fix before). Such a placemark takes
/// the normalized names of an entry whose names and codes are exactly its own
/// (``NormalizedPlacemark/hasSameNamesAndCodes(as:)``), and an entry of its own; any other is
/// normalized afresh.
struct NormalizedPlacemarkCache {
    /// Entries kept at most; 0 normalizes every fix's placemark afresh (what the monitor did before).
    let capacity: Int
    /// Most recently used first.
    private var entries: [NormalizedPlacemark] = []
    /// Placemarks whose names were normalized (the misses, for the monitor's statistics).
    private(set) var namesNormalized = 0

    init(capacity: Int = 4) {
        self.capacity = max(0, capacity)
        entries.reserveCapacity(self.capacity)
    }

    /// `placemark` as the rules compare it, its names normalized when `names` (only areas recognised by
    /// name need them).
    mutating func normalized(_ placemark: Placemark, names: Bool) -> NormalizedPlacemark {
        let identity = placemark.storageIdentity
        guard let i = entries.firstIndex(where: { $0.placemark.storageIdentity == identity }) else {
            var entry: NormalizedPlacemark
            if let same = entries.first(where: { $0.hasSameNamesAndCodes(as: placemark) }) {
                entry = NormalizedPlacemark(placemark, sharing: same)
                if names && entry.names == nil {
                    entry.normalizeNames()
                    namesNormalized += 1
                }
            } else {
                entry = NormalizedPlacemark(placemark, names: names)
                if names { namesNormalized += 1 }
            }
            guard capacity > 0 else { return entry }
            if entries.count == capacity { entries.removeLast() }
            entries.insert(entry, at: 0)
            return entry
        }
        if i > 0 { entries.insert(entries.remove(at: i), at: 0) }
        if names && entries[0].names == nil {
            entries[0].normalizeNames()
            namesNormalized += 1
        }
        return entries[0]
    }

    /// Forgets every entry (and so releases their placemarks).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }
}
