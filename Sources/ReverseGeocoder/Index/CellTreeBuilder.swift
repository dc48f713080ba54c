import Dispatch
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
}

/// What every worker of one build reads and nobody writes: the layer's edges and boxes, in raw memory
/// so the inner loops do no reference counting and no bounds checks. Freed by whoever made it, after
/// the build. @unchecked Sendable: immutable while workers read it.
final class CellBuildInputs: @unchecked Sendable {
    let segments: UnsafeMutableBufferPointer<BuildSegment>
    /// Part p's segments are `segments[segStart[p] ..< segStart[p + 1]]`.
    let segStart: [Int32]
    let boxes: UnsafeMutableBufferPointer<Box>
    let unitOf: [Int32]
    let baseDepth: Int, maxDepth: Int, maxEdges: Int

    init(store: PolygonStore, unitOf: [Int32], baseDepth: Int, maxDepth: Int, maxEdges: Int) {
        var count = 0
        for p in 0..<store.count { for r in store.edgeRanges(p) { count += r.count } }
        segments = .allocate(capacity: max(1, count))
        boxes = .allocate(capacity: max(1, store.count))
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
        self.unitOf = unitOf
        self.baseDepth = baseDepth; self.maxDepth = maxDepth; self.maxEdges = maxEdges
    }

    deinit {
        segments.deallocate()
        boxes.deallocate()
    }
}

/// Pushes the edges of a layer's polygons down a quadtree (see ``CellIndex``), depth first, with one
/// stack for the whole recursion instead of arrays per cell.
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
    /// GEOS's exact interior test of a part at a point, for this builder's worker.
    let containsProperly: (Int, Double, Double) -> Bool
    var tree = CellTree()
    // The stack: a frame is a range of entries; entry e is part stackParts[e] with segments
    // stackSegs[stackSegEnd[e - 1] ..< stackSegEnd[e]] (0 for the first entry).
    var stackParts: [Int32] = []
    var stackSegEnd: [Int32] = []
    var stackSegs: [Int32] = []
    /// Cells at this level that need splitting are left to a subtree (`subtrees`) instead of recursing;
    /// `Int.max` in a subtree's own builder.
    let splitAt: Int
    var subtrees: [Subtree] = []
    /// Border cells and subtrees in the depth-first order a single recursion would meet them.
    var pieces: [Piece] = []

    /// A cell left to a parallel worker: subdivide it from its frame (its parts and their segments).
    struct Subtree {
        /// Where its node goes in the top tree's `nodes`.
        var slot: Int
        var x0: Double, y0: Double, side: Double
        var level: Int, column: Int, row: Int
        var parts: [Int32], segEnd: [Int32], segs: [Int32]
    }

    /// A border cell of the top tree, or a subtree, in depth-first order.
    enum Piece {
        case border(Int)
        case subtree(Int)
    }

    init(inputs: CellBuildInputs, splitAt: Int, containsProperly: @escaping (Int, Double, Double) -> Bool) {
        self.inputs = inputs
        self.splitAt = splitAt
        self.containsProperly = containsProperly
    }

    /// The whole tree over the square (originX, originY, side), the subtrees below ``splitLevel`` built
    /// by up to `threads` workers. `containsProperly(worker, part, x, y)` is called by worker
    /// 0 ..< threads, never twice at once for one worker (GEOS contexts are not thread-safe).
    static func build(inputs: CellBuildInputs, threads: Int, originX: Double, originY: Double, side: Double,
                      containsProperly: @escaping @Sendable (Int, Int, Double, Double) -> Bool) -> CellTree {
        var top = CellTreeBuilder(inputs: inputs, splitAt: splitLevel) { containsProperly(0, $0, $1, $2) }
        // Root: every part with all its segments, as the first frame of the stack.
        for p in 0..<inputs.boxes.count {
            top.stackParts.append(Int32(p))
            top.stackSegs.append(contentsOf: inputs.segStart[p]..<inputs.segStart[p + 1])
            top.stackSegEnd.append(Int32(top.stackSegs.count))
        }
        top.tree.nodes = [0, 0, 0, 0]
        top.subdivide(node: 0, x0: originX, y0: originY, side: side, level: 0, column: 0, row: 0, frame: 0..<inputs.boxes.count)

        let jobs = top.subtrees
        let results = BuildResults<CellTree>(count: jobs.count)
        let next = Mutex(0)
        let workers = max(1, min(threads, jobs.count))
        @Sendable func work(_ worker: Int) {
            while true {
                let j = next.withLock { (n: inout Int) -> Int in defer { n += 1 }; return n }
                guard j < jobs.count else { return }
                let job = jobs[j]
                var b = CellTreeBuilder(inputs: inputs, splitAt: .max) { containsProperly(worker, $0, $1, $2) }
                b.stackParts = job.parts; b.stackSegEnd = job.segEnd; b.stackSegs = job.segs
                b.tree.nodes = [0, 0, 0, 0]
                b.subdivide(node: 0, x0: job.x0, y0: job.y0, side: job.side, level: job.level, column: job.column, row: job.row,
                            frame: 0..<job.parts.count)
                results.set(j, b.tree)
            }
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { work($0) }
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

    /// Fills the four children of `node`, whose cell is (x0, y0, side) at `level`, given the stack
    /// frame of parts (with their segments) that reach the cell.
    mutating func subdivide(node: Int, x0: Double, y0: Double, side: Double, level: Int, column: Int, row: Int,
                            frame: Range<Int>) {
        let half = side / 2
        let boxes = inputs.boxes, segments = inputs.segments
        for child in 0..<4 {
            let cx0 = x0 + (child & 1 == 1 ? half : 0), cy0 = y0 + (child & 2 == 2 ? half : 0)
            let childColumn = 2 * column + (child & 1), childRow = 2 * row + (child >> 1)
            let m = CellIndex.margin
            let cell = Box(minX: cx0 - m, minY: cy0 - m, maxX: cx0 + half + m, maxY: cy0 + half + m)
            let childStart = stackParts.count
            let segBase = stackSegs.count
            var crossed = false
            for e in frame {
                let p = Int(stackParts[e])
                if boxes[p].isDisjoint(from: cell) { continue }
                let from = e == 0 ? 0 : Int(stackSegEnd[e - 1]), to = Int(stackSegEnd[e])
                for k in from..<to where Self.segmentMayTouch(segments[Int(stackSegs[k])], cell) {
                    stackSegs.append(stackSegs[k])
                    crossed = true
                }
                stackParts.append(Int32(p))
                stackSegEnd.append(Int32(stackSegs.count))
            }
            let childFrame = childStart..<stackParts.count
            let slot = 4 * node + child
            if !crossed {
                // No edge near the cell: each reaching part holds all of it or none of it. Parts are
                // in ascending order, so the first that holds it is the lowest-numbered unit.
                let cx = cx0 + half / 2, cy = cy0 + half / 2
                var best: Int32 = -1
                for e in childFrame where containsProperly(Int(stackParts[e]), cx, cy) {
                    best = inputs.unitOf[Int(stackParts[e])]
                    break
                }
                if best < 0 {
                    tree.nodes[slot] = CellIndex.tagEmpty << 30
                    tree.emptyCells += 1
                } else {
                    tree.nodes[slot] = CellIndex.tagUnit << 30 | UInt32(best)
                    tree.unitCells += 1
                }
            } else if level + 1 >= inputs.maxDepth || (level + 1 >= inputs.baseDepth && stackSegs.count - segBase <= inputs.maxEdges) {
                tree.nodes[slot] = CellIndex.tagMixed << 30 | UInt32(tree.mixedCells.count)
                pieces.append(.border(tree.mixedCells.count))
                tree.mixedParts += stackParts[childFrame]
                tree.mixedStart.append(Int32(tree.mixedParts.count))
                tree.mixedCells.append(BorderCell(column: Int32(childColumn), row: Int32(childRow), level: Int8(level + 1)))
            } else if level + 1 == splitAt {
                // Left to a worker; its slot stays "empty" until the merge grafts the subtree on.
                tree.nodes[slot] = CellIndex.tagEmpty << 30
                pieces.append(.subtree(subtrees.count))
                subtrees.append(Subtree(slot: slot, x0: cx0, y0: cy0, side: half, level: level + 1, column: childColumn, row: childRow,
                                        parts: Array(stackParts[childFrame]),
                                        segEnd: stackSegEnd[childFrame].map { $0 - Int32(segBase) },
                                        segs: Array(stackSegs[segBase...])))
            } else {
                let childNode = tree.nodes.count / 4
                tree.nodes.append(contentsOf: repeatElement(0, count: 4))  // no temporary array per node
                tree.nodes[slot] = CellIndex.tagNode << 30 | UInt32(childNode)
                subdivide(node: childNode, x0: cx0, y0: cy0, side: half, level: level + 1, column: childColumn,
                          row: childRow, frame: childFrame)
            }
            // Pop the child's frame.
            stackParts.removeLast(stackParts.count - childStart)
            stackSegEnd.removeLast(stackSegEnd.count - childStart)
            stackSegs.removeLast(stackSegs.count - segBase)
        }
    }

    /// Whether the segment may touch the box: false only when the box lies clearly on one side.
    @inline(__always)
    static func segmentMayTouch(_ s: BuildSegment, _ b: Box) -> Bool {
        let x1 = s.x1, y1 = s.y1, x2 = s.x2, y2 = s.y2
        let bx0 = b.minX, by0 = b.minY, bx1 = b.maxX, by1 = b.maxY
        if min(x1, x2) > bx1 || max(x1, x2) < bx0 || min(y1, y2) > by1 || max(y1, y2) < by0 { return false }
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
