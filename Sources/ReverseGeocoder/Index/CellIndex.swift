import CHotPath

/// An adaptive quadtree of cells over one layer that answers most points without any GEOS call.
///
/// Built by pushing every polygon edge down the tree: a cell that no edge comes near (within `margin`)
/// lies wholly inside or wholly outside each polygon whose box touches it, so one exact GEOS test of its
/// centre decides the whole cell, and the cell stores the answer: a unit, or "no unit in this layer".
/// Cells that edges cross are split down to a base level (leaves about the wanted cell size), and below it
/// only while they still hold more than `maxEdges` edges, down to `depth`: so the edges a border cell
/// holds stay about the same however finely the boundaries are drawn (a full-resolution or densified
/// source makes the tree deeper at its borders, not the cells' lists longer). A border leaf, at whatever
/// level, stores its short candidate list, and for each candidate the few edges a ray-crossing count
/// needs (``CrossingLists``), so the query decides those points exactly too, still without GEOS (except
/// for points within rounding distance of an edge).
///
/// Exactness: the edge/cell test runs against the cell grown by `margin` (1e-9°, ~0.1 mm) and errs only
/// towards "crossed", so a point that floating-point rounding files into a neighbouring cell is still
/// farther from every edge than the rounding, and on the same side of it as the cell's centre.
final class CellIndex: Sendable {
    /// What a cell says.
    enum Answer {
        /// No unit of this layer contains any point of the cell.
        case empty
        /// Every point of the cell is in the interior of this unit (and of no lower-numbered unit).
        case unit(Int)
        /// Test these polygons (ascending), as `LayerIndex.locate` does: the border cell's records, from
        /// word `start` of this index to the record flagged last (``records(_:)``), each a part
        /// (``part(record:)``) and its crossing list (``locate(record:x:y:)``).
        case candidates(Int)
    }

    // Entries: 2-bit tag + 30-bit value: a node's number, a unit, or for a border cell the word where its
    // records begin in `borders` (not its number in `mixedStart`: that table was one more dependent cache
    // miss per border point, and a border point's cost is its chain of misses). A node spans two levels: node n's sixteen grandchildren are
    // nodes[16n ..< 16n+16], a 4 × 4 block of cells in rows from the south-west, (column + 4 · row). Its
    // 64 bytes are one cache line, so a query pays one miss per two levels. (The builder makes a plain
    // quadtree, four children per node; `widen` turns it into this.)
    static let tagNode: UInt32 = 0, tagUnit: UInt32 = 1, tagEmpty: UInt32 = 2, tagMixed: UInt32 = 3
    /// Everything the index is, as flat arrays and numbers: what the index cache writes and maps back.
    struct Layout {
        var originX: Double, originY: Double, size: Double
        var depth: Int, topLevels: Int
        /// Cells by kind, for statistics.
        var unitCells: Int, emptyCells: Int, mixedCells: Int
        var nodes: UnsafeBufferPointer<UInt32>
        /// Border cell m's records are words `mixedStart[m] ..< mixedStart[m + 1]` of `borders`. The query
        /// does not read it (a tree entry holds `mixedStart[m]`, and the cell's last record is flagged):
        /// the structure checks and statistics do.
        var mixedStart: UnsafeBufferPointer<UInt32>
        /// The tree's top `topLevels` levels flattened into a dense grid of entries, so a query starts a
        /// few levels from the leaves instead of chasing a dozen scattered nodes (each a likely cache miss).
        /// `depth - topLevels` is even: the nodes below span two levels each.
        var top: UnsafeBufferPointer<UInt32>
        /// The border cells' candidates with their crossing lists, one ``CrossingLists/Record`` each, cell
        /// after cell.
        var borders: UnsafeBufferPointer<UInt32>
    }

    // Raw buffers, allocated once and freed in deinit (or mapped from the index cache and owned by
    // `owner`): the query path then does no reference counting, no bounds checks and no exclusivity
    // checks. Immutable after init, hence Sendable.
    nonisolated(unsafe) private let nodes: UnsafeBufferPointer<UInt32>
    nonisolated(unsafe) private let mixedStart: UnsafeBufferPointer<UInt32>
    nonisolated(unsafe) private let top: UnsafeBufferPointer<UInt32>
    nonisolated(unsafe) private let borders: UnsafeBufferPointer<UInt32>
    /// The layer's polygons; the crossing lists index its vertices.
    let store: PolygonStore
    private let owner: (any AnyObject & Sendable)?
    let topLevels: Int
    let originX: Double, originY: Double, size: Double
    let depth: Int
    private let scale: Double
    /// 2^depth, as a Double and as the last cell's index (saves recomputing them on each query).
    private let cellCount: Double, lastCell: Int
    /// Cells by kind, for statistics.
    let unitCells: Int, emptyCells: Int, mixedCells: Int

    var layout: Layout {
        Layout(originX: originX, originY: originY, size: size, depth: depth, topLevels: topLevels, unitCells: unitCells,
               emptyCells: emptyCells, mixedCells: mixedCells, nodes: nodes, mixedStart: mixedStart, top: top, borders: borders)
    }

    /// What is wrong with a layout read from the cache, or nil: every index it holds must point inside
    /// the array it indexes, so that a damaged file can never make a query read out of bounds.
    static func inconsistency(_ l: Layout, parts: Int, units: Int, vertices: Int) -> String? {
        if let why = shapeInconsistency(l) { return why }
        guard l.mixedStart.first == 0, l.mixedStart.last.map(Int.init) == l.borders.count else { return "border cell table" }
        // Loops that fold into one flag: this runs over every array at each cached start.
        let nodeCount = UInt32(l.nodes.count / 16), units = UInt32(clamping: units), words = UInt32(clamping: l.borders.count)
        guard entriesAreValid(l.top, inNodes: false, nodeCount: nodeCount, units: units, words: words),
              entriesAreValid(l.nodes, inNodes: true, nodeCount: nodeCount, units: units, words: words) else { return "cell tree" }
        var ok = true
        // A border cell's entry must hold where one of the cells begins (the query walks its records from
        // there to the one flagged last): one bit per word of `borders`, set where a cell begins. (A binary
        // search in `mixedStart` per entry was 165 M of the bundled districts' 373 M instructions here,
        // paid at every load of a checked cache, callgrind.) Every entry's word is below `borders.count`:
        // `valid` said so above.
        let startBits = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: (l.borders.count + 63) / 64)
        startBits.initialize(repeating: 0)
        defer { startBits.deallocate() }
        for m in 0..<l.mixedCells {
            let w = Int(l.mixedStart[m])
            if w < l.borders.count { startBits[w &>> 6] |= 1 &<< UInt64(w & 63) }
        }
        @inline(__always) func startsACell(_ entry: UInt32) -> Bool {
            let w = Int(entry & 0x3FFF_FFFF)
            return entry >> 30 != tagMixed || startBits[w &>> 6] & (1 &<< UInt64(w & 63)) != 0
        }
        for e in l.top { ok = startsACell(e) && ok }
        for e in l.nodes { ok = startsACell(e) && ok }
        guard ok else { return "border cell entry" }
        // Each border cell: one or more records that end exactly where the next cell begins, each with a
        // known part, a reach that is a number, and edges whose second vertex exists.
        let b = l.borders, partLimit = UInt32(clamping: parts), vertexLimit = UInt32(clamping: max(0, vertices - 1))
        let flagsAndCount = CrossingLists.Record.insideFlag | CrossingLists.Record.noListFlag | CrossingLists.Record.lastFlag
            | CrossingLists.Record.countMask
        var r = 0
        // The highest vertex any edge names, compared once at the end: a branch-free maximum, where a flag
        // folded per edge (`ok && b[k] < limit`) branched on every edge (20 M of the bundled districts'
        // 450 M instructions at a checked load, callgrind).
        var highestVertex: UInt32 = 0, edgeWords = 0
        // Wrapping arithmetic on a raw pointer: every index is below `end` (≤ borders.count) by the guards
        // before it is read, so Swift's overflow checks only added work (13 M of the bundled districts'
        // 404 M instructions at a checked load, callgrind).
        let w = b.baseAddress!
        for m in 0..<l.mixedCells {
            let end = Int(l.mixedStart[m &+ 1])
            guard r == Int(l.mixedStart[m]), r < end else { return "border cells" }
            while r < end {
                guard r &+ CrossingLists.Record.headerWords <= end else { return "border cells" }
                let header = w[r &+ 1], count = Int(header & CrossingLists.Record.countMask)
                let next = r &+ CrossingLists.Record.headerWords &+ count
                let reach = Double(bitPattern: UInt64(w[r &+ 2]) | UInt64(w[r &+ 3]) &<< 32)
                guard w[r] < partLimit, header & ~flagsAndCount == 0, count <= CrossingLists.maxListed,
                      header & CrossingLists.Record.noListFlag == 0 || count == 0, !reach.isNaN, next <= end,
                      (header & CrossingLists.Record.lastFlag != 0) == (next == end) else {
                    return "crossing lists"
                }
                var k = r &+ CrossingLists.Record.headerWords
                while k < next { highestVertex = max(highestVertex, w[k]); k &+= 1 }
                edgeWords &+= count
                r = next
            }
        }
        guard edgeWords == 0 || highestVertex < vertexLimit else { return "edge" }
        return nil
    }

    /// Whether every tree entry is in bounds for its tag: a node below `nodeCount`, a unit below `units`,
    /// a border cell's word below `words` (an empty entry may hold anything); and, for the entries of the
    /// two-level nodes (`inNodes`), a node after the one holding the entry (sixteen entries a node), so
    /// that a walk down the tree always ends. The top grid's entries have no parent. ``inconsistency``'s
    /// check of the top grid and the nodes, four entries at a time in vector lanes, with one flag folded
    /// over the whole array: entry by entry, the tag's limit read from a table, the nodes alone cost 43 M
    /// of the bundled districts' 431 M instructions at every checked load; this costs 23 M (callgrind).
    /// (Sixteen lanes at once compiled to scalar code here and cost 229 M.) An array of part of a group
    /// (sixteen entries a node, four for the top grid's 4^topLevels, ``shapeInconsistency(_:)``) is
    /// refused, not checked in part.
    static func entriesAreValid(_ entries: UnsafeBufferPointer<UInt32>, inNodes: Bool, nodeCount: UInt32, units: UInt32,
                                words: UInt32) -> Bool {
        guard let base = entries.baseAddress else { return true }
        guard entries.count % (inNodes ? 16 : 4) == 0 else { return false }
        let raw = UnsafeRawPointer(base)
        let valueMask = SIMD4<UInt32>(repeating: 0x3FFF_FFFF), one = SIMD4<UInt32>(repeating: 1)
        let nodeLimit = SIMD4<UInt32>(repeating: nodeCount), unitLimit = SIMD4<UInt32>(repeating: units)
        let wordLimit = SIMD4<UInt32>(repeating: words)
        let node = SIMD4<UInt32>(repeating: tagNode), unit = SIMD4<UInt32>(repeating: tagUnit)
        let mixed = SIMD4<UInt32>(repeating: tagMixed)
        var bad = SIMDMask<SIMD4<Int32>>(repeating: false)
        // The four entries from `4 * k`, held by the node numbered `after - 1` (`after` 0: the top grid). A node
        // entry must name a later node, `value + 1 > parent + 1` (no value reaches 2^32 - 1: values have 30
        // bits), or for the top grid any node.
        @inline(__always) func fold(_ k: Int, after: SIMD4<UInt32>) {
            let e = raw.loadUnaligned(fromByteOffset: k &* 16, as: SIMD4<UInt32>.self)
            let value = e & valueMask, tag = e &>> 30
            bad .|= (tag .== node) .& ((value .>= nodeLimit) .| (value &+ one .<= after))
            bad .|= (tag .== unit) .& (value .>= unitLimit)
            bad .|= (tag .== mixed) .& (value .>= wordLimit)
        }
        // Two loops, not one with the holder worked out per four entries: that cost 6–12 M more of the
        // bundled load's instructions.
        if inNodes {
            for n in 0..<(entries.count / 16) {
                let after = SIMD4<UInt32>(repeating: UInt32(truncatingIfNeeded: n) &+ 1)
                for q in 0..<4 { fold(4 &* n &+ q, after: after) }
            }
        } else {
            let after = SIMD4<UInt32>(repeating: 0)
            for k in 0..<(entries.count / 4) { fold(k, after: after) }
        }
        return !any(bad)
    }

    /// What is wrong with a layout's numbers and array sizes, or nil: all a query's arithmetic needs before
    /// it reads an entry (``LayerFirstUse`` checks the entries it reads, ``inconsistency`` all of them).
    static func shapeInconsistency(_ l: Layout) -> String? {
        guard l.depth >= 1, l.depth <= 20, l.topLevels >= 1, l.topLevels <= l.depth, (l.depth - l.topLevels) % 2 == 0 else {
            return "depth"
        }
        guard l.size > 0, l.size.isFinite, l.originX.isFinite, l.originY.isFinite else { return "extent" }
        guard l.top.count == 1 << (2 * l.topLevels), l.nodes.count % 16 == 0 else { return "table sizes" }
        guard l.mixedStart.count == l.mixedCells + 1, l.mixedCells >= 0 else { return "border cell table" }
        return nil
    }

    /// An index mapped from the cache (its arrays already checked), kept alive by `owner`.
    init(layout l: Layout, store: PolygonStore, owner: any AnyObject & Sendable) {
        originX = l.originX; originY = l.originY; size = l.size; depth = l.depth; topLevels = l.topLevels
        scale = Double(1 << l.depth) / l.size
        cellCount = Double(1 << l.depth); lastCell = (1 << l.depth) - 1
        unitCells = l.unitCells; emptyCells = l.emptyCells; mixedCells = l.mixedCells
        nodes = l.nodes; mixedStart = l.mixedStart; top = l.top; borders = l.borders
        self.store = store
        self.owner = owner
    }

    static let margin = 1e-9

    deinit {
        guard owner == nil else { return }
        for b in [nodes, mixedStart, top, borders] { LargeAllocation.free(b) }
    }

    /// The records of a border cell (its candidates, ascending), as word positions: from the cell's first
    /// record to the one flagged last (the structure checks proved the flags).
    struct Records: Sequence, IteratorProtocol {
        fileprivate let words: UnsafePointer<UInt32>
        /// The next record, or -1 after the last.
        fileprivate var at: Int

        @inline(__always)
        mutating func next() -> Int? {
            guard at >= 0 else { return nil }
            let r = at
            let header = words[r &+ 1]
            at = header & CrossingLists.Record.lastFlag != 0 ? -1 : r &+ CrossingLists.Record.headerWords &+ Int(header & CrossingLists.Record.countMask)
            return r
        }
    }

    /// The records of the border cell whose first record is at word `start` (from ``Answer/candidates(_:)``).
    @inline(__always)
    func records(_ start: Int) -> Records { Records(words: borders.baseAddress!, at: start) }

    /// Reads, for every record of a border cell, the first vertex of its first and of its last edge, and
    /// returns their bits folded together (the caller stores them where the compiler must keep the loads).
    ///
    /// Why: a border point's cost is cache misses, one after another. Each record's edges index the layer's
    /// vertices, and ``locate(record:x:y:)`` branches on every coordinate it reads, so a miss on a later
    /// record's vertices waited until the earlier records were decided. This loop has no branch on the
    /// data: its loads are independent and their misses overlap (memory-level parallelism), and the
    /// evaluation that follows finds the lines in cache. A record's list is one or two runs of
    /// consecutive edges, hence its first and last edge.
    @inline(__always)
    func warm(_ start: Int) -> UInt64 {
        let b = borders.baseAddress!, v = store.vertices.baseAddress!
        var folded: UInt64 = 0
        var r = start
        while true {
            let header = b[r &+ 1], n = Int(header & CrossingLists.Record.countMask)
            if n > 0 {
                let first = b[r &+ CrossingLists.Record.headerWords], last = b[r &+ CrossingLists.Record.headerWords &+ n &- 1]
                folded ^= v[2 &* Int(first)].bitPattern ^ v[2 &* Int(last) &+ 3].bitPattern
            }
            if header & CrossingLists.Record.lastFlag != 0 { return folded }
            r &+= CrossingLists.Record.headerWords &+ n
        }
    }

    /// The part of the record at `record`.
    @inline(__always)
    func part(record: Int) -> Int { Int(borders[record]) }

    /// The record's reach x and whether it is inside the part; nil when the record has no list (GEOS
    /// decides its points). For tests.
    func reach(record: Int) -> (x: Double, inside: Bool)? {
        let header = borders[record + 1]
        guard header & CrossingLists.Record.noListFlag == 0 else { return nil }
        return (Double(bitPattern: UInt64(borders[record + 2]) | UInt64(borders[record + 3]) << 32),
                header & CrossingLists.Record.insideFlag != 0)
    }

    /// Where a point of the record's cell lies against the record's part, exactly as GEOS would say, or
    /// `.uncertain` (ask GEOS).
    @inline(__always)
    func locate(record: Int, x: Double, y: Double) -> CrossingLists.Location {
        CrossingLists.locate(x: x, y: y, record: borders.baseAddress! + record, vertices: store.vertices.baseAddress!)
    }

    /// The answer for a point. Points outside the root square are `.empty`.
    @inline(__always)
    func answer(x: Double, y: Double) -> Answer {
        let fx = (x - originX) * scale, fy = (y - originY) * scale
        guard fx >= 0, fy >= 0, fx <= cellCount, fy <= cellCount else { return .empty }
        // Bounded by the guard (cellCount ≤ 2^20): no need of Int()'s range check (see CHotPath).
        let ix = min(hot_path_truncate(fx), lastCell), iy = min(hot_path_truncate(fy), lastCell)
        // Masking shifts and wrapping arithmetic: depth ≤ 20 and the cache's structure check bound every
        // index, so Swift's overflow and over-shift checks would only add work to each query.
        let shift = depth &- topLevels
        var entry = top[((iy &>> shift) &<< topLevels) | (ix &>> shift)]
        var level = shift
        while entry &>> 30 == CellIndex.tagNode {
            level &-= 2
            let child = ((ix &>> level) & 3) | (((iy &>> level) & 3) &<< 2)
            entry = nodes[16 &* Int(entry & 0x3FFF_FFFF) &+ child]
        }
        let value = Int(entry & 0x3FFF_FFFF)
        switch entry >> 30 {
        case CellIndex.tagUnit: return .unit(value)
        case CellIndex.tagEmpty: return .empty
        default:
            return .candidates(value)
        }
    }

    /// How many border cells sit at each level (for statistics and tests). Each border cell has its own
    /// entry value, and the two-level nodes and the top grid repeat a leaf over the 4^k entries it
    /// covers k levels below it, so a cell's level is its entries' level less log4 of their count.
    func borderCellLevels() -> [Int: Int] {
        var seen = [(level: Int, count: Int)](repeating: (0, 0), count: mixedCells)
        // A border cell's entry holds where its records begin; its number is its place in `mixedStart`.
        var number: [Int: Int] = [:]
        for m in 0..<mixedCells { number[Int(mixedStart[m])] = m }
        func visit(_ entry: UInt32, level: Int) {
            let value = Int(entry & 0x3FFF_FFFF)
            switch entry >> 30 {
            case CellIndex.tagMixed:
                let m = number[value]!
                seen[m] = (level, seen[m].count + 1)
            case CellIndex.tagNode: for child in 0..<16 { visit(nodes[16 * value + child], level: level + 2) }
            default: break
            }
        }
        for e in top { visit(e, level: topLevels) }
        var levels: [Int: Int] = [:]
        for s in seen where s.count > 0 { levels[s.level - (s.count.trailingZeroBitCount / 2), default: 0] += 1 }
        return levels
    }

    /// What every cell overlapping a box says, if they all say the same.
    enum BoxAnswer: Equatable {
        case empty
        case unit(Int)
        case mixed
    }

    /// The common answer of all cells that overlap the box (x0...x1, y0...y1) grown by `margin`: `.unit(u)`
    /// or `.empty` when every point of the box gets that answer from ``answer(x:y:)``, else `.mixed`.
    func boxAnswer(x0: Double, y0: Double, x1: Double, y1: Double) -> BoxAnswer {
        let m = CellIndex.margin
        let fx0 = (x0 - m - originX) * scale, fy0 = (y0 - m - originY) * scale
        let fx1 = (x1 + m - originX) * scale, fy1 = (y1 + m - originY) * scale
        let cells = Double(1 << depth)
        // Outside the root square `answer` says empty.
        var state = fx0 < 0 || fy0 < 0 || fx1 > cells || fy1 > cells ? BoxState.empty : BoxState.none
        if fx1 < 0 || fy1 < 0 || fx0 > cells || fy0 > cells { return .empty }
        let last = (1 << depth) - 1
        let span = BoxSpan(ix0: max(0, min(last, Int(fx0))), iy0: max(0, min(last, Int(fy0))),
                           ix1: max(0, min(last, Int(fx1))), iy1: max(0, min(last, Int(fy1))))
        let shift = depth - topLevels
        for ty in (span.iy0 >> shift)...(span.iy1 >> shift) {
            for tx in (span.ix0 >> shift)...(span.ix1 >> shift) {
                if !visit(top[(ty << topLevels) | tx], level: topLevels, cx: tx, cy: ty, span, &state) { return .mixed }
            }
        }
        return state == BoxState.none || state == BoxState.empty ? .empty : .unit(Int(state & 0x3FFF_FFFF))
    }

    /// The cells (at `depth`) a ``boxAnswer(x0:y0:x1:y1:)`` box overlaps.
    private struct BoxSpan {
        var ix0: Int, iy0: Int, ix1: Int, iy1: Int
    }

    /// The common answer of the leaves a box answer has met so far, as a raw value: a unit leaf's entry,
    /// or one of these two. Plain integers, not an optional enum with a payload: the WGS-84 grid asks
    /// 1.2 M boxes of every layer at each build of the bundled China, and the enum's comparisons and the
    /// nested functions' captured state were most of that (1 G instructions, 11 % of the build).
    private enum BoxState {
        static let none = UInt32.max
        static let empty = tagEmpty << 30
    }

    /// Folds tree entry `entry`, covering cells (cx, cy) at `level` (cells of side 2^(depth - level)),
    /// into `state`; false as soon as the box is mixed.
    private func visit(_ entry: UInt32, level: Int, cx: Int, cy: Int, _ span: BoxSpan, _ state: inout UInt32) -> Bool {
        let code: UInt32
        switch entry >> 30 {
        case CellIndex.tagUnit: code = entry
        case CellIndex.tagEmpty: code = BoxState.empty
        case CellIndex.tagMixed: return false
        default:
            // The 4 x 4 grandchildren; those overlapping the span: ccx from ix0 >> shift to ix1 >> shift.
            let shift = depth - level - 2, value = Int(entry & 0x3FFF_FFFF)
            let gx0 = max(4 * cx, span.ix0 >> shift), gx1 = min(4 * cx + 3, span.ix1 >> shift)
            let gy0 = max(4 * cy, span.iy0 >> shift), gy1 = min(4 * cy + 3, span.iy1 >> shift)
            guard gx0 <= gx1, gy0 <= gy1 else { return true }
            for ccy in gy0...gy1 {
                for ccx in gx0...gx1 {
                    let child = (ccx - 4 * cx) | ((ccy - 4 * cy) << 2)
                    if !visit(nodes[16 * value + child], level: level + 2, cx: ccx, cy: ccy, span, &state) { return false }
                }
            }
            return true
        }
        if state == BoxState.none { state = code; return true }
        return state == code
    }

    /// Levels below the cell size (``ReverseGeocoder/Options/cellSize``) a layer's border cells are split
    /// to, whatever their edges, chosen per layer at build time by ``borderLevels(edgesPerCell:)``: a
    /// quarter of the side is about a third of the area (a border crosses some 5 of the 16 cells it is
    /// split into), so a third as many points reach a border cell, the query's slow path (its records and
    /// their edges, misses one after another). Two, not one: the two-level nodes make a border cell two
    /// levels down one node load more either way, and one level gave no timed gain (session 9).
    ///
    /// For every layer (session 9's format 12) it cut the district layer's CPU time a point to 0.71–0.82
    /// but nearly tripled `Data/`'s other caches (world 75 → 260 MB, localities 81 → 267, time zones 72 →
    /// 152; build 17.6 → 33.8 s): those layers' border cells hold under one edge each on average and
    /// few points reach them, so the split cost five times the records for little (query-speed.md,
    /// session 10).
    static let deepBorderLevels = 2

    /// The layer's ``edgesPerCell(store:cellSide:)`` from which its border cells go ``deepBorderLevels``
    /// deeper. It is what a point in the layer's units pays in the border test, on average (the share of
    /// the area in border cells times the edges a border cell holds), and also what makes the split
    /// cheap beside the layer (a border cell of many edges splits into cells of a few, so the records
    /// grow by ~2.7× rather than ~5×). At the default cell size, `Data/`'s layers: China's districts
    /// 0.93, cities 0.40, provinces 0.16; world provinces 0.04, countries 0.02; localities 0.07; time
    /// zones 0.05 (full-resolution districts 4.0, ×24 densified 23): between the districts and the cities.
    static let deepBorderEdgesPerCell = 0.6

    /// The border levels for a layer whose covered area holds `edgesPerCell` edges a cell of the cell
    /// size's level: ``deepBorderLevels`` from ``deepBorderEdgesPerCell`` on, else 0.
    static func borderLevels(edgesPerCell: Double) -> Int {
        edgesPerCell >= deepBorderEdgesPerCell ? deepBorderLevels : 0
    }

    /// The border levels for a layer's polygons at base cells of side `cellSide`.
    static func borderLevels(store: PolygonStore, cellSide: Double) -> Int {
        borderLevels(edgesPerCell: edgesPerCell(store: store, cellSide: cellSide))
    }

    /// The layer's edges (every ring's, so a border between two units counts twice, as in the border
    /// cells' records) per cell of side `cellSide` of its units' area (each polygon's shell less its
    /// holes, by the shoelace sum, relative to the ring's first vertex): one pass over the vertices. 0
    /// for a layer without area.
    static func edgesPerCell(store: PolygonStore, cellSide: Double) -> Double {
        let v = store.vertices
        var edges = 0, area = 0.0
        for p in 0..<store.count {
            var polygon = 0.0
            for r in Int(store.partRings[p])..<Int(store.partRings[p + 1]) {
                let from = Int(store.ringStart[r]), to = Int(store.ringStart[r + 1])
                guard to - from >= 2 else { continue }
                edges += to - from - 1
                let x0 = v[2 * from], y0 = v[2 * from + 1]
                var twice = 0.0
                for k in from..<(to - 1) {
                    twice += (v[2 * k] - x0) * (v[2 * k + 3] - y0) - (v[2 * k + 2] - x0) * (v[2 * k + 1] - y0)
                }
                polygon += r == Int(store.partRings[p]) ? abs(twice) / 2 : -abs(twice) / 2
            }
            area += max(0, polygon)
        }
        guard area > 0, cellSide > 0 else { return 0 }
        return Double(edges) * cellSide * cellSide / area
    }

    /// Edges (of all candidates together, so a border shared by two units counts twice) a border cell
    /// below the base level may hold before it is split again. Measured on China's districts segmentized
    /// to 23 M vertices (Benchmarks/results/growth.md; on a loaded machine, so the times are high):
    /// 16 → 123 ns per point, 100 s build, 800 MB cache; 32 → 150 ns, 61 s, 667 MB; 64 → 187 ns, 53 s,
    /// 551 MB; no splitting below the base (before, on a quieter machine) 367 ns, 24 s, 401 MB. The
    /// bundled data hardly splits (41 MB either way).
    static let defaultMaxEdges = 32

    /// Builds the index over a layer's polygons. `unitOf[p]` is polygon p's unit; `containsProperly(worker, p, x, y)`
    /// an exact interior test of polygon p (GEOS), called by workers 0 ..< `threads`, never twice at once
    /// for one worker (so each can own a GEOS context). Cells that edges cross are split to `baseDepth`, and
    /// below it while they hold more than `maxEdges` edges, to `maxDepth` at most (`maxDepth - baseDepth`
    /// even keeps the top grid as deep as without the extra levels). The index is the same, bit for bit,
    /// whatever `threads` is.
    init(store: PolygonStore, unitOf: [Int32], baseDepth: Int, maxDepth: Int, maxEdges: Int = CellIndex.defaultMaxEdges,
         threads: Int = 1, containsProperly: @escaping @Sendable (Int, Int, Double, Double) -> Bool) {
        self.store = store
        owner = nil
        let boxes = (0..<store.count).map(store.envelope)
        let extent = boxes.isEmpty ? Box(minX: 0, minY: 0, maxX: 1, maxY: 1) : boxes.reduce(Box.empty) { $0.union($1) }
        let (minX, minY, maxX, maxY) = (extent.minX, extent.minY, extent.maxX, extent.maxY)
        // A square root cell a hair larger than the extent, so every polygon lies strictly inside it.
        let side = max(maxX - minX, maxY - minY) * (1 + 1e-9) + 1e-9
        originX = minX - side * 1e-9
        originY = minY - side * 1e-9
        size = side
        depth = max(1, maxDepth)
        scale = Double(1 << depth) / side
        cellCount = Double(1 << depth); lastCell = (1 << depth) - 1

        // The build's inputs are freed as soon as the tree is made (the closure's end): their memory is
        // then reused by the crossing lists (``LargeAllocation``'s spares).
        var builder = { [originX, originY, depth] in
            let inputs = CellBuildInputs(store: store, unitOf: unitOf, baseDepth: min(depth, max(1, baseDepth)), maxDepth: depth,
                                         maxEdges: maxEdges)
            return CellTreeBuilder.build(inputs: inputs, threads: threads, originX: originX, originY: originY, side: side,
                                         containsProperly: containsProperly)
        }()
        // Crossing lists for every (mixed cell, candidate) entry, over the store's vertices.
        let partEdges = (0..<store.count).map(store.edgeRanges)
        let lists = CrossingLists.build(vertices: store.vertices, partEdges: partEdges, cells: builder.mixedCells,
                                        cellStart: builder.mixedStart, parts: builder.mixedParts, originX: originX,
                                        originY: originY, side: side, margin: CellIndex.margin, threads: threads)
        // Pack each cell's entries, with their edges, into consecutive records, written where they stay
        // (the sizes are known: no array grown and copied into place, which was most of a build's page
        // faults). An entry that can only say "exterior" (``CrossingLists/Entry/onlyExterior``: a part whose
        // box reaches the cell, no edge of it) gets no record, which a query would walk for nothing: 19 % of
        // the bundled districts' entries, 5.3 MB of their cache. A cell whose entries all are such keeps its
        // first, so that every border cell has a record to walk.
        let entries = lists.entries
        var wordCount = 0
        for m in 0..<builder.mixedCells.count {
            var cellWords = 0
            for e in Int(builder.mixedStart[m])..<Int(builder.mixedStart[m + 1]) where !entries[e].onlyExterior {
                cellWords += CrossingLists.Record.headerWords + (entries[e].list?.count ?? 0)
            }
            wordCount += cellWords == 0 ? CrossingLists.Record.headerWords : cellWords
        }
        precondition(wordCount < 1 << 30, "too many border cells for one layer")
        let words = LargeAllocation.allocate(UInt32.self, count: wordCount)
        let starts = LargeAllocation.allocate(UInt32.self, count: builder.mixedCells.count + 1)
        starts[0] = 0
        var at = 0
        for m in 0..<builder.mixedCells.count {
            let first = at
            var last = at
            let cell = Int(builder.mixedStart[m])..<Int(builder.mixedStart[m + 1])
            @inline(__always) func write(_ e: Int) {
                let entry = entries[e]
                last = at
                at = CrossingLists.Record.write(part: builder.mixedParts[e], reach: entry.reach, inside: entry.inside,
                                                noList: entry.list == nil, edges: lists.edges(of: entry), to: words, at: at)
            }
            for e in cell where !entries[e].onlyExterior { write(e) }
            if at == first { write(cell.lowerBound) }  // all of them could only say "exterior"
            words[last + 1] |= CrossingLists.Record.lastFlag
            starts[m + 1] = UInt32(at)
        }
        lists.free()
        mixedStart = UnsafeBufferPointer(starts)
        borders = UnsafeBufferPointer(words)
        Self.pointEntriesAtRecords(&builder.nodes, starts: mixedStart)

        // Dense top grid: for each cell at level `topLevels`, the entry found by descending to it (a node
        // at that level, or the leaf that covers it from higher up).
        // At most 9 levels (a 1 MB table), and an even number of levels left for the two-level nodes.
        var levels = min(depth, 9)
        if (depth - levels) % 2 == 1 { levels -= 1 }
        topLevels = levels
        let side1 = 1 << levels
        let topGrid = LargeAllocation.allocate(UInt32.self, count: side1 * side1)
        for j in 0..<side1 {
            for i in 0..<side1 {
                let ix = i << (depth - levels), iy = j << (depth - levels)
                var entry = CellIndex.tagNode << 30  // the root, node 0
                var bit = depth - 1
                for _ in 0..<levels {
                    guard entry >> 30 == CellIndex.tagNode else { break }
                    let child = ((ix >> bit) & 1) | (((iy >> bit) & 1) << 1)
                    entry = builder.nodes[4 * Int(entry & 0x3FFF_FFFF) + child]
                    bit -= 1
                }
                topGrid[j * side1 + i] = entry
            }
        }
        // The two-level nodes, counted first so they are written where they stay.
        let wideNodes = Self.wideNodeCount(builder.nodes, topLevels: levels)
        precondition(wideNodes < 1 << 30, "too many cells for one layer")
        let wide = LargeAllocation.allocate(UInt32.self, count: 16 * wideNodes)
        Self.widen(top: topGrid, from: builder.nodes, into: wide)
        nodes = UnsafeBufferPointer(wide)
        top = UnsafeBufferPointer(topGrid)
        unitCells = builder.unitCells
        emptyCells = builder.emptyCells
        mixedCells = builder.mixedStart.count - 1
        // The spares stay for the next layer's build (released when the dataset is loaded: DatasetLoader).
    }

    /// Turns each border cell's entry from its number m into where its records begin, `starts[m]` (what
    /// the query reads; see the entries' comment above).
    private static func pointEntriesAtRecords(_ nodes: inout [UInt32], starts: UnsafeBufferPointer<UInt32>) {
        for i in nodes.indices where nodes[i] >> 30 == tagMixed {
            nodes[i] = tagMixed << 30 | starts[Int(nodes[i] & 0x3FFF_FFFF)]
        }
    }

    /// Turns the plain tree below each top-grid entry into two-level nodes: a leaf stays as it is; a
    /// plain node becomes a two-level node whose sixteen entries are its grandchildren, or a child leaf
    /// repeated over the 2 × 2 block of grandchildren it covers. Numbered level by level (breadth first,
    /// the top grid's nodes in its row order): the nodes right below the top grid, which most points that
    /// need a node read, are then one block at the array's start, not spread over all of it between
    /// their subtrees. Parents come before their children, as the cache's structure check requires.
    private static func widen(top: UnsafeMutableBufferPointer<UInt32>, from plain: [UInt32], into wide: UnsafeMutableBufferPointer<UInt32>) {
        // Pending two-level nodes: (the plain node it is made from, its number), in the order numbered.
        var pending: [(plain: Int, number: Int)] = []
        pending.reserveCapacity(wide.count / 16)
        func number(_ entry: UInt32) -> UInt32 {
            guard entry >> 30 == tagNode else { return entry }
            pending.append((Int(entry & 0x3FFF_FFFF), pending.count))
            return tagNode << 30 | UInt32(pending.count - 1)
        }
        for k in top.indices { top[k] = number(top[k]) }
        var next = 0
        while next < pending.count {
            let (n, k) = pending[next]
            next += 1
            for child in 0..<4 {
                let c = plain[4 * n + child]
                for grandchild in 0..<4 {
                    // A plain node at the level before the last always has children: the depth left is even.
                    let g = c >> 30 == tagNode ? plain[4 * Int(c & 0x3FFF_FFFF) + grandchild] : c
                    let column = 2 * (child & 1) + (grandchild & 1), row = 2 * (child >> 1) + (grandchild >> 1)
                    wide[16 * k + column + 4 * row] = number(g)
                }
            }
        }
        precondition(16 * pending.count == wide.count, "two-level nodes miscounted")
    }

    /// How many two-level nodes ``widen(top:from:into:)`` makes: one for each plain node `topLevels`,
    /// `topLevels + 2`, ... levels down (the nodes above are flattened into the top grid, those in between
    /// are the grandchildren's parents). One pass in array order gives every node its level, as the
    /// builder appends a node's children after it. (Repeating widen's walk to count cost 70 M of a bundled
    /// build's 8.6 G instructions, callgrind.)
    private static func wideNodeCount(_ plain: [UInt32], topLevels: Int) -> Int {
        let count = plain.count / 4
        var level = [UInt8](repeating: 0, count: count)  // node 0 is the root, at level 0
        var wide = 0
        plain.withUnsafeBufferPointer { p in
            level.withUnsafeMutableBufferPointer { level in
                for n in 0..<count {
                    let l = Int(level[n])
                    if l >= topLevels && (l - topLevels) % 2 == 0 { wide += 1 }
                    for c in 4 * n..<4 * n + 4 where p[c] >> 30 == tagNode {
                        let child = Int(p[c] & 0x3FFF_FFFF)
                        precondition(child > n, "a plain node before its parent")
                        level[child] = UInt8(l + 1)
                    }
                }
            }
        }
        return wide
    }
}
