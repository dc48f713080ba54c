/// One loaded shapefile, ready to answer: the polygons, an R-tree over their boxes, and the resolved
/// placemark of every unit. Immutable after load, so it is shared by all threads.
final class LayerIndex: Sendable {
    let level: AdminLevel
    let file: String
    /// One per unit (record with geometry), fully resolved: coarser levels, fallback, dataset name.
    let placemarks: [Placemark]
    /// The polygons (multipolygon records contribute one per part), in unit order.
    let parts: [Geometry]
    /// The unit each polygon belongs to.
    let partUnit: [Int32]
    /// Index of `parts[0]` among all polygons of the geocoder: slot in each thread's prepared cache.
    let partOffset: Int
    let tree: PackedRTree
    /// True when some polygon extends east of 180° (an antimeridian-crossing unit moved into one frame).
    let hasWrappedParts: Bool

    init(level: AdminLevel, file: String, placemarks: [Placemark], parts: [Geometry], partUnit: [Int32], partOffset: Int) {
        self.level = level
        self.file = file
        self.placemarks = placemarks
        self.parts = parts
        self.partUnit = partUnit
        self.partOffset = partOffset
        var builder = PackedRTree.Builder()
        var wrapped = false
        for part in parts {
            let (minX, minY, maxX, maxY) = part.envelope
            builder.add(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            if maxX > 180 { wrapped = true }
        }
        tree = builder.finish()
        hasWrappedParts = wrapped
    }

    /// The unit containing (x, y), by the boundary rule: the lowest-numbered unit whose interior
    /// contains the point; if none, the lowest-numbered unit whose boundary it lies on; else nil.
    /// "Lowest-numbered" is record order in the file, so a point on a shared border always resolves to
    /// exactly one unit, the same one on every run and every thread.
    func locate(x: Double, y: Double, in context: QueryContext) -> Int? {
        context.candidates.removeAll(keepingCapacity: true)
        tree.search(x: x, y: y, into: &context.candidates)
        let direct = context.candidates.count
        // West of 180° the point may also be inside a unit stored east of 180° (see RingAssembler).
        if hasWrappedParts && x < 0 { tree.search(x: x + 360, y: y, into: &context.candidates) }
        if context.candidates.isEmpty { return nil }
        // Each candidate is tested with the point in its own frame; pack (part, frame) to sort once.
        var keyed = context.keyed
        keyed.removeAll(keepingCapacity: true)
        for (i, part) in context.candidates.enumerated() {
            keyed.append(Int(part) << 1 | (i < direct ? 0 : 1))
        }
        if keyed.count > 1 { keyed.sort() }
        defer { context.keyed = keyed }

        let point = context.point(x: x, y: y)
        let wrappedPoint = direct < context.candidates.count ? context.point(x: x + 360, y: y, slot: 1) : nil
        for key in keyed {
            let part = key >> 1
            let p = key & 1 == 0 ? point : wrappedPoint!
            if context.prepared(partOffset + part, parts[part]).containsProperly(p) { return Int(partUnit[part]) }
        }
        for key in keyed {
            let part = key >> 1
            let p = key & 1 == 0 ? point : wrappedPoint!
            if context.prepared(partOffset + part, parts[part]).covers(p) { return Int(partUnit[part]) }
        }
        return nil
    }
}
