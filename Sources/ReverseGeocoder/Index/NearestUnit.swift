/// The unit of a layer nearest to a point outside all of them, and how far it is (metres on the sphere of
/// ``SphereBound/radius``, to a point of the unit's polygon: see ``NearestPoint``).
struct NearestUnit: Equatable, Sendable {
    var unit: Int
    var metres: Double

    /// The layer's unit nearest to (x, y) within `maxMetres`, or nil when none is that near.
    ///
    /// Best first over the layer's packed R-tree: nodes and polygons come off a heap by the least
    /// distance anything in their box can have (``SphereBound``), so the search stops at the first box
    /// farther than the best polygon found so far; only polygons whose box is within reach are measured
    /// exactly (GEOS, ``NearestPoint``, on the edges that can be within reach). Equal distances go to the
    /// lower-numbered unit, as the boundary rule of `LayerIndex.locate` does. The point must be outside
    /// every polygon of the layer (the fallback only asks then): the distance measured is to the rings.
    ///
    /// Throws when GEOS fails on a candidate polygon: never a "none near" in disguise.
    static func search(_ layer: LayerIndex, x: Double, y: Double, maxMetres: Double,
                       context: GEOSContext) throws(GEOSError) -> NearestUnit? {
        let tree = layer.tree
        guard tree.count > 0, maxMetres > 0 else { return nil }
        let bound = SphereBound(x: x, y: y)
        var best: NearestUnit?
        var limit = maxMetres
        var heap = MinHeap()
        let root = tree.levelBounds[tree.levelBounds.count - 1] - 1
        heap.push(.init(bound: bound.metres(to: tree.boxes[root]), slot: root, level: tree.levelBounds.count - 1))
        while let e = heap.pop() {
            if e.bound > limit { break }
            if e.level == 0 {
                let part = Int(tree.indices[e.slot])
                let box = tree.boxes[e.slot]
                let shift = SphereBound.shift(x, toward: box)
                guard let q = try NearestPoint.onRings(part, of: layer.store, x: x, y: y, shift: shift,
                                                       reach: EdgeReach(metres: limit, latitude: y), context: context) else { continue }
                let d = SphereBound.metres(x1: x + shift, y1: y, x2: q.x, y2: q.y)
                let unit = Int(layer.partUnit[part])
                if d <= limit, best.map({ d < $0.metres || (d == $0.metres && unit < $0.unit) }) ?? true {
                    best = NearestUnit(unit: unit, metres: d)
                    limit = d
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
