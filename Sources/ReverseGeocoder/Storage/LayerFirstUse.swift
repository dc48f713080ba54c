import Synchronization

/// One layer of an index cache loaded for a few queries: its arrays are mapped but not yet checked, and
/// each query first proves what it is about to read (``CacheVerifier`` blocks, and the same structural
/// rules the full load checks: every index inside the array it indexes, tree pointers forward, rings
/// closed, coordinates in range), along the path the query will take. So a one-point start reads a few
/// blocks of a layer instead of all of it, and a flipped byte is still found before it is used.
///
/// The walk mirrors ``CellIndex/answer(x:y:)``, ``LayerIndex``'s crossing test and the GEOS fallback
/// step for step; whatever it cannot follow cheaply (the R-tree path, for layers without cells or a
/// point whose antimeridian twin also has candidates) it checks whole, once.
final class LayerFirstUse: Sendable {
    /// A section: its mapped elements and its place in the checksum table.
    struct Array<T>: @unchecked Sendable {
        let buffer: UnsafeBufferPointer<T>
        let region: CacheVerifier.Region
        var count: Int { buffer.count }
    }

    struct Arrays: Sendable {
        var vertices: Array<Double>, ringStart: Array<UInt32>, partRings: Array<UInt32>, envelopes: Array<Double>
        var partUnit: Array<Int32>, slots: Array<UInt32>, text: Array<UInt32>
        var nodes: Array<UInt32>?, mixedStart: Array<UInt32>?, top: Array<UInt32>?, borders: Array<UInt32>?
    }

    let arrays: Arrays
    let verifier: CacheVerifier
    let units: Int
    let name: String
    let dataset: String
    /// Placemarks decoded so far (each once; a thread keeps its own copy after, see QueryContext), and the
    /// names texts decoded for them: units share their country's and province's names (a hundred
    /// languages each), which a pool per placemark parsed again for every unit, 60× the cost of the
    /// load's decode of a whole layer (a region file's areas list every unit at start).
    private let decoded = Mutex<DecodedPlacemarks>(DecodedPlacemarks())

    struct DecodedPlacemarks {
        var placemarks: [Int: Placemark] = [:]
        var pool = PlacemarkSlots.NamesPool()
    }
    /// The polygons checked whole, and the R-tree over them (for the R-tree path).
    private let whole = Mutex<PackedRTree?>(nil)
    /// Whether the polygons' boxes, units and ring ranges are checked: what the coast fallback scans
    /// before it measures a polygon (each one checked then, ``preparePart(_:)``).
    private let boxesChecked = Mutex(false)
    /// Coast fallback searches of this layer so far (see ``noteNearestSearch()``).
    private let nearestSearches = Atomic<Int>(0)

    init(arrays: Arrays, verifier: CacheVerifier, units: Int, name: String, dataset: String) {
        self.arrays = arrays
        self.verifier = verifier
        self.units = units
        self.name = name
        self.dataset = dataset
    }

    typealias Damage = IndexCache.CacheDamage

    @inline(__always)
    private func check(_ ok: Bool, _ what: @autoclosure () -> String) throws(Damage) {
        if !ok { throw Damage(reason: "\(name): \(what())") }
    }

    @inline(__always)
    private func verify<T>(_ a: Array<T>, _ range: Range<Int>) throws(Damage) {
        try check(range.lowerBound >= 0 && range.upperBound <= a.count, "\(a.region.name) index out of bounds")
        try verifier.verify(a.region, T.self, range)
    }

    // MARK: - The query path

    /// Proves everything ``LayerIndex/locate(x:y:in:)`` reads for (x, y).
    func prepareLocate(x: Double, y: Double, cells: CellIndex?, wrapped: Bool) throws(Damage) {
        guard let cells else {
            try prepareTree()
            return
        }
        let here = try prepareAnswer(x: x, y: y, cells: cells)
        let twin: CellIndex.Answer = wrapped && x < 0 ? try prepareAnswer(x: x + 360, y: y, cells: cells) : .empty
        switch (here, twin) {
        case (.empty, .empty), (.unit, .empty), (.empty, .unit): return
        case (.candidates(let words), .empty): try prepareCrossing(x: x, y: y, words: words, cells: cells)
        case (.empty, .candidates(let words)): try prepareCrossing(x: x + 360, y: y, words: words, cells: cells)
        default: try prepareTree()  // undecided: the R-tree path
        }
    }

    /// The cell descent of ``CellIndex/answer(x:y:)``, each entry checked before it is read.
    private func prepareAnswer(x: Double, y: Double, cells c: CellIndex) throws(Damage) -> CellIndex.Answer {
        guard let top = arrays.top, let nodes = arrays.nodes, let mixedStart = arrays.mixedStart, let borders = arrays.borders else {
            throw Damage(reason: "\(name): cells missing")
        }
        let scale = Double(1 << c.depth) / c.size, cellCount = Double(1 << c.depth), lastCell = (1 << c.depth) - 1
        let fx = (x - c.originX) * scale, fy = (y - c.originY) * scale
        guard fx >= 0, fy >= 0, fx <= cellCount, fy <= cellCount else { return .empty }
        let ix = min(Int(fx), lastCell), iy = min(Int(fy), lastCell)
        let shift = c.depth - c.topLevels
        let t = ((iy >> shift) << c.topLevels) | (ix >> shift)
        try verify(top, t..<(t + 1))
        var entry = top.buffer[t], parent = -1, level = shift
        let nodeCount = nodes.count / 16, mixedCells = mixedStart.count - 1
        while entry >> 30 == CellIndex.tagNode {
            let n = Int(entry & 0x3FFF_FFFF)
            // Forward only: a damaged tree can neither loop nor leave the array.
            try check(n < nodeCount && n > parent && level >= 2, "cell tree")
            level -= 2
            let child = ((ix >> level) & 3) | (((iy >> level) & 3) << 2)
            try verify(nodes, (16 * n + child)..<(16 * n + child + 1))
            entry = nodes.buffer[16 * n + child]
            parent = n
        }
        let value = Int(entry & 0x3FFF_FFFF)
        switch entry >> 30 {
        case CellIndex.tagUnit:
            try check(value < units, "cell tree unit")
            return .unit(value)
        case CellIndex.tagEmpty: return .empty
        default:
            // Where the cell's records begin; prepareCrossing proves it is a cell's start.
            try check(value < borders.count && mixedCells > 0, "border cell entry")
            return .candidates(value)
        }
    }

    /// The words of the border cell whose records begin at `start`, found in the (ascending) border cell
    /// table by a binary search whose every probe is checked: a tree entry that is not a cell's start is
    /// damage.
    private func cellWords(start: Int) throws(Damage) -> Range<Int> {
        guard let mixedStart = arrays.mixedStart, let borders = arrays.borders else { throw Damage(reason: "\(name): cells missing") }
        let cells = mixedStart.count - 1
        var lo = 0, hi = cells
        while lo < hi {
            let mid = (lo + hi) / 2
            try verify(mixedStart, mid..<(mid + 1))
            if Int(mixedStart.buffer[mid]) < start { lo = mid + 1 } else { hi = mid }
        }
        try check(lo < cells, "border cell entry")
        try verify(mixedStart, lo..<(lo + 2))
        let end = Int(mixedStart.buffer[lo + 1])
        try check(Int(mixedStart.buffer[lo]) == start && start < end && end <= borders.count, "border cell entry")
        return start..<end
    }

    /// The records of a border cell and the edges they list, checked as ``CellIndex/inconsistency`` does;
    /// the parts GEOS will be asked about (records that cannot be sure of the point) checked whole.
    private func prepareCrossing(x: Double, y: Double, words start: Int, cells: CellIndex) throws(Damage) {
        guard let borders = arrays.borders else { throw Damage(reason: "\(name): cells missing") }
        let words = try cellWords(start: start)
        let parts = arrays.partRings.count - 1, vertexLimit = arrays.vertices.count / 2 - 1
        let flagsAndCount = CrossingLists.Record.insideFlag | CrossingLists.Record.noListFlag | CrossingLists.Record.lastFlag
            | CrossingLists.Record.countMask
        var r = words.lowerBound
        while r < words.upperBound {
            try check(r + CrossingLists.Record.headerWords <= words.upperBound, "crossing lists")
            try verify(borders, r..<(r + CrossingLists.Record.headerWords))
            let b = borders.buffer
            let header = b[r + 1], count = Int(header & CrossingLists.Record.countMask)
            let next = r + CrossingLists.Record.headerWords + count
            let reach = Double(bitPattern: UInt64(b[r + 2]) | UInt64(b[r + 3]) << 32)
            try check(Int(b[r]) < parts && header & ~flagsAndCount == 0 && count <= CrossingLists.maxListed
                      && (header & CrossingLists.Record.noListFlag == 0 || count == 0) && !reach.isNaN && next <= words.upperBound
                      && (header & CrossingLists.Record.lastFlag != 0) == (next == words.upperBound),
                      "crossing lists")
            try verify(borders, (r + CrossingLists.Record.headerWords)..<next)
            for k in (r + CrossingLists.Record.headerWords)..<next {
                let v = Int(b[k])
                try check(v < vertexLimit, "edge")
                try verify(arrays.vertices, (2 * v)..<(2 * v + 4))
            }
            let part = Int(b[r])
            try verify(arrays.partUnit, part..<(part + 1))
            try check(arrays.partUnit.buffer[part] >= 0 && Int(arrays.partUnit.buffer[part]) < units, "polygon \(part) unit")
            // Checked data now: the same function the query runs says whether GEOS will be asked.
            if CrossingLists.locate(x: x, y: y, record: b.baseAddress! + r, vertices: arrays.vertices.buffer.baseAddress!) == .uncertain {
                try preparePart(part)
            }
            r = next
        }
    }

    /// One polygon, as GEOS rebuilds it: its ring table entries, its rings (closed, 4 vertices or more)
    /// and their coordinates (in range). Also what the coast fallback reads of a polygon it measures.
    func preparePart(_ p: Int) throws(Damage) {
        let a = arrays
        try verify(a.partRings, p..<(p + 2))
        let r0 = Int(a.partRings.buffer[p]), r1 = Int(a.partRings.buffer[p + 1])
        try check(r0 < r1 && r1 < a.ringStart.count, "polygon \(p) rings")
        try verify(a.ringStart, r0..<(r1 + 1))
        let vertexCount = a.vertices.count / 2
        for r in r0..<r1 {
            let v0 = Int(a.ringStart.buffer[r]), v1 = Int(a.ringStart.buffer[r + 1])
            try check(v1 - v0 >= 4 && v1 <= vertexCount, "ring \(r) malformed")
            try verify(a.vertices, (2 * v0)..<(2 * v1))
            let v = a.vertices.buffer
            try check(v[2 * v0] == v[2 * v1 - 2] && v[2 * v0 + 1] == v[2 * v1 - 1], "ring \(r) not closed")
            var sane = true
            for k in stride(from: 2 * v0, to: 2 * v1, by: 2) { sane = sane && abs(v[k]) <= 720 && abs(v[k + 1]) <= 91 }
            try check(sane, "coordinates out of range")
        }
    }

    /// The whole polygon store and unit table, checked as a full load checks them, and the R-tree over
    /// the boxes (built once).
    @discardableResult
    func prepareTree() throws(Damage) -> PackedRTree {
        try whole.withLock { (tree) throws(Damage) -> PackedRTree in
            if let tree { return tree }
            let a = arrays
            try verifier.verifyAll([a.vertices.region, a.ringStart.region, a.partRings.region, a.envelopes.region, a.partUnit.region])
            if let why = IndexCache.polygonInconsistency(vertices: a.vertices.buffer, ringStart: a.ringStart.buffer,
                                                         partRings: a.partRings.buffer, envelopes: a.envelopes.buffer,
                                                         partUnit: a.partUnit.buffer, units: units) {
                throw Damage(reason: "\(name): \(why)")
            }
            let built = envelopeTree()
            tree = built
            return built
        }
    }

    /// The R-tree, once ``prepareTree()`` has built it.
    var tree: PackedRTree? { whole.withLock { $0 } }

    /// The polygons' boxes (minX minY maxX maxY each), with only what a scan of them reads checked: the
    /// boxes (in range, never inverted, never NaN), the polygon-to-unit table and the ring ranges' table
    /// (about 40 bytes a polygon). The coast fallback scans them (``NearestUnit/scanningBoxes``) and checks
    /// each polygon it measures (``preparePart(_:)``) before reading its rings, so a one-point run at sea
    /// reads a few kilobytes of each admin layer instead of all its vertices (the whole check made
    /// `geocode 0 -150` peak at 102 MB, against 44 MB on land), and builds no R-tree for one search.
    func checkBoxes() throws(Damage) -> UnsafeBufferPointer<Double> {
        let a = arrays
        try boxesChecked.withLock { (checked) throws(Damage) in
            if checked { return }
            try verifier.verifyAll([a.envelopes.region, a.partUnit.region, a.partRings.region])
            if let why = IndexCache.boxInconsistency(partRings: a.partRings.buffer, envelopes: a.envelopes.buffer,
                                                     partUnit: a.partUnit.buffer, units: units) {
                throw Damage(reason: "\(name): \(why)")
            }
            checked = true
        }
        return a.envelopes.buffer
    }

    /// The packed R-tree over the polygons' boxes (checked by the caller), in polygon order.
    private func envelopeTree() -> PackedRTree {
        let e = arrays.envelopes.buffer
        var builder = PackedRTree.Builder()
        for p in 0..<(arrays.partRings.count - 1) {
            builder.add(Box(minX: e[4 * p], minY: e[4 * p + 1], maxX: e[4 * p + 2], maxY: e[4 * p + 3]))
        }
        return builder.finish()
    }

    /// Counts the coast fallback's searches of this layer. At the second one, the whole check runs on a
    /// utility queue, so a process that keeps meeting the sea gets the layer's edge chunks (built only
    /// from checked polygons) while a one-point run never pays for reading every vertex.
    func noteNearestSearch() {
        guard nearestSearches.add(1, ordering: .relaxed).newValue == 2 else { return }
        Workers.background {
            // Damage found here is found again by the query that reads it: nothing to report from here.
            _ = try? self.prepareTree()
        }
    }

    // MARK: - Placemarks

    /// Decodes unit `u`'s placemark from checked slots and text (once).
    func preparePlacemark(_ u: Int) throws(Damage) {
        if decoded.withLock({ $0.placemarks[u] != nil }) { return }
        let spp = PlacemarkSlots.slotsPerPlacemark
        // The table's size against `units` was checked at load (IndexCache.dataset).
        try check(u >= 0 && u < units, "placemark table size")
        try verify(arrays.slots, (u * spp)..<((u + 1) * spp))
        try verifier.verifyAll([arrays.text.region])  // small (names), and any slot may point anywhere in it
        let bytes = textBytes
        let slots = arrays.slots.buffer, dataset = dataset, name = name
        // Decoded under the lock, for the shared pool: microseconds, and other threads need the same units.
        try decoded.withLock { (d: inout DecodedPlacemarks) throws(Damage) in
            guard d.placemarks[u] == nil else { return }
            do throws(PlacemarkSlots.Damage) {
                d.placemarks[u] = try PlacemarkSlots.read(u, slots: slots, bytes: bytes, dataset: dataset, pool: &d.pool)
            } catch {
                throw Damage(reason: "\(name): \(error.reason)")
            }
        }
    }

    /// Unit `u`'s placemark, once ``preparePlacemark(_:)`` has decoded it.
    func placemark(_ u: Int) -> Placemark? { decoded.withLock { $0.placemarks[u] } }

    /// The placemark section (slots and text) checked whole, for reading every unit's codes and names
    /// without decoding a placemark (``PlacemarkSlots/UnitTexts``): a listing by code or name reads them all.
    func unitTexts() throws(Damage) -> PlacemarkSlots.UnitTexts {
        try verifier.verifyAll([arrays.slots.region, arrays.text.region])
        return PlacemarkSlots.UnitTexts(slots: arrays.slots.buffer, bytes: textBytes)
    }

    /// The placemarks' text section as bytes.
    private var textBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: arrays.text.buffer.baseAddress, count: arrays.text.count * 4)
    }
}
