/// Everything one thread needs to query: its own GEOS context, its own prepared geometries (built lazily,
/// never shared: GEOS builds their indexes on first use without locking), its own copies of the
/// placemarks it answers with, reusable query points, and scratch buffers. Owned by the geocoder's
/// ``ContextRegistry``; used only by the thread it belongs to.
final class QueryContext {
    let geos: GEOSContext
    /// Raw memory, not an array: an array in a class `var` pays Swift's dynamic exclusivity check on each
    /// access, and the compiler hoisted that check into every border-cell query.
    nonisolated(unsafe) private let preparedCache: UnsafeMutablePointer<PreparedGeometry?>
    private let partCount: Int
    var candidates: [Int32] = []
    var keyed: [Int] = []
    /// The coast fallback's search frontier, reused query after query (``NearestUnit``).
    var nearestHeap = MinHeap()
    /// Where ``CellIndex/warm(_:)``'s folded loads are stored, so the compiler keeps them. Raw memory
    /// for the same reason as `preparedCache`; nothing reads it.
    nonisolated(unsafe) let sink: UnsafeMutablePointer<UInt64>
    /// The query point for the GEOS predicates, and its +360° twin (for units stored east of 180°).
    let point: QueryPoint, twin: QueryPoint

    /// This thread's own copy of each placemark it has returned (slot: the layer's placemark base + unit),
    /// made on first use. Returning a placemark retains its storage object; were the threads to share
    /// the objects, every answer would write to a cache line the other threads also write, and two
    /// threads answering points of one city ran slower than one (CPU per point 34 -> 118 ns).
    nonisolated(unsafe) private let placemarks: UnsafeMutablePointer<Placemark?>
    private let placemarkCount: Int
    /// This thread's placemarks combining an admin unit with overlay units (the time zone).
    let combined: CombinedPlacemarks
    /// This thread's answer for each ``FarAnswers`` combination (by its entry, 1 ... 254), the same
    /// placemark `combined` holds for it, found without a hash probe: a far point's answer then reads only
    /// lines a far point read just before (the probe's line of a table that land points fill was a miss).
    nonisolated(unsafe) let farPlacemarks: UnsafeMutablePointer<Placemark?>
    static let farPlacemarkCount = FarAnswers.maxCombinations + 1
    /// This thread's completed answers (the manifest's `completedBelow`: Taiwan's province with a GeoNames
    /// place's city), by the answer's own placemark and the lower unit's slot, made on first use: a query
    /// that lands where it landed before gets the same placemark (no allocation; a batch's encoded
    /// columns are found again by its identity), with its own nearest-place distance. Few: one per
    /// listed unit, lower unit and overlay combination. Off the common query path.
    var completed: [CompletedKey: Placemark] = [:]
    struct CompletedKey: Hashable {
        var own: ObjectIdentifier
        var lower: Int
    }

    /// Fails only when GEOS cannot make a context (out of memory).
    init(partCount: Int, placemarkCount: Int = 0, overlayCount: Int = 0) throws(GEOSError) {
        combined = CombinedPlacemarks(overlays: overlayCount)
        farPlacemarks = .allocate(capacity: Self.farPlacemarkCount)
        farPlacemarks.initialize(repeating: nil, count: Self.farPlacemarkCount)
        geos = try GEOSContext()
        point = QueryPoint(context: geos)
        twin = QueryPoint(context: geos)
        self.partCount = partCount
        preparedCache = .allocate(capacity: max(1, partCount))
        preparedCache.initialize(repeating: nil, count: partCount)
        self.placemarkCount = placemarkCount
        placemarks = .allocate(capacity: max(1, placemarkCount))
        placemarks.initialize(repeating: nil, count: placemarkCount)
        sink = .allocate(capacity: 1)
        sink.initialize(to: 0)
    }

    deinit {
        farPlacemarks.deinitialize(count: Self.farPlacemarkCount)
        farPlacemarks.deallocate()
        sink.deallocate()
        placemarks.deinitialize(count: placemarkCount)
        placemarks.deallocate()
        preparedCache.deinitialize(count: partCount)
        preparedCache.deallocate()
    }

    /// The prepared geometry in `slot`, made on first use from the geometry `make` builds with this
    /// thread's context.
    @inline(__always)
    func prepared(_ slot: Int, _ make: (GEOSContext) throws(GEOSError) -> Geometry) throws(GEOSError) -> PreparedGeometry {
        if let p = preparedCache[slot] { return p }
        let p = try PreparedGeometry(make(geos), context: geos)
        preparedCache[slot] = p
        return p
    }

    /// This thread's copy of the placemark in `slot`, copied from `shared` on first use.
    @inline(__always)
    func placemark(_ slot: Int, _ shared: () -> Placemark) -> Placemark {
        if let own = placemarks[slot] { return own }
        return adopt(shared(), slot: slot)
    }

    @inline(never)
    private func adopt(_ shared: Placemark, slot: Int) -> Placemark {
        let own = shared.unshared()
        placemarks[slot] = own
        return own
    }
}
