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
    /// polygon before its rings are read (a layer checked on first use checks it there; see
    /// ``LayerFirstUse/prepareBoxes()``).
    static func wholePolygons<E: Error>(_ layer: LayerIndex, tree: PackedRTree, x: Double, y: Double, maxMetres: Double,
                                        heap: inout MinHeap, prepare: (Int) throws(E) -> Void) throws(E) -> NearestUnit? {
        guard tree.count > 0, maxMetres > 0 else { return nil }
        let bound = SphereBound(x: x, y: y)
        let scale = LocalFrame.scale(latitude: y)
        let vertices = layer.store.vertices
        var best: NearestUnit?
        var limit = maxMetres
        var reach = EdgeReach(metres: limit, latitude: y)
        heap.removeAll()
        let root = tree.levelBounds[tree.levelBounds.count - 1] - 1
        heap.push(.init(bound: bound.metres(to: tree.boxes[root]), slot: root, level: tree.levelBounds.count - 1))
        while let e = heap.pop() {
            if e.bound > limit { break }
            if e.level == 0 {
                let part = Int(tree.indices[e.slot])
                try prepare(part)
                let unit = Int(layer.partUnit[part])
                var d = Double.infinity
                EdgeChunks.forEachChunk(of: part, in: layer.store) { first, count, box in
                    guard bound.metres(to: box) <= limit else { return }
                    let shift = SphereBound.shift(x, toward: box)
                    d = min(d, EdgeChunks.metres(vertices, first: first, count: count,
                                                 frame: LocalFrame(x0: x + shift, y0: y, scale: scale), reach: reach))
                }
                if d <= limit, best.map({ d < $0.metres || (d == $0.metres && unit < $0.unit) }) ?? true {
                    best = NearestUnit(unit: unit, metres: d)
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
                let b = bound.metres(to: tree.boxes[pos])
                if b <= limit { heap.push(.init(bound: b, slot: pos, level: level - 1)) }
            }
        }
        return best
    }
}
