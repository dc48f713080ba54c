import Synchronization

/// A border cell of the plain tree: its level, and its column and row in the grid of that level.
struct BorderCell {
    var column: Int32, row: Int32
    var level: Int8
}

/// One ring edge as the builder tests it against cells: both ends, together (one cache line holds two
/// edges; four separate coordinate arrays made each test touch four lines).
struct BuildSegment {
    var x1: Double, y1: Double, x2: Double, y2: Double
}

/// The plain quadtree (four children per node) a ``CellIndex`` is made from, with its border cells in
/// depth-first order: what ``CellTreeBuilder`` makes, for the whole tree or for one subtree.
struct CellTree {
    /// Node n's four children are entries 4n ..< 4n + 4 (2-bit tag + 30-bit value, as ``CellIndex``'s).
    var nodes: [UInt32] = []
    /// Border cell m's candidate parts are `mixedParts[mixedStart[m] ..< mixedStart[m + 1]]`.
    var mixedStart: [Int32] = [0]
    var mixedParts: [Int32] = []
    var mixedCells: [BorderCell] = []
    var unitCells = 0, emptyCells = 0

    /// Room for the tree of a layer with `segments` segments, as measured on the bundled districts (per
    /// segment: 2.6 node entries, 0.74 border cells, 1.8 candidates) with a margin. Grown by doubling
    /// instead, these arrays were a fifth of a build's page faults and copied themselves on the way;
    /// room reserved and never written costs no memory (the pages are never touched).
    mutating func reserve(segments: Int) {
        nodes.reserveCapacity(3 * segments + 4)
        mixedStart.reserveCapacity(segments + 1)
        mixedParts.reserveCapacity(2 * segments)
        mixedCells.reserveCapacity(segments)
    }
}

/// What every worker of one build reads and nobody writes: the layer's edges and boxes, in raw memory
/// so the inner loops do no reference counting and no bounds checks. Freed by whoever made it, after
/// the build. @unchecked Sendable: immutable while workers read it.
final class CellBuildInputs: @unchecked Sendable {
    let segments: UnsafeMutableBufferPointer<BuildSegment>
    /// Part p's segments are `segments[segStart[p] ..< segStart[p + 1]]`.
    let segStart: [Int32]
    let boxes: UnsafeMutableBufferPointer<Box>
    /// Part p's unit. Raw memory, as the edges: an array here was retained and released by every
    /// ``CellTreeBuilder/unitsOfEdgelessChildren`` call (632,647 on the bundled districts).
    let unitOf: UnsafeMutableBufferPointer<Int32>
    let baseDepth: Int, maxDepth: Int, maxEdges: Int
    /// The edgeless cells' centre test without GEOS.
    let bands: PartBands

    init(store: PolygonStore, unitOf: [Int32], baseDepth: Int, maxDepth: Int, maxEdges: Int) {
        var count = 0
        for p in 0..<store.count { for r in store.edgeRanges(p) { count += r.count } }
        segments = LargeAllocation.allocate(BuildSegment.self, count: max(1, count))
        boxes = LargeAllocation.allocate(Box.self, count: max(1, store.count))
        var starts: [Int32] = [0]
        starts.reserveCapacity(store.count + 1)
        let v = store.vertices
        var n = 0
        for p in 0..<store.count {
            boxes[p] = store.envelope(p)
            for range in store.edgeRanges(p) {
                for k in range {
                    segments[n] = BuildSegment(x1: v[2 * k], y1: v[2 * k + 1], x2: v[2 * k + 2], y2: v[2 * k + 3])
                    n += 1
                }
            }
            precondition(n < Int(Int32.max), "too many edges for one layer")
            starts.append(Int32(n))
        }
        segStart = starts
        bands = PartBands(segments: segments, segStart: starts, boxes: boxes)
        self.unitOf = .allocate(capacity: max(1, unitOf.count))
        _ = self.unitOf.initialize(from: unitOf)
        self.baseDepth = baseDepth; self.maxDepth = maxDepth; self.maxEdges = maxEdges
    }

    deinit {
        unitOf.deallocate()
        LargeAllocation.free(segments)
        LargeAllocation.free(boxes)
        bands.free()
    }
}

/// Pushes the edges of a layer's polygons down a quadtree (see ``CellIndex``), depth first: a cell's
/// four children's frames are made in one pass over its own, written straight into memory the builder
/// keeps per level (``LevelStore``), kept while the children are visited.
///
/// In parallel: the tree's cells at ``splitLevel`` that need splitting become subtrees, each built by
/// its own builder on whichever worker takes it (``CellTreeBuilder/build(inputs:threads:origin:side:containsProperly:)``).
/// Which cells those are, and the order everything is merged in, depend on the data alone, never on
/// the number of threads, so the tree (and the cache written from it) is the same byte for byte on
/// one core or many, and the same as a build that never splits: border cells keep the depth-first
/// order of a single recursion.
struct CellTreeBuilder {
    /// The level whose cells become the parallel subtrees: 4^4 = 256 at most, enough pieces for two to
    /// a few dozen workers to finish close together, few enough that copying their edge lists is
    /// cheap (each part's edges are copied once per subtree they reach).
    static let splitLevel = 4

    let inputs: CellBuildInputs
    /// Each segment's ``SegmentHome`` in this build's square, owned by ``build``.
    let homes: UnsafePointer<SegmentHome>
    /// GEOS's exact interior test of a part at a point, for this builder's worker.
    let containsProperly: (Int, Double, Double) -> Bool
    var tree = CellTree()
    /// One ``LevelStore`` per level 0 ... maxDepth: the children of the cell being split at level l are
    /// written into `levels[l]`, which stays as it is while they are visited (their own children go into
    /// `levels[l + 1]`). Raw memory, not arrays of arrays in `self`: the children's frames cost plain
    /// stores, no append with its uniqueness and capacity checks, no retain of a frame per child, and no
    /// run-time exclusivity check (a class's stored arrays paid one per access). Freed by ``release()``.
    let levels: UnsafeMutablePointer<LevelStore>
    let levelCount: Int
    /// Cells at this level that need splitting are left to a subtree (`subtrees`) instead of recursing;
    /// `Int.max` in a subtree's own builder.
    let splitAt: Int
    var subtrees: [Subtree] = []
    /// Border cells and subtrees in the depth-first order a single recursion would meet them, for the
    /// merge: kept only by a builder that splits subtrees off (``splitAt``).
    var pieces: [Piece] = []
    /// Scratch of unitsOfEdgelessChildren, reused: room for `memoCapacity` entries. Freed by ``release()``.
    var memo: UnsafeMutablePointer<MemoEntry>
    var memoCapacity = 64

    /// The parts that reach a cell, each with the segments that may touch it: part `parts[i]` has
    /// segments `segs[segEnd[i - 1] ..< segEnd[i]]` (from 0 for the first). A view of memory owned
    /// elsewhere (a ``LevelStore``, or an ``OwnedFrame`` for the root and the subtrees).
    ///
    /// `known[i]` is what is known of the cell's centre against part `parts[i]` when the part has no
    /// segment in the cell (``Status``): no edge of it comes near the cell, so the whole cell, and every
    /// cell inside it, is inside the part or outside it, and a test anywhere in it says which.
    struct Frame {
        var parts: UnsafePointer<Int32>, segEnd: UnsafePointer<Int32>, segs: UnsafePointer<Int32>
        var known: UnsafePointer<UInt8>
        var partCount: Int

        var segCount: Int { partCount == 0 ? 0 : Int(segEnd[partCount - 1]) }
    }

    /// A frame in arrays of its own: the root's, and a subtree's, which outlives the level memory it
    /// was made in.
    struct OwnedFrame {
        var parts: [Int32] = [], segEnd: [Int32] = [], segs: [Int32] = []
        var known: [UInt8] = []

        init(parts: [Int32], segEnd: [Int32], segs: [Int32]) {
            self.parts = parts; self.segEnd = segEnd; self.segs = segs
            known = [UInt8](repeating: Status.unknown, count: parts.count)
        }

        init(copying f: Frame) {
            parts = Array(UnsafeBufferPointer(start: f.parts, count: f.partCount))
            segEnd = Array(UnsafeBufferPointer(start: f.segEnd, count: f.partCount))
            segs = Array(UnsafeBufferPointer(start: f.segs, count: f.segCount))
            known = Array(UnsafeBufferPointer(start: f.known, count: f.partCount))
        }

        func withFrame<R>(_ body: (Frame) -> R) -> R {
            parts.withUnsafeBufferPointer { p in
                segEnd.withUnsafeBufferPointer { e in
                    segs.withUnsafeBufferPointer { s in
                        known.withUnsafeBufferPointer { k in
                            // Never nil: an empty array still has a base address here, but be safe for count 0.
                            let none = UnsafePointer<Int32>(bitPattern: MemoryLayout<Int32>.alignment)!
                            return body(Frame(parts: p.baseAddress ?? none, segEnd: e.baseAddress ?? none, segs: s.baseAddress ?? none,
                                              known: k.baseAddress ?? UnsafePointer(bitPattern: 1)!, partCount: p.count))
                        }
                    }
                }
            }
        }
    }

    /// A ``Frame/known`` value.
    enum Status {
        static let unknown: UInt8 = 0, outside: UInt8 = 1, inside: UInt8 = 2
    }

    /// The four children's frames of one cell: child c's parts are `parts[c * partCapacity ...]`, its
    /// segment ends `segEnd[c * partCapacity ...]` and its segments `segs[c * segCapacity ...]`. A child
    /// holds at most its parent's parts and segments, so room for the parent's counts per child is
    /// enough; grown (the old contents are dead by then) when a larger cell comes to this level.
    struct LevelStore {
        var parts: UnsafeMutablePointer<Int32>?, segEnd: UnsafeMutablePointer<Int32>?, segs: UnsafeMutablePointer<Int32>?
        var known: UnsafeMutablePointer<UInt8>?
        var partCapacity = 0, segCapacity = 0

        mutating func reserve(parts p: Int, segs s: Int) {
            if p > partCapacity || parts == nil {
                free(parts, 4 * partCapacity); free(segEnd, 4 * partCapacity)
                if let known { LargeAllocation.free(UnsafeMutableBufferPointer(start: known, count: 4 * partCapacity)) }
                partCapacity = max(p, 2 * partCapacity, 16)
                parts = LargeAllocation.allocate(Int32.self, count: 4 * partCapacity).baseAddress
                segEnd = LargeAllocation.allocate(Int32.self, count: 4 * partCapacity).baseAddress
                known = LargeAllocation.allocate(UInt8.self, count: 4 * partCapacity).baseAddress
            }
            if s > segCapacity || segs == nil {
                free(segs, 4 * segCapacity)
                segCapacity = max(s, 2 * segCapacity, 64)
                segs = LargeAllocation.allocate(Int32.self, count: 4 * segCapacity).baseAddress
            }
        }

        private func free(_ p: UnsafeMutablePointer<Int32>?, _ count: Int) {
            if let p { LargeAllocation.free(UnsafeMutableBufferPointer(start: p, count: count)) }
        }

        func free() {
            free(parts, 4 * partCapacity); free(segEnd, 4 * partCapacity); free(segs, 4 * segCapacity)
            if let known { LargeAllocation.free(UnsafeMutableBufferPointer(start: known, count: 4 * partCapacity)) }
        }

        /// Child c's frame, given its number of parts.
        @inline(__always)
        func child(_ c: Int, partCount: Int) -> Frame {
            Frame(parts: parts! + c * partCapacity, segEnd: segEnd! + c * partCapacity, segs: segs! + c * segCapacity,
                  known: known! + c * partCapacity, partCount: partCount)
        }
    }

    /// A cell left to a parallel worker: subdivide it from its frame.
    struct Subtree {
        /// Where its node goes in the top tree's `nodes`.
        var slot: Int
        var x0: Double, y0: Double, side: Double
        var level: Int, column: Int, row: Int
        var frame: OwnedFrame
    }

    /// A border cell of the top tree, or a subtree, in depth-first order.
    enum Piece {
        case border(Int)
        case subtree(Int)
    }

    init(inputs: CellBuildInputs, homes: UnsafePointer<SegmentHome>, splitAt: Int,
         containsProperly: @escaping (Int, Double, Double) -> Bool) {
        self.inputs = inputs
        self.homes = homes
        self.splitAt = splitAt
        self.containsProperly = containsProperly
        levelCount = inputs.maxDepth + 1
        levels = .allocate(capacity: levelCount)
        levels.initialize(repeating: LevelStore(), count: levelCount)
        memo = .allocate(capacity: memoCapacity)
    }

    /// Frees the level memory; the builder is not used after.
    func release() {
        for l in 0..<levelCount { levels[l].free() }
        levels.deinitialize(count: levelCount)
        levels.deallocate()
        memo.deallocate()
    }

    /// The whole tree over the square (originX, originY, side), the subtrees below ``splitLevel`` built
    /// by up to `threads` workers. `containsProperly(worker, part, x, y)` is called by worker
    /// 0 ..< threads, never twice at once for one worker (GEOS contexts are not thread-safe).
    static func build(inputs: CellBuildInputs, threads: Int, originX: Double, originY: Double, side: Double,
                      containsProperly: @escaping @Sendable (Int, Int, Double, Double) -> Bool) -> CellTree {
        // On one thread nothing is split off: the subtrees' frame copies and the merge (which copies the
        // whole tree once more) would buy nothing, and the tree is the same either way (see the type's
        // comment; ``CellIndex`` renumbers the nodes as it widens them, in an order of its own).
        let homeBuffer = SegmentHome.homes(of: inputs.segments, originX: originX, originY: originY, side: side,
                                           margin: CellIndex.margin, maxLevel: inputs.maxDepth)
        defer { LargeAllocation.free(homeBuffer) }
        // Shared read-only by the workers.
        nonisolated(unsafe) let homes = UnsafePointer(homeBuffer.baseAddress!)
        var top = CellTreeBuilder(inputs: inputs, homes: homes, splitAt: threads > 1 ? splitLevel : .max) {
            containsProperly(0, $0, $1, $2)
        }
        // Root: every part with all its segments.
        let root = OwnedFrame(parts: (0..<Int32(inputs.boxes.count)).map { $0 }, segEnd: Array(inputs.segStart.dropFirst()),
                              segs: (0..<(inputs.segStart.last ?? 0)).map { $0 })
        top.tree.nodes = [0, 0, 0, 0]
        if threads == 1 { top.tree.reserve(segments: inputs.segments.count) }
        root.withFrame { top.subdivide(node: 0, x0: originX, y0: originY, side: side, level: 0, column: 0, row: 0, frame: $0) }
        top.release()
        if top.subtrees.isEmpty { return top.tree }

        let jobs = top.subtrees
        let results = BuildResults<CellTree>(count: jobs.count)
        let next = Mutex(0)
        let workers = max(1, min(threads, jobs.count))
        @Sendable func work(_ worker: Int) {
            var b = CellTreeBuilder(inputs: inputs, homes: homes, splitAt: .max) { containsProperly(worker, $0, $1, $2) }
            defer { b.release() }
            while true {
                let j = next.withLock { (n: inout Int) -> Int in defer { n += 1 }; return n }
                guard j < jobs.count else { return }
                let job = jobs[j]
                b.tree = CellTree()
                b.tree.nodes = [0, 0, 0, 0]
                job.frame.withFrame {
                    b.subdivide(node: 0, x0: job.x0, y0: job.y0, side: job.side, level: job.level, column: job.column, row: job.row,
                                frame: $0)
                }
                results.set(j, b.tree)
            }
        }
        if workers == 1 {
            work(0)
        } else {
            Workers.perform(iterations: workers) { work($0) }
        }
        return merge(top, subtrees: results.values())
    }
    /// The top tree with its subtrees grafted on: border cells renumbered in depth-first order, each
    /// subtree's nodes appended after the top's.
    private static func merge(_ top: CellTreeBuilder, subtrees: [CellTree]) -> CellTree {
        var out = CellTree()
        out.unitCells = top.tree.unitCells + subtrees.reduce(0) { $0 + $1.unitCells }
        out.emptyCells = top.tree.emptyCells + subtrees.reduce(0) { $0 + $1.emptyCells }
        let borders = top.tree.mixedCells.count + subtrees.reduce(0) { $0 + $1.mixedCells.count }
        out.mixedCells.reserveCapacity(borders)
        out.mixedStart.reserveCapacity(borders + 1)
        out.mixedParts.reserveCapacity(top.tree.mixedParts.count + subtrees.reduce(0) { $0 + $1.mixedParts.count })
        var topBorder = [UInt32](repeating: 0, count: top.tree.mixedCells.count)
        var subtreeBorderBase = [UInt32](repeating: 0, count: subtrees.count)
        func appendBorders(_ t: CellTree, _ range: Range<Int>) {
            for m in range {
                out.mixedParts += t.mixedParts[Int(t.mixedStart[m])..<Int(t.mixedStart[m + 1])]
                out.mixedStart.append(Int32(out.mixedParts.count))
                out.mixedCells.append(t.mixedCells[m])
            }
        }
        for piece in top.pieces {
            switch piece {
            case .border(let m):
                topBorder[m] = UInt32(out.mixedCells.count)
                appendBorders(top.tree, m..<(m + 1))
            case .subtree(let s):
                subtreeBorderBase[s] = UInt32(out.mixedCells.count)
                appendBorders(subtrees[s], 0..<subtrees[s].mixedCells.count)
            }
        }
        precondition(out.mixedCells.count < 1 << 30 && out.mixedParts.count < Int(Int32.max), "too many border cells for one layer")
        out.nodes.reserveCapacity(top.tree.nodes.count + subtrees.reduce(0) { $0 + $1.nodes.count })
        out.nodes = top.tree.nodes
        for k in out.nodes.indices where out.nodes[k] >> 30 == CellIndex.tagMixed {
            out.nodes[k] = CellIndex.tagMixed << 30 | topBorder[Int(out.nodes[k] & 0x3FFF_FFFF)]
        }
        for (s, t) in subtrees.enumerated() {
            let nodeBase = UInt32(out.nodes.count / 4), borderBase = subtreeBorderBase[s]
            precondition(out.nodes.count / 4 + t.nodes.count / 4 < 1 << 30, "too many cells for one layer")
            out.nodes[top.subtrees[s].slot] = CellIndex.tagNode << 30 | nodeBase
            for e in t.nodes {
                switch e >> 30 {
                case CellIndex.tagNode: out.nodes.append(e &+ nodeBase)
                case CellIndex.tagMixed: out.nodes.append(e &+ borderBase)
                default: out.nodes.append(e)
                }
            }
        }
        return out
    }

    /// Fills the four children of `node`, whose cell is (x0, y0, side) at `level`, given the frame of
    /// parts (with their segments) that reach the cell.
    mutating func subdivide(node: Int, x0: Double, y0: Double, side: Double, level: Int, column: Int, row: Int,
                            frame: Frame) {
        let half = side / 2
        let boxes = inputs.boxes, segments = inputs.segments
        let children = ChildCells(x0: x0, y0: y0, half: half, margin: CellIndex.margin)
        // The four children's frames in one pass over this cell's (each segment read once, not once per
        // child), each segment and part written with a plain store straight into this level's memory.
        levels[level].reserve(parts: frame.partCount, segs: frame.segCount)
        let store = levels[level]
        let partCapacity = store.partCapacity, segCapacity = store.segCapacity
        let o0 = store.segs!, o1 = o0 + segCapacity, o2 = o1 + segCapacity, o3 = o2 + segCapacity
        let q0 = store.parts!, q1 = q0 + partCapacity, q2 = q1 + partCapacity, q3 = q2 + partCapacity
        let e0 = store.segEnd!, e1 = e0 + partCapacity, e2 = e1 + partCapacity, e3 = e2 + partCapacity
        let k0 = store.known!, k1 = k0 + partCapacity, k2 = k1 + partCapacity, k3 = k2 + partCapacity
        var written = SIMD4<Int64>(repeating: 0)  // segments written per child
        let lanes = SIMD4<Int64>(0, 1, 2, 3)
        var p0 = 0, p1 = 0, p2 = 0, p3 = 0  // parts written per child
        let parts = frame.parts, segEnd = frame.segEnd, segs = frame.segs, known = frame.known
        var from = 0
        for i in 0..<frame.partCount {
            let to = Int(segEnd[i])
            defer { from = to }
            let p = parts[i]
            // Which children the part's box reaches.
            let reaching = children.reached(by: boxes[Int(p)])
            guard any(reaching) else { continue }
            let before = written
            for k in from..<to {
                let seg = segs[k]
                // Most segments lie well inside one child: their home says which, without the tests.
                let home = homes[Int(seg)]
                let touched = level < Int(home.level)
                    ? lanes .== SIMD4<Int64>(repeating: Int64(home.child(splitting: level)))
                    : children.touched(by: segments[Int(seg)], among: reaching)
                // Written at every child's next slot, kept (its count moves on) where it may touch the child:
                // plain stores, no branch per child.
                o0[Int(written[0])] = seg; o1[Int(written[1])] = seg; o2[Int(written[2])] = seg; o3[Int(written[3])] = seg
                written &+= SIMD4<Int64>(repeating: 0).replacing(with: 1, where: touched)
            }
            let n0 = Int(written[0]), n1 = Int(written[1]), n2 = Int(written[2]), n3 = Int(written[3])
            let r0 = reaching[0], r1 = reaching[1], r2 = reaching[2], r3 = reaching[3]
            // What is known of the part here holds in every child it has no segment in (all of them, when
            // it has none here).
            let status = known[i]
            let b0 = Int(before[0]), b1 = Int(before[1]), b2 = Int(before[2]), b3 = Int(before[3])
            // The part goes to every child its box reaches, even with no segment there (an edgeless
            // child's candidates).
            @inline(__always) func file(_ reaches: Bool, _ q: UnsafeMutablePointer<Int32>, _ e: UnsafeMutablePointer<Int32>,
                                        _ kn: UnsafeMutablePointer<UInt8>, _ np: inout Int, _ n: Int, _ b: Int) {
                guard reaches else { return }
                q[np] = p
                e[np] = Int32(truncatingIfNeeded: n)
                kn[np] = n == b ? status : Status.unknown
                np &+= 1
            }
            file(r0, q0, e0, k0, &p0, n0, b0)
            file(r1, q1, e1, k1, &p1, n1, b1)
            file(r2, q2, e2, k2, &p2, n2, b2)
            file(r3, q3, e3, k3, &p3, n3, b3)
        }
        let partCounts = SIMD4<Int>(p0, p1, p2, p3)
        let segCounts = SIMD4<Int>(truncatingIfNeeded: written)
        // The children that are split in turn (not a leaf: neither edgeless nor a border cell).
        var splits = SIMD4<Int>(repeating: 0)
        for c in 0..<4 where segCounts[c] > 0
            && !(level + 1 >= inputs.maxDepth || (level + 1 >= inputs.baseDepth && segCounts[c] <= inputs.maxEdges)) {
            splits[c] = 1
        }
        let held = unitsOfEdgelessChildren(store, partCounts: partCounts, segCounts: segCounts, splits: splits, x0: x0, y0: y0,
                                           half: half)
        for child in 0..<4 {
            let cx0 = x0 + (child & 1 == 1 ? half : 0), cy0 = y0 + (child & 2 == 2 ? half : 0)
            let childColumn = 2 * column + (child & 1), childRow = 2 * row + (child >> 1)
            let childFrame = store.child(child, partCount: partCounts[child])
            let childSegs = segCounts[child]
            let slot = 4 * node + child
            if childSegs == 0 {
                let best = held[child]
                if best < 0 {
                    tree.nodes[slot] = CellIndex.tagEmpty << 30
                    tree.emptyCells += 1
                } else {
                    tree.nodes[slot] = CellIndex.tagUnit << 30 | UInt32(best)
                    tree.unitCells += 1
                }
            } else if level + 1 >= inputs.maxDepth || (level + 1 >= inputs.baseDepth && childSegs <= inputs.maxEdges) {
                tree.nodes[slot] = CellIndex.tagMixed << 30 | UInt32(tree.mixedCells.count)
                if splitAt != .max { pieces.append(.border(tree.mixedCells.count)) }  // only a merge reads them
                tree.mixedParts.append(contentsOf: UnsafeBufferPointer(start: childFrame.parts, count: childFrame.partCount))
                tree.mixedStart.append(Int32(tree.mixedParts.count))
                tree.mixedCells.append(BorderCell(column: Int32(childColumn), row: Int32(childRow), level: Int8(level + 1)))
            } else if level + 1 == splitAt {
                // Left to a worker; its slot stays "empty" until the merge grafts the subtree on.
                tree.nodes[slot] = CellIndex.tagEmpty << 30
                pieces.append(.subtree(subtrees.count))
                subtrees.append(Subtree(slot: slot, x0: cx0, y0: cy0, side: half, level: level + 1, column: childColumn, row: childRow,
                                        frame: OwnedFrame(copying: childFrame)))
            } else {
                let childNode = tree.nodes.count / 4
                tree.nodes.append(contentsOf: repeatElement(0, count: 4))  // no temporary array per node
                tree.nodes[slot] = CellIndex.tagNode << 30 | UInt32(childNode)
                subdivide(node: childNode, x0: cx0, y0: cy0, side: half, level: level + 1, column: childColumn,
                          row: childRow, frame: childFrame)
            }
        }
    }

    /// For each child that no edge comes near, the unit holding it (-1: none); untouched lanes for the
    /// others. Such a child lies wholly inside or wholly outside each reaching part, so GEOS's exact test
    /// of its centre decides it, which ``PartBands`` gives without GEOS (GEOS only where it cannot be
    /// sure); parts are in ascending order, so the first that holds it is the lowest-numbered unit.
    ///
    /// Siblings share answers: when two children are both edgeless and part p reaches both, no edge of
    /// p comes within the margin of either cell (the edge tests err only towards "touches"), and the
    /// two cells grown by half the margin overlap, so one connected region free of p's edges holds both
    /// centres: p holds both or neither (GEOS's containsProperly is exact away from the boundary). So
    /// GEOS is asked once per part and parent, not once per part and child. Each child's answers are
    /// kept in ascending part order (a run of `memo`), so a later child walks the earlier
    /// ones' lists alongside its own parts.
    ///
    /// The answers found are also passed on (``Frame/known``) to the parts of the children in `splits`
    /// (those split in turn) that have no segment there: such a child and an edgeless sibling, grown,
    /// overlap, and no edge of the part comes near either, so the part holds both or neither; and then
    /// every cell inside the child, so the levels below need not ask again.
    private mutating func unitsOfEdgelessChildren(_ store: LevelStore, partCounts: SIMD4<Int>, segCounts: SIMD4<Int>,
                                                  splits: SIMD4<Int>, x0: Double, y0: Double, half: Double) -> SIMD4<Int32> {
        // Room for every edgeless child's answers: at most one per part reaching it.
        var room = 0
        for c in 0..<4 where segCounts[c] == 0 { room += partCounts[c] }
        if room > memoCapacity {
            memo.deallocate()
            memoCapacity = max(room, 2 * memoCapacity)
            memo = .allocate(capacity: memoCapacity)
        }
        let memo = self.memo
        let boxes = inputs.boxes, unitOf = inputs.unitOf, segments = inputs.segments
        var held = SIMD4<Int32>(repeating: -1)
        // Per earlier edgeless child (in the order met): where its answers begin and end in `memo`. Plain
        // memory indexed by number, not SIMD lanes: a lane written one at a time and read back as a vector
        // stalled on every store (store forwarding), 5 % of a build's time.
        var starts = InlineArray<4, Int>(repeating: 0), ends = InlineArray<4, Int>(repeating: 0)
        var earlier = 0
        var count = 0  // entries written
        for c in 0..<4 where segCounts[c] == 0 {
            let cx = x0 + (c & 1 == 1 ? half : 0) + half / 2, cy = y0 + (c & 2 == 2 ? half : 0) + half / 2
            let first = count
            var at = starts  // per earlier child: its next memo entry to compare with
            let child = store.child(c, partCount: partCounts[c])
            var answer: Int32 = -1
            for i in 0..<child.partCount {
                let p = child.parts[i]
                var known: Bool? = child.known[i] == Status.unknown ? nil : child.known[i] == Status.inside
                for e in 0..<earlier where known == nil {
                    var k = at[e]
                    let end = ends[e]
                    while k < end && memo[k].part < p { k += 1 }
                    at[e] = k
                    if k < end && memo[k].part == p {
                        known = memo[k].holds
                        break
                    }
                }
                // A centre outside the part's box is outside the part (what GEOS and the bands would say,
                // after a scan of a band's edges): most reaching neighbours of an edgeless cell.
                let holds: Bool
                if let known {
                    holds = known
                } else {
                    let box = boxes[Int(p)]
                    let outside = cx < box.minX || cx > box.maxX || cy < box.minY || cy > box.maxY
                    holds = outside ? false : inputs.bands.interior(Int(p), cx, cy, segments: segments) ?? containsProperly(Int(p), cx, cy)
                }
                memo[count] = MemoEntry(part: p, holds: holds)
                count += 1
                if holds {
                    answer = unitOf[Int(p)]
                    break
                }
            }
            held[c] = answer
            starts[earlier] = first
            ends[earlier] = count
            earlier += 1
        }
        guard earlier > 0 else { return held }
        for c in 0..<4 where splits[c] != 0 {
            let child = store.child(c, partCount: partCounts[c])
            let known = store.known! + c * store.partCapacity
            var at = starts
            var from: Int32 = 0
            for i in 0..<child.partCount {
                let to = child.segEnd[i]
                defer { from = to }
                guard to == from, known[i] == Status.unknown else { continue }
                let p = child.parts[i]
                for e in 0..<earlier {
                    var k = at[e]
                    let end = ends[e]
                    while k < end && memo[k].part < p { k += 1 }
                    at[e] = k
                    if k < end && memo[k].part == p {
                        known[i] = memo[k].holds ? Status.inside : Status.outside
                        break
                    }
                }
            }
        }
        return held
    }

    /// One part's answer at an edgeless child's centre (see unitsOfEdgelessChildren).
    struct MemoEntry {
        var part: Int32
        var holds: Bool
    }

    /// Whether an end of the segment lies in the box (edges included). Then ``lineMayTouch`` is true:
    /// exactly, a line through a point of a box has the box's corners on both sides of it or on it (the
    /// point is a convex combination of the corners, and the side is linear in the corner), so the four
    /// exact cross products are not all of one strict sign; rounding moves each computed one by about three
    /// ulps of |dx|·|by − y1| + |dy|·|bx − x1|, under a tenth of lineMayTouch's tolerance even in a cell
    /// 360° wide, which cannot flip that.
    /// `CellTreeBuilderTests` checks the two agree on random segments and boxes.
    @inline(__always)
    static func endInside(_ s: BuildSegment, _ b: Box) -> Bool {
        (s.x1 >= b.minX && s.x1 <= b.maxX && s.y1 >= b.minY && s.y1 <= b.maxY)
            || (s.x2 >= b.minX && s.x2 <= b.maxX && s.y2 >= b.minY && s.y2 <= b.maxY)
    }

    /// Whether the segment may touch the box: false only when the box lies clearly on one side. The
    /// definition the builder computes for four children at once (``ChildCells``); the tests compare the two.
    @inline(__always)
    static func segmentMayTouch(_ s: BuildSegment, _ b: Box) -> Bool {
        let x1 = s.x1, y1 = s.y1, x2 = s.x2, y2 = s.y2
        let bx0 = b.minX, by0 = b.minY, bx1 = b.maxX, by1 = b.maxY
        if min(x1, x2) > bx1 || max(x1, x2) < bx0 || min(y1, y2) > by1 || max(y1, y2) < by0 { return false }
        return lineMayTouch(s, b)
    }

    /// segmentMayTouch past its box test: false only when the box's four corners lie clearly on one
    /// side of the segment's line.
    @inline(__always)
    static func lineMayTouch(_ s: BuildSegment, _ b: Box) -> Bool {
        let x1 = s.x1, y1 = s.y1, x2 = s.x2, y2 = s.y2
        let bx0 = b.minX, by0 = b.minY, bx1 = b.maxX, by1 = b.maxY
        let dx = x2 - x1, dy = y2 - y1
        let c1 = dx * (by0 - y1) - dy * (bx0 - x1)
        let c2 = dx * (by0 - y1) - dy * (bx1 - x1)
        let c3 = dx * (by1 - y1) - dy * (bx0 - x1)
        let c4 = dx * (by1 - y1) - dy * (bx1 - x1)
        // All four corners strictly on one side (by more than rounding could move them): no contact.
        let tolerance = 1e-12 * (abs(dx) + abs(dy) + 1) * (abs(bx1) + abs(by1) + abs(x1) + abs(y1) + 1)
        if c1 > tolerance && c2 > tolerance && c3 > tolerance && c4 > tolerance { return false }
        if c1 < -tolerance && c2 < -tolerance && c3 < -tolerance && c4 < -tolerance { return false }
        return true
    }
}

/// Results of parallel jobs, slot by slot. @unchecked: each slot is written by exactly one worker, under
/// the mutex, and read only after all of them joined.
final class BuildResults<T>: Sendable {
    /// @unchecked: T need not be Sendable; see above.
    private struct Slot: @unchecked Sendable { var value: T? }
    private let slots: Mutex<[Slot]>
    init(count: Int) { slots = Mutex(Array(repeating: Slot(value: nil), count: count)) }
    func set(_ i: Int, _ value: T) {
        let slot = Slot(value: value)
        slots.withLock { $0[i] = slot }
    }
    func values() -> [T] { slots.withLock { $0 }.map { $0.value! } }
}
