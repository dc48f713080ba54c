/// A layer's ring edges in chunks of at most ``edgesPerChunk`` consecutive edges, each chunk's box in a
/// packed R-tree: the coast fallback's nearest-unit search measures only the edges of the chunks within
/// reach of the point, not every edge of every polygon whose box is within reach.
///
/// Why: the boxes of large polygons (Russia, Canada, Indonesia) cover much open sea, and a sea point in
/// such a box used to test every edge of the polygon (10⁵–10⁶ instructions a point). A chunk's box is a
/// few kilometres of coast: a point meets the dozen chunks near it.
///
/// Flat arrays (flatbush-like): for chunk c, its first vertex `first[c]` (an index into the store's
/// vertices), its edge count `edges[c]` (edges run from vertex k to k + 1 inside one ring) and its unit
/// `unit[c]`. About 47 bytes a chunk (36 for the box and index, 9 here, the nodes' share): 3.4 bytes a
/// vertex at 16 edges a chunk (measured on the bundled world layers). Built from the polygon store in milliseconds, when the fallback first
/// needs it (``EdgeChunksSlot``), so nothing of it is stored in the index cache.
struct EdgeChunks: Sendable {
    /// Edges per chunk (Benchmarks/results/coast-speed.md measured 8, 16 and 32; inconclusive at the load
    /// of that session, 16 kept for half the memory of 8): fewer means more boxes to pop off the heap,
    /// more means more edges measured per box.
    static let edgesPerChunk = 16

    let tree: PackedRTree
    let first: [UInt32]
    let edges: [UInt8]
    let unit: [Int32]

    /// Bytes the chunks take (for statistics).
    var bytes: Int { tree.boxes.count * (32 + 4) + first.count * 9 }

    /// Calls `body(first, edges, box)` for every chunk of polygon `part`, ring by ring: the one chunking
    /// the tree is built from and the whole-polygon search (``NearestUnit``) walks, so both measure the
    /// same edges in the same frames.
    @inline(__always)
    static func forEachChunk(of part: Int, in store: PolygonStore, edgesPerChunk n: Int = edgesPerChunk,
                             _ body: (Int, Int, Box) -> Void) {
        let v = store.vertices
        for ring in Int(store.partRings[part])..<Int(store.partRings[part + 1]) {
            let ringFirst = Int(store.ringStart[ring]), ringEnd = Int(store.ringStart[ring + 1])
            var k = ringFirst
            while k + 1 < ringEnd {
                let count = min(n, ringEnd - 1 - k)
                var box = Box.empty
                for j in k...(k + count) {
                    let x = v[2 * j], y = v[2 * j + 1]
                    box = Box(minX: min(box.minX, x), minY: min(box.minY, y), maxX: max(box.maxX, x), maxY: max(box.maxY, y))
                }
                body(k, count, box)
                k += count
            }
        }
    }

    /// The chunks of every polygon of `store` (`partUnit` giving each polygon's unit).
    static func build(store: PolygonStore, partUnit: UnsafeBufferPointer<Int32>, edgesPerChunk n: Int = edgesPerChunk) -> EdgeChunks {
        precondition(n >= 1 && n <= Int(UInt8.max))
        var builder = PackedRTree.Builder()
        var first: [UInt32] = [], edges: [UInt8] = [], unit: [Int32] = []
        let estimate = store.vertexCount / n + store.count
        first.reserveCapacity(estimate); edges.reserveCapacity(estimate); unit.reserveCapacity(estimate)
        for p in 0..<store.count {
            let u = partUnit[p]
            forEachChunk(of: p, in: store, edgesPerChunk: n) { k, count, box in
                builder.add(box)
                first.append(UInt32(k))
                edges.append(UInt8(count))
                unit.append(u)
            }
        }
        return EdgeChunks(tree: builder.finish(), first: first, edges: edges, unit: unit)
    }

    /// The nearest unit by a linear scan of every chunk, no tree (the brute force the tests hold
    /// ``nearest(x:y:maxMetres:vertices:heap:)`` and the whole-polygon search to): each chunk whose box
    /// bound is within reach is measured edge by edge, with no edge skipped.
    func nearestByScan(x: Double, y: Double, maxMetres: Double, vertices: UnsafeBufferPointer<Double>) -> NearestUnit? {
        let bound = SphereBound(x: x, y: y)
        let scale = LocalFrame.scale(latitude: y)
        let everything = EdgeReach(metres: .infinity, latitude: y)
        var best: NearestUnit?
        for slot in 0..<tree.count {
            let box = tree.boxes[slot]
            guard bound.metres(to: box) <= maxMetres else { continue }
            let c = Int(tree.indices[slot])
            let frame = LocalFrame(x0: x + SphereBound.shift(x, toward: box), y0: y, scale: scale)
            let d = Self.metres(vertices, first: Int(first[c]), count: Int(edges[c]), frame: frame, reach: everything)
            let u = Int(unit[c])
            if d <= maxMetres, best.map({ d < $0.metres || (d == $0.metres && u < $0.unit) }) ?? true {
                best = NearestUnit(unit: u, metres: d)
            }
        }
        return best
    }

    /// The least metres from the query to the edges `first ..< first + count` of `vertices`, each measured
    /// in `frame` (``LocalFrame``), or infinity when none may be within `reach` (edges provably beyond it
    /// are skipped: they cannot be the nearest of anything within reach).
    @inline(__always)
    static func metres(_ vertices: UnsafeBufferPointer<Double>, first: Int, count: Int, frame: LocalFrame,
                       reach: EdgeReach) -> Double {
        var best = Double.infinity
        var k = first
        let end = first + count
        var ax = vertices[2 * k], ay = vertices[2 * k + 1]
        while k < end {
            let bx = vertices[2 * k + 2], by = vertices[2 * k + 3]
            if reach.mayReach(x0: frame.x0, y0: frame.y0, ax: ax, ay: ay, bx: bx, by: by) {
                best = min(best, frame.metres(ax: ax, ay: ay, bx: bx, by: by))
            }
            ax = bx; ay = by
            k += 1
        }
        return best
    }

    /// The unit nearest (x, y) within `maxMetres` (see ``NearestUnit/search(_:x:y:maxMetres:)``), best first
    /// over the chunk boxes by ``SphereBound``'s lower bound: the search stops at the first box farther than
    /// the best edge found so far.
    func nearest(x: Double, y: Double, maxMetres: Double, vertices: UnsafeBufferPointer<Double>,
                 heap: inout MinHeap) -> NearestUnit? {
        guard tree.count > 0, maxMetres > 0 else { return nil }
        let bound = SphereBound(x: x, y: y)
        let scale = LocalFrame.scale(latitude: y)
        var best: NearestUnit?
        var limit = maxMetres
        var reach = EdgeReach(metres: limit, latitude: y)
        heap.removeAll()
        let root = tree.levelBounds[tree.levelBounds.count - 1] - 1
        heap.push(.init(bound: bound.metres(to: tree.boxes[root]), slot: root, level: tree.levelBounds.count - 1))
        while let e = heap.pop() {
            if e.bound > limit { break }
            if e.level == 0 {
                let c = Int(tree.indices[e.slot])
                let shift = SphereBound.shift(x, toward: tree.boxes[e.slot])
                let d = Self.metres(vertices, first: Int(first[c]), count: Int(edges[c]),
                                    frame: LocalFrame(x0: x + shift, y0: y, scale: scale), reach: reach)
                let u = Int(unit[c])
                if d <= limit, best.map({ d < $0.metres || (d == $0.metres && u < $0.unit) }) ?? true {
                    best = NearestUnit(unit: u, metres: d)
                    if d < limit {
                        limit = d
                        reach = EdgeReach(metres: limit, latitude: y)
                    }
                }
                continue
            }
            let level = e.level
            let childStart = Int(tree.indices[e.slot])
            let childEnd = min(childStart + tree.nodeSize, tree.levelBounds[level - 1])
            for pos in childStart..<childEnd {
                let box = tree.boxes[pos]
                guard reach.mayReach(x0: x, y0: y, box: box) else { continue }
                let b = bound.metres(to: box)
                if b <= limit { heap.push(.init(bound: b, slot: pos, level: level - 1)) }
            }
        }
        return best
    }
}
