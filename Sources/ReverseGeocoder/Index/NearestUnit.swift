/// The unit of a layer nearest to a point outside all of them, and how far it is (metres on the sphere of
/// ``SphereBound/radius``, to a point of the unit's rings: see ``LocalFrame``).
struct NearestUnit: Equatable, Sendable {
    var unit: Int
    var metres: Double

    /// The layer's unit nearest to (x, y) within `maxMetres`, or nil when none is that near.
    ///
    /// A unit's distance is the least, over its ring edges, of the metres to the edge's nearest point in
    /// the query's local frame (``LocalFrame``); equal distances go to the lower-numbered unit, as the
    /// boundary rule of `LayerIndex.locate` does. The point must be outside every polygon of the layer
    /// (the fallback only asks then): the distance measured is to the rings.
    ///
    /// Once the layer's ``EdgeChunks`` are built, best first over their boxes (only the edges near the
    /// point are measured). Until then (the layer's first fallback queries, while a background build runs)
    /// best first over the polygons' R-tree, each polygon within reach measured chunk by chunk: the same
    /// chunks in the same frames, each skipped only when its box is beyond reach, so the same answer.
    static func search(_ layer: LayerIndex, x: Double, y: Double, maxMetres: Double, heap: inout MinHeap) -> NearestUnit? {
        guard maxMetres > 0 else { return nil }
        if let built = layer.edgeChunks.ready() {
            return built._withUnsafeGuaranteedRef {
                $0.chunks.nearest(x: x, y: y, maxMetres: maxMetres, vertices: layer.store.vertices, heap: &heap)
            }
        }
        layer.edgeChunks.request(store: layer.store, partUnit: layer.partUnit, owner: layer)
        return wholePolygons(layer, x: x, y: y, maxMetres: maxMetres, heap: &heap)
    }

    /// The search without chunks over the layer's own R-tree (its polygons already checked).
    static func wholePolygons(_ layer: LayerIndex, x: Double, y: Double, maxMetres: Double, heap: inout MinHeap) -> NearestUnit? {
        wholePolygons(layer, tree: layer.tree, x: x, y: y, maxMetres: maxMetres, heap: &heap) { _ in }
    }

    /// The search without chunks: best first over `tree` (the layer's R-tree of polygons), every chunk of a
    /// polygon within reach measured unless its own box is beyond reach. `prepare` is called with each
    /// polygon before its rings are read.
    /// `accept` is asked of each unit whose polygon is within reach, after `prepare`: the search keeps
    /// only the units it accepts (the border refinement's one country).
    static func wholePolygons<E: Error>(_ layer: LayerIndex, tree: PackedRTree, x: Double, y: Double, maxMetres: Double,
                                        heap: inout MinHeap, prepare: (Int) throws(E) -> Void,
                                        accept: (Int) -> Bool = { _ in true }) throws(E) -> NearestUnit? {
        guard tree.count > 0, maxMetres > 0 else { return nil }
        var search = PolygonSearch(layer, x: x, y: y, maxMetres: maxMetres)
        heap.removeAll()
        let root = tree.levelBounds[tree.levelBounds.count - 1] - 1
        heap.push(.init(bound: search.bound.metres(to: tree.boxes[root]), slot: root, level: tree.levelBounds.count - 1))
        while let e = heap.pop() {
            if e.bound > search.limit { break }
            if e.level == 0 {
                try search.measure(Int(tree.indices[e.slot]), prepare: prepare, accept: accept)
                continue
            }
            let level = e.level
            let childStart = Int(tree.indices[e.slot])
            let childEnd = min(childStart + tree.nodeSize, tree.levelBounds[level - 1])
            for pos in childStart..<childEnd {
                // Comparisons first: the sphere bound's sines and arcsine for every box were two thirds of
                // a border refinement's search (callgrind), and a search within a few kilometres rejects
                // nearly every box on latitude or longitude alone.
                guard search.reach.mayReach(x0: x, y0: y, box: tree.boxes[pos]) else { continue }
                let b = search.bound.metres(to: tree.boxes[pos])
                if b <= search.limit { heap.push(.init(bound: b, slot: pos, level: level - 1)) }
            }
        }
        return search.best
    }

    /// The same search without a tree: one pass over the polygons' boxes (`envelopes`, minX minY maxX maxY
    /// per polygon), the ones within reach then measured nearest box first. For a layer checked on first
    /// use, whose first fallback search would otherwise build the R-tree just for itself: a one-point run
    /// at a coast allocated some 20 MB for the trees of every admin layer (Sydney's harbour mouth peaked
    /// at 64 MB, against 48 MB on land). The answer is the tree walk's: both measure every polygon whose
    /// box bound is within the best distance found, and the result does not depend on the order.
    static func scanningBoxes<E: Error>(_ layer: LayerIndex, envelopes: UnsafeBufferPointer<Double>, x: Double, y: Double,
                                        maxMetres: Double, heap: inout MinHeap, prepare: (Int) throws(E) -> Void,
                                        accept: (Int) -> Bool = { _ in true }) throws(E) -> NearestUnit? {
        guard maxMetres > 0 else { return nil }
        var search = PolygonSearch(layer, x: x, y: y, maxMetres: maxMetres)
        heap.removeAll()
        for part in 0..<(envelopes.count / 4) {
            let box = Box(minX: envelopes[4 * part], minY: envelopes[4 * part + 1], maxX: envelopes[4 * part + 2], maxY: envelopes[4 * part + 3])
            guard search.reach.mayReach(x0: x, y0: y, box: box) else { continue }
            let b = search.bound.metres(to: box)
            if b <= maxMetres { heap.push(.init(bound: b, slot: part, level: 0)) }
        }
        while let e = heap.pop(), e.bound <= search.limit {
            try search.measure(e.slot, prepare: prepare, accept: accept)
        }
        return search.best
    }
}

/// One nearest-polygon search's state: the best unit so far, and the reach it sets for the rest.
private struct PolygonSearch {
    let layer: LayerIndex
    let x: Double, y: Double
    let bound: SphereBound
    let scale: Double
    var best: NearestUnit?
    var limit: Double
    var reach: EdgeReach

    init(_ layer: LayerIndex, x: Double, y: Double, maxMetres: Double) {
        self.layer = layer
        self.x = x
        self.y = y
        bound = SphereBound(x: x, y: y)
        scale = LocalFrame.scale(latitude: y)
        limit = maxMetres
        reach = EdgeReach(metres: maxMetres, latitude: y)
    }

    /// Measures polygon `part` (every chunk whose box is within reach) and keeps it if it is nearer, or
    /// as near and of a lower-numbered unit.
    mutating func measure<E: Error>(_ part: Int, prepare: (Int) throws(E) -> Void, accept: (Int) -> Bool) throws(E) {
        try prepare(part)
        let unit = Int(layer.partUnit[part])
        guard accept(unit) else { return }
        let vertices = layer.store.vertices
        var d = Double.infinity
        let (bound, limit, reach, x, y, scale) = (self.bound, self.limit, self.reach, self.x, self.y, self.scale)
        EdgeChunks.forEachChunk(of: part, in: layer.store) { first, count, box in
            guard reach.mayReach(x0: x, y0: y, box: box), bound.metres(to: box) <= limit else { return }
            let shift = SphereBound.shift(x, toward: box)
            d = min(d, EdgeChunks.metres(vertices, first: first, count: count,
                                         frame: LocalFrame(x0: x + shift, y0: y, scale: scale), reach: reach))
        }
        if d <= limit, best.map({ d < $0.metres || (d == $0.metres && unit < $0.unit) }) ?? true {
            best = NearestUnit(unit: unit, metres: d)
            if d < limit {
                self.limit = d
                self.reach = EdgeReach(metres: d, latitude: y)
            }
        }
    }
}
