import Synchronization

/// Exact point-in-polygon for the points that land in a border cell of the ``CellIndex``, without GEOS.
///
/// GEOS decides a point against a prepared polygon with a ray-crossing count: every ring segment that
/// straddles the horizontal line through the point (half-open in y) and passes to the right of it counts
/// one; an odd count is the interior, a segment through the point is the boundary. That count needs all
/// segments on the ray, out to infinity. Here each (border cell, polygon) pair stores a *reach* `xR` to
/// the right of the cell such that the vertical segment {xR} × (the cell's row) touches no edge of the
/// polygon, whether xR lies inside the polygon, and the few edges that meet the row between the cell and
/// xR. Along the ray, the crossings beyond xR have the parity of xR's own location (no edge meets that
/// vertical, so it is wholly inside or wholly outside), and the crossings between the point and xR are
/// among the stored edges. So the point's location is the parity of (stored edges crossing right of the
/// point) + (stored edges crossing right of xR) + (xR inside). It is GEOS's answer, not an approximation:
///
/// - The same rules as GEOS's `RayCrossingCounter` (the vertex and horizontal-segment cases are exact
///   comparisons, in the same order).
/// - Which side of a segment a point is on is computed in double precision with an error bound a
///   thousand times wider than the rounding could cause; when the sign is not certain (the point within
///   about 1e-12 relative of the segment's line) the answer is ``Location/uncertain`` and the caller
///   asks GEOS. Random points never get there; points on borders do, and GEOS decides them.
/// - Edges are filed by conservative boxes, so a list may hold extra edges: harmless, because an edge
///   is only counted between the point and xR, and any edge crossing there meets the row left of xR.
struct CrossingLists {
    /// Where a point lies with respect to one polygon.
    enum Location { case interior, boundary, exterior, uncertain }

    /// What ``build`` finds for one entry (a border cell's candidate polygon): the reach xR, whether xR is
    /// inside the polygon, and the entry's edges `runEdges[run][list]`, or no list when it would be too
    /// long (GEOS decides its points). Entries are filled part by part, so their edges are not in entry
    /// order; the cell index packs each entry into one record (see ``Record``).
    ///
    /// 16 bytes, not the 40 that a `Range<Int>?` made: there is one per (border cell, candidate), 1.7 M
    /// for the bundled districts, and every byte of them is fresh memory the kernel clears.
    struct Entry {
        var reach: Double = 0
        private var start: UInt32 = 0
        /// The list's length, or `Entry.none`. A list is at most ``maxListed`` edges.
        private var length = Entry.none
        var inside = false
        /// The run of parts whose sweep listed the edges (see ``build``).
        var run: UInt8 = 0

        private static let none = UInt16.max

        /// Whether the entry can only ever say "exterior": no edge of its part meets the cell's row between
        /// the cell and the reach (so none comes near the cell), and the reach is outside. Every point of
        /// the cell is then outside the part, off its boundary: the cell index writes no record for it
        /// (a fifth of the bundled districts' entries were such, parts whose box merely reaches the cell).
        var onlyExterior: Bool { length == 0 && !inside }

        var list: Range<Int>? {
            get { length == Entry.none ? nil : Int(start)..<(Int(start) + Int(length)) }
            set {
                guard let newValue else { length = Entry.none; return }
                precondition(newValue.upperBound <= Int(UInt32.max) && newValue.count < Int(Entry.none), "crossing list out of range")
                start = UInt32(newValue.lowerBound)
                length = UInt16(newValue.count)
            }
        }
    }

    /// One per entry given to ``build``, in that order.
    let entries: UnsafeMutableBufferPointer<Entry>
    /// Each run's edges as vertex indices: edge k runs from vertex k to vertex k + 1 of `vertices`. Kept
    /// per run, not joined into one array: the join was a copy, and its 14 MB (on the bundled districts)
    /// left the spares too cut up for the cell index's records (see ``SpareMappings``).
    let runEdges: [UnsafeMutableBufferPointer<UInt32>]

    /// An entry's edges (none when it has no list).
    func edges(of entry: Entry) -> UnsafeBufferPointer<UInt32> {
        guard let list = entry.list else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(rebasing: runEdges[Int(entry.run)][list])
    }

    /// Frees every array (``LargeAllocation``): the cell index packs them into its records and lets go.
    func free() {
        LargeAllocation.free(entries)
        for edges in runEdges { LargeAllocation.free(edges) }
    }

    /// Longest list kept. Lists are short (median 1–4 edges, 99th percentile 10–25 on the bundled
    /// data) except behind long straight edges, where they reach thousands: those entries (0.1–1 % in
    /// the world layers, none in China's) ask GEOS instead, which cuts the world index's size by 6×.
    static let maxListed = 64

    /// Side of the point (px, py) relative to the segment (x1, y1) → (x2, y2): +1 left, -1 right,
    /// 0 when the determinant's sign is not certain (including exactly collinear).
    @inline(__always)
    static func side(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ px: Double, _ py: Double) -> Int {
        let a = (x1 - px) * (y2 - py), b = (y1 - py) * (x2 - px)
        let det = a - b
        // Rounding moves det by at most a few ulps of |a| + |b|; 1e-12 leaves a margin of about 1000×, so
        // GEOS (double-double arithmetic) finds the same sign whenever this says it is certain.
        let bound = 1e-12 * (abs(a) + abs(b))
        if det > bound { return 1 }
        if det < -bound { return -1 }
        return 0
    }

    /// One entry as the cell index stores it: consecutive `UInt32` words, so that a border cell's
    /// candidates and their edges lie together in memory (a query touches one or two cache lines for
    /// them instead of a line per array):
    ///
    /// - word 0: the part (polygon) number;
    /// - word 1: bit 31 set when the reach is inside the part, bit 30 set when the entry has no list
    ///   (GEOS decides its points), bit 29 set on the last record of its border cell (the query walks a
    ///   cell's records up to it, without a table of where cells end), bits 0–15 the number of edges n;
    /// - words 2–3: the reach xR, as the low and high halves of the Double's bits;
    /// - words 4 ..< 4 + n: the edges, as vertex indices (edge k runs from vertex k to vertex k + 1).
    enum Record {
        static let headerWords = 4
        static let insideFlag: UInt32 = 1 << 31, noListFlag: UInt32 = 1 << 30, lastFlag: UInt32 = 1 << 29, countMask: UInt32 = 0xFFFF

        /// The record's length in words.
        @inline(__always)
        static func words(_ r: UnsafePointer<UInt32>) -> Int { headerWords &+ Int(r[1] & countMask) }

        /// Writes the record of a part with its reach and edges at word `at` of `words`; returns the word
        /// after it.
        static func write(part: Int32, reach: Double, inside: Bool, noList: Bool, edges: UnsafeBufferPointer<UInt32>,
                          to words: UnsafeMutableBufferPointer<UInt32>, at: Int) -> Int {
            let bits = reach.bitPattern
            words[at] = UInt32(bitPattern: part)
            words[at + 1] = (inside ? insideFlag : 0) | (noList ? noListFlag : 0) | UInt32(edges.count)
            words[at + 2] = UInt32(truncatingIfNeeded: bits)
            words[at + 3] = UInt32(truncatingIfNeeded: bits >> 32)
            for (i, e) in edges.enumerated() { words[at + headerWords + i] = e }
            return at + headerWords + edges.count
        }
    }

    /// The location of (px, py) against the polygon of the record at `record`, by its edges and reach.
    @inline(__always)
    static func locate(x px: Double, y py: Double, record: UnsafePointer<UInt32>, vertices: UnsafePointer<Double>) -> Location {
        let header = record[1]
        if header & Record.noListFlag != 0 { return .uncertain }
        let rx = Double(bitPattern: UInt64(record[2]) | UInt64(record[3]) << 32)
        var parity = header >> 31
        var k = Record.headerWords
        let end = k &+ Int(header & Record.countMask)
        let edges = record
        while k < end {
            let v = 2 &* Int(edges[k])
            k &+= 1
            let x1 = vertices[v], y1 = vertices[v &+ 1], x2 = vertices[v &+ 2], y2 = vertices[v &+ 3]
            // GEOS RayCrossingCounter::countSegment's cases, in its order.
            if x1 < px && x2 < px { continue }
            if px == x2 && py == y2 { return .boundary }
            if y1 == py && y2 == py {
                if px >= min(x1, x2) && px <= max(x1, x2) { return .boundary }
                continue
            }
            guard (y1 > py && y2 <= py) || (y2 > py && y1 <= py) else { continue }
            var s = side(x1, y1, x2, y2, px, py)
            if s == 0 {
                // Exactly through the segment's start: GEOS's next segment (or this one) says boundary.
                if px == x1 && py == y1 { return .boundary }
                return .uncertain
            }
            if y2 < y1 { s = -s }
            if s == 1 {
                parity ^= 1
                // Crossing right of the reach too: that crossing belongs to the reach's own parity.
                var r = side(x1, y1, x2, y2, rx, py)
                if r == 0 { return .uncertain }
                if y2 < y1 { r = -r }
                if r == 1 { parity ^= 1 }
            }
        }
        return parity == 1 ? .interior : .exterior
    }

    /// Builds the lists for every entry.
    ///
    /// - `vertices`: all rings of all parts, interleaved x, y, each ring closed; `partEdges[p]` the ranges
    ///   of edge indices of part p (one per ring: a ring of n vertices has n - 1 edges).
    /// - the entries, as the tree builder lays them out: border cell m (its column and row in the grid of
    ///   its level, cells of side `side / 2^level` from (originX, originY)) has the candidate parts
    ///   `parts[cellStart[m] ..< cellStart[m + 1]]`, and entry e is `parts[e]` in its cell.
    ///
    /// Each reach's own location is exact without GEOS: its row's edges lie wholly left or wholly right of
    /// it, so the parity of those on the right that cross the row's middle line decides it.
    ///
    /// Parts are independent: runs of consecutive parts (cut by the data alone, so the same on any
    /// number of threads) are swept by whichever worker takes them, each into its own edges, so the
    /// lists are the same whatever `threads` is.
    static func build(vertices: UnsafeBufferPointer<Double>, partEdges: [[Range<Int>]], cells: [BorderCell], cellStart: [Int32],
                      parts: [Int32], originX: Double, originY: Double, side: Double, margin: Double,
                      threads: Int = 1) -> CrossingLists {
        // Entries by part, as one flat array (a counting sort), each with its cell: not an array per part,
        // nor a copy of every entry's cell (that was 27 MB of fresh memory on the bundled districts).
        let partCount = partEdges.count, entryCount = parts.count
        var partStart = [Int](repeating: 0, count: partCount + 1)
        for part in parts { partStart[Int(part) + 1] += 1 }
        for p in 0..<partCount { partStart[p + 1] += partStart[p] }
        // The entries first, then the order, which is freed when the sweep is done: so the spares the
        // order leaves join those after it, for the cell index's records.
        let found = LargeAllocation.allocate(Entry.self, count: entryCount)
        found.initialize(repeating: Entry())
        let partOrder = LargeAllocation.allocate(Candidate.self, count: max(1, entryCount))
        var fill = partStart
        for m in cells.indices {
            for e in Int(cellStart[m])..<Int(cellStart[m + 1]) {
                let p = Int(parts[e])
                partOrder[fill[p]] = Candidate(entry: Int32(e), cell: Int32(m))
                fill[p] += 1
            }
        }
        // Runs of parts with about equal numbers of entries: 64 of them, enough for the workers to finish
        // close together.
        var runList: [Range<Int>] = []
        let target = entryCount / 64 + 1
        var start = 0
        for p in 0..<partCount where partStart[p + 1] - partStart[start] >= target || p == partCount - 1 {
            runList.append(start..<(p + 1))
            start = p + 1
        }
        precondition(runList.count <= Int(UInt8.max) + 1, "a run's number is one byte")
        nonisolated(unsafe) let byPart = UnsafeBufferPointer(partOrder)
        let byPartStart = partStart, runs = runList
        // Shared read-only by the workers; each writes only its own runs' entries of `found`.
        nonisolated(unsafe) let shared = vertices, out = found
        let frame = Frame(originX: originX, originY: originY, side: side, margin: margin)
        /// @unchecked: a buffer is handed from the worker that wrote it to the caller, after the workers end.
        struct RunEdges: @unchecked Sendable { var buffer: UnsafeMutableBufferPointer<UInt32> }
        let results = BuildResults<RunEdges>(count: runs.count)
        let next = Mutex(0)
        let work: @Sendable (Int) -> Void = { _ in
            var sweep = PartSweep()
            // The worker's scratch, kept from run to run (grown once, not per run); each run's edges are
            // then copied to a buffer of their own size.
            var edges: [UInt32] = []
            while true {
                let r = next.withLock { (n: inout Int) -> Int in defer { n += 1 }; return n }
                guard r < runs.count else { return }
                edges.removeAll(keepingCapacity: true)
                for p in runs[r] where byPartStart[p] < byPartStart[p + 1] {
                    sweep.sweep(part: p, edgeRanges: partEdges[p],
                                candidates: UnsafeBufferPointer(rebasing: byPart[byPartStart[p]..<byPartStart[p + 1]]),
                                cells: cells, run: UInt8(r), frame: frame, vertices: shared, edges: &edges, into: out)
                }
                let own = LargeAllocation.allocate(UInt32.self, count: edges.count)
                _ = own.initialize(from: edges)
                results.set(r, RunEdges(buffer: own))
            }
        }
        let workers = max(1, min(threads, runs.count))
        if workers == 1 { work(0) } else { Workers.perform(iterations: workers) { work($0) } }
        LargeAllocation.free(partOrder)
        return CrossingLists(entries: found, runEdges: results.values().map(\.buffer))
    }

    /// The grid the entries' cells are in.
    private struct Frame {
        var originX: Double, originY: Double, side: Double, margin: Double
    }

    /// An edge filed in the row bucket `bucket`.
    private struct Filed {
        var bucket: Int32
        var clipped: Clipped
    }

    /// One worker's scratch for sweeping parts, kept from part to part so that a part costs no
    /// allocation: the rows the part's entries need, its edges filed into those rows (one flat array,
    /// bucket after bucket, each sorted by x0), and each bucket's widest edge. A struct in the worker's
    /// own variable, not a class: a class's arrays pay a run-time exclusivity check on every access
    /// (swift_beginAccess was 2 % of a whole build's instructions).
    private struct PartSweep {
        /// Levels are below this (a cell tree is at most 20 deep).
        static let levelLimit = 32
        /// Per level: the lowest and highest row the part's entries need there, and where its marks begin.
        var lowRow = [Int32](repeating: 0, count: levelLimit), highRow = [Int32](repeating: 0, count: levelLimit)
        var markStart = [Int](repeating: 0, count: levelLimit)
        /// Per level, a bit per row from its lowest to its highest: set where an entry needs the row.
        var marks: [UInt64] = []
        /// Distinct levels, ascending; level l's rows are `rows[levelStart[l] ..< levelStart[l + 1]]`, and
        /// a row's bucket is its index in `rows`.
        var levels: [Int8] = []
        var levelStart: [Int] = []
        var rows: [Int32] = []
        var filed: [Filed] = []
        var bucketStart: [Int] = []
        var sorted: [Clipped] = []
        var widest: [Double] = []
        /// Per sorted edge: whether an odd number of the edges from it to its bucket's end cross the row's
        /// middle line (the reach's parity, whatever gap the reach is in).
        var suffixParity: [Bool] = []
        var cellSide: [Double] = []
        var cursor: [Int] = []
        var at: [Int] = []

        /// The lists of part p's entries (`candidates`, in `cells`), appended to `edges` and written into
        /// `found`.
        mutating func sweep(part p: Int, edgeRanges: [Range<Int>], candidates: UnsafeBufferPointer<Candidate>, cells: [BorderCell],
                            run: UInt8, frame: Frame,
                            vertices: UnsafeBufferPointer<Double>, edges: inout [UInt32], into found: UnsafeMutableBufferPointer<Entry>) {
            let originX = frame.originX, originY = frame.originY, side = frame.side, margin = frame.margin
            // The rows the part's entries need, per level (a border cell of an adaptive tree may sit at any
            // level), sorted: an edge is filed by a binary search for the first needed row it may meet, so a
            // long edge costs the rows it serves, not every row it spans at the finest level. Sorted and
            // made distinct by marking them in a bitmap per level over the part's span of rows there, and
            // reading the marks in order: sorting the entries' keys was 1.4 % of a bundled build.
            for l in 0..<Self.levelLimit { lowRow[l] = .max; highRow[l] = .min }
            for c in candidates {
                let cell = cells[Int(c.cell)], l = Int(cell.level)
                lowRow[l] = min(lowRow[l], cell.row)
                highRow[l] = max(highRow[l], cell.row)
            }
            // Level l's marks: a word per 64 rows from its lowest to its highest.
            func markWords(_ l: Int) -> Int { (Int(highRow[l]) - Int(lowRow[l])) / 64 + 1 }
            marks.removeAll(keepingCapacity: true)
            for l in 0..<Self.levelLimit where lowRow[l] <= highRow[l] {
                markStart[l] = marks.count
                marks.append(contentsOf: repeatElement(0, count: markWords(l)))
            }
            for c in candidates {
                let cell = cells[Int(c.cell)], l = Int(cell.level)
                let i = Int(cell.row) - Int(lowRow[l])
                marks[markStart[l] + i >> 6] |= 1 << UInt64(i & 63)
            }
            levels.removeAll(keepingCapacity: true)
            levelStart.removeAll(keepingCapacity: true)
            rows.removeAll(keepingCapacity: true)
            for l in 0..<Self.levelLimit where lowRow[l] <= highRow[l] {
                levels.append(Int8(l))
                levelStart.append(rows.count)
                for w in 0..<markWords(l) {
                    var bits = marks[markStart[l] + w]
                    while bits != 0 {
                        rows.append(lowRow[l] + Int32(64 * w + bits.trailingZeroBitCount))
                        bits &= bits - 1
                    }
                }
            }
            levelStart.append(rows.count)
            // Per level: its cells' side, and where the last edge's search ended (the next edge of a ring
            // starts where the last one ended, so its first row is usually at or beside that one).
            cellSide.removeAll(keepingCapacity: true)
            cursor.removeAll(keepingCapacity: true)
            for l in levels.indices {
                cellSide.append(side / Double(1 << Int(levels[l])))
                cursor.append(levelStart[l])
            }

            filed.removeAll(keepingCapacity: true)
            rows.withUnsafeBufferPointer { rows in
                for range in edgeRanges {
                    for k in range {
                        let x1 = vertices[2 * k], y1 = vertices[2 * k + 1], x2 = vertices[2 * k + 2], y2 = vertices[2 * k + 3]
                        let lo = min(y1, y2), hi = max(y1, y2)
                        for l in levels.indices {
                            let cell = cellSide[l]
                            let r0 = Int32(clamping: Int(((lo - margin - originY) / cell).rounded(.down)) - 1)
                            let r1 = Int32(clamping: Int(((hi + margin - originY) / cell).rounded(.down)) + 1)
                            var i = CrossingLists.firstIndex(notBelow: r0, in: rows, from: levelStart[l], to: levelStart[l + 1],
                                                             near: cursor[l])
                            cursor[l] = i
                            while i < levelStart[l + 1], rows[i] <= r1 {
                                let row = rows[i]
                                defer { i += 1 }
                                let bandLo = originY + Double(row) * cell - margin, bandHi = originY + Double(row + 1) * cell + margin
                                if hi < bandLo || lo > bandHi { continue }
                                // The edge's x-extent within the band, widened so rounding cannot shrink it.
                                var cx0 = min(x1, x2), cx1 = max(x1, x2)
                                if y1 != y2 {
                                    let t0 = max(0, min(1, (bandLo - y1) / (y2 - y1))), t1 = max(0, min(1, (bandHi - y1) / (y2 - y1)))
                                    let a = x1 + t0 * (x2 - x1), b = x1 + t1 * (x2 - x1)
                                    let slack = 1e-9 + 1e-12 * (abs(x1) + abs(x2))
                                    cx0 = max(cx0, min(a, b) - slack)
                                    cx1 = min(cx1, max(a, b) + slack)
                                }
                                // Whether the edge crosses the row's middle line by GEOS's half-open rule: what the
                                // reach's parity counts (see `suffixParity`).
                                let yMid = originY + (Double(row) + 0.5) * cell
                                let crosses = (y1 > yMid && y2 <= yMid) || (y2 > yMid && y1 <= yMid)
                                filed.append(Filed(bucket: Int32(i), clipped: Clipped(x0: cx0, x1: cx1, edge: UInt32(k), crosses: crosses)))
                            }
                        }
                    }
                }
            }
            // Bucket after bucket (a counting sort, which keeps the edges' order), then each bucket by x0,
            // ties by edge: the order the lists take their edges in.
            bucketStart.removeAll(keepingCapacity: true)
            bucketStart.append(contentsOf: repeatElement(0, count: rows.count + 1))
            for f in filed { bucketStart[Int(f.bucket) + 1] += 1 }
            for b in 0..<rows.count { bucketStart[b + 1] += bucketStart[b] }
            sorted.removeAll(keepingCapacity: true)
            sorted.append(contentsOf: repeatElement(Clipped(x0: 0, x1: 0, edge: 0, crosses: false), count: filed.count))
            suffixParity.removeAll(keepingCapacity: true)
            suffixParity.append(contentsOf: repeatElement(false, count: filed.count))
            widest.removeAll(keepingCapacity: true)
            widest.append(contentsOf: repeatElement(0, count: rows.count))
            bucketStart.withUnsafeBufferPointer { starts in
                suffixParity.withUnsafeMutableBufferPointer { parity in sorted.withUnsafeMutableBufferPointer { out in
                    at.removeAll(keepingCapacity: true)
                    at.append(contentsOf: starts.dropLast())
                    for f in filed {
                        out[at[Int(f.bucket)]] = f.clipped
                        at[Int(f.bucket)] += 1
                    }
                    // Sorted by x0, with the row's widest edge: a sweep from x starts at the first edge whose
                    // x0 is at least x - widest (every edge before it ends left of x), not at the row's west
                    // end, so the many cells along one row (a border that runs east-west) do not each scan
                    // the whole row.
                    for b in 0..<(starts.count - 1) {
                        // A total order (an edge is filed once per row), so any sort gives the same lists.
                        let bucket = UnsafeMutableBufferPointer(rebasing: out[starts[b]..<starts[b + 1]])
                        bucket.sortShort(by: Clipped.before)
                        var w = 0.0
                        var odd = false
                        for k in bucket.indices.reversed() {
                            let c = bucket[k]
                            w = max(w, c.x1 - c.x0)
                            if c.crosses { odd.toggle() }
                            parity[starts[b] + k] = odd  // `bucket` counts from 0
                        }
                        // Widened: a larger value only starts the sweep earlier, so rounding cannot skip an edge.
                        widest[b] = w * (1 + 1e-9) + 1e-9
                    }
                } }
            }
            sorted.withUnsafeBufferPointer { all in rows.withUnsafeBufferPointer { rows in
                // The last entry's level, row bucket and first edge: where this one's are looked for from.
                var lastL = -1, lastB = 0, lastK = 0
                for c in candidates {
                    let e = Int(c.entry), entry = cells[Int(c.cell)]
                    let l = lastL >= 0 && levels[lastL] == entry.level ? lastL : levels.firstIndex(of: entry.level)!
                    let b = l == lastL
                        ? CrossingLists.firstIndex(notBelow: entry.row, in: rows, from: levelStart[l], to: levelStart[l + 1], near: lastB)
                        : CrossingLists.firstIndex(notBelow: entry.row, in: rows, from: levelStart[l], to: levelStart[l + 1])
                    let bucket = UnsafeBufferPointer(rebasing: all[bucketStart[b]..<bucketStart[b + 1]])
                    let cell = side / Double(1 << Int(entry.level))
                    let cellX0 = originX + Double(entry.column) * cell - margin
                    let start = l == lastL && b == lastB
                        ? CrossingLists.firstIndex(x0NotBelow: cellX0 - widest[b], in: bucket, near: lastK)
                        : CrossingLists.firstIndex(x0NotBelow: cellX0 - widest[b], in: bucket)
                    lastL = l; lastB = b; lastK = start
                    var frontier = originX + Double(entry.column + 1) * cell + margin
                    let first = edges.count
                    var xR: Double?
                    var gap = bucket.endIndex  // the first edge right of the reach
                    for k in start..<bucket.endIndex {
                        let c = bucket[k]
                        if c.x1 < cellX0 { continue }  // wholly left of the cell: never right of a point in it
                        if c.x0 > frontier && c.x0 - frontier > 1e-9 {
                            xR = frontier + (c.x0 - frontier) / 2
                            gap = k
                            break
                        }
                        edges.append(c.edge)
                        frontier = max(frontier, c.x1)
                    }
                    let inside: Bool
                    if let xR {
                        found[e].reach = xR
                        // Every edge of the row lies wholly left of the reach (those before the gap end at or
                        // before the frontier) or wholly right (from the gap on, by x0), within the band
                        // that holds the row's middle line: so the edges GEOS's ray from (xR, yMid) crosses
                        // are exactly those from the gap on that cross that line, and their count is exact
                        // without a side test (the crossing lies right of xR whatever the rounding).
                        inside = suffixParity[bucketStart[b] + gap]
                    } else {
                        // Right of every edge of the row: outside.
                        found[e].reach = frontier + 1
                        inside = false
                    }
                    if edges.count - first > maxListed {
                        // A long straight edge along the row (a border on a parallel) or a huge polygon makes a
                        // list of thousands; GEOS's own index is the better tool for those few cells.
                        edges.removeSubrange(first...)
                        continue
                    }
                    found[e].inside = inside
                    found[e].list = first..<edges.count
                    found[e].run = run
                }
            } }
        }
    }

    /// The first index in `from ..< to` of the sorted `a` whose value is at least `v` (`to` when none is).
    private static func firstIndex(notBelow v: Int32, in a: UnsafeBufferPointer<Int32>, from: Int, to: Int) -> Int {
        boundary(from: from, to: to) { a[$0] < v }
    }

    /// ``firstIndex(notBelow:in:from:to:)``, looked for from `near` (see ``boundary(from:to:near:below:)``).
    @inline(__always)
    private static func firstIndex(notBelow v: Int32, in a: UnsafeBufferPointer<Int32>, from: Int, to: Int, near: Int) -> Int {
        boundary(from: from, to: to, near: near) { a[$0] < v }
    }

    /// The first index of `a` (sorted by x0) whose x0 is at least `x` (`a.endIndex` when none is).
    private static func firstIndex(x0NotBelow x: Double, in a: UnsafeBufferPointer<Clipped>) -> Int {
        boundary(from: a.startIndex, to: a.endIndex) { a[$0].x0 < x }
    }

    /// ``firstIndex(x0NotBelow:in:)``, looked for from `near` (see ``boundary(from:to:near:below:)``).
    @inline(__always)
    private static func firstIndex(x0NotBelow x: Double, in a: UnsafeBufferPointer<Clipped>, near: Int) -> Int {
        boundary(from: a.startIndex, to: a.endIndex, near: near) { a[$0].x0 < x }
    }

    /// The first index in `from ..< to` where `below` is false (`to` when it never is), for a `below` true
    /// on a prefix of the range and false after it (a sorted array's lower bound), by halving.
    @inline(__always)
    private static func boundary(from: Int, to: Int, below: (Int) -> Bool) -> Int {
        var lo = from, hi = to
        while lo < hi {
            let mid = (lo + hi) / 2
            if below(mid) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// ``boundary(from:to:below:)``, looked for from `near` (in `from ... to`) outwards, in steps that
    /// double, and then by halving within the last step: the same answer in a few steps when it lies at or
    /// beside `near`. The sweep's searches mostly do: a ring's next edge needs the rows its last one
    /// needed, and a part's next entry is mostly in its last one's row, a few cells along (the searches
    /// over the whole level were a fifth of the sweep).
    @inline(__always)
    private static func boundary(from: Int, to: Int, near: Int, below: (Int) -> Bool) -> Int {
        var lo: Int, hi: Int
        if near < to && below(near) {
            // After `near`. `below` holds before lo; hi is `to` or `below` fails there.
            lo = near + 1
            hi = lo
            var step = 1
            while hi < to && below(hi) {
                lo = hi + 1
                hi = min(to, lo + step)
                step <<= 1
            }
        } else {
            // At or before `near`. hi is `to` or `below` fails there; lo is `from` or `below` holds there.
            hi = near
            var step = 1
            lo = max(from, hi - step)
            while lo > from && !below(lo) {
                hi = lo
                step <<= 1
                lo = max(from, hi - step)
            }
        }
        return boundary(from: lo, to: hi, below: below)
    }

    /// An edge filed in a row, with its x-extent within the row.
    private struct Clipped {
        var x0: Double, x1: Double
        var edge: UInt32
        /// Whether the edge crosses its row's middle line (y1 > yMid ≥ y2 or y2 > yMid ≥ y1).
        var crosses: Bool

        /// The sweep's order: by x0, ties by edge (the order they were filed in, so the same as a stable sort).
        @inline(__always)
        static func before(_ a: Clipped, _ b: Clipped) -> Bool { a.x0 < b.x0 || (a.x0 == b.x0 && a.edge < b.edge) }
    }

    /// An entry, in the order of the parts the sweep takes them in: its number, and its border cell.
    private struct Candidate {
        var entry: Int32
        var cell: Int32
    }
}
