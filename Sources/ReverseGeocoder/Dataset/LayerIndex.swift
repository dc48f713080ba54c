import CGEOS
#if canImport(Glibc)
import Glibc
#endif

/// One loaded shapefile, ready to answer: the polygons, an R-tree over their boxes, and the resolved
/// placemark of every unit. Immutable after load, so it is shared by all threads.
final class LayerIndex: Sendable {
    let level: AdminLevel
    let file: String
    /// One placemark per unit (record with geometry), fully resolved: coarser levels, fallback, dataset
    /// name. Kept in raw memory: reading one on the hot path then costs no reference counting of an array.
    nonisolated(unsafe) private let placemarkTable: UnsafeMutablePointer<Placemark>
    /// Number of units (and placemarks).
    let unitCount: Int
    /// The placemarks as an array (a copy: for loading and writing, not for queries).
    var placemarks: [Placemark] { Array(UnsafeBufferPointer(start: placemarkTable, count: unitCount)) }
    /// The polygons (multipolygon records contribute one per part), in unit order.
    let store: PolygonStore
    /// The unit each polygon belongs to.
    let partUnit: [Int32]
    /// Index of `parts[0]` among all polygons of the geocoder: slot in each thread's prepared cache.
    let partOffset: Int
    let tree: PackedRTree
    /// The cell quadtree answering most points without GEOS (nil when disabled).
    let cells: CellIndex?
    /// `cells` for the query path, unretained (`cells` owns it): passed on as a strong reference, it was
    /// retained and released on every border-cell query, atomic writes to one line shared by all threads.
    private let hotCells: Unmanaged<CellIndex>?
    /// True when some polygon extends east of 180° (an antimeridian-crossing unit moved into one frame).
    let hasWrappedParts: Bool

    /// A layer from its parts: the R-tree is built here (it takes milliseconds); `cells` is built by
    /// ``buildCells(store:partUnit:cellSize:)`` or mapped from the index cache.
    init(level: AdminLevel, file: String, placemarks: [Placemark], store: PolygonStore, partUnit: [Int32], partOffset: Int,
         cells: CellIndex?) {
        self.level = level
        self.file = file
        unitCount = placemarks.count
        placemarkTable = .allocate(capacity: max(1, placemarks.count))
        _ = UnsafeMutableBufferPointer(start: placemarkTable, count: placemarks.count).initialize(from: placemarks)
        self.store = store
        self.partUnit = partUnit
        self.partOffset = partOffset
        var builder = PackedRTree.Builder()
        var wrapped = false
        for p in 0..<store.count {
            let (minX, minY, maxX, maxY) = store.envelope(p)
            builder.add(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            if maxX > 180 { wrapped = true }
        }
        tree = builder.finish()
        hasWrappedParts = wrapped
        self.cells = cells
        hotCells = cells.map { Unmanaged.passUnretained($0) }
    }

    deinit {
        placemarkTable.deinitialize(count: unitCount)
        placemarkTable.deallocate()
    }

    /// Unit `unit`'s placemark.
    @inline(__always)
    func placemark(_ unit: Int) -> Placemark { placemarkTable[unit] }

    /// The cell quadtree (with its crossing lists) over a layer's polygons, leaves about `cellSize` wide.
    static func buildCells(store: PolygonStore, partUnit: [Int32], cellSize: Double) -> CellIndex? {
        guard store.count > 0 else { return nil }
        // One context and one reusable point for the whole build (this runs on the loading thread).
        let pointCache = QueryContext(partCount: 0)
        let context = pointCache.geos
        var prepared = [PreparedGeometry?](repeating: nil, count: store.count)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in 0..<store.count {
            let b = store.envelope(p)
            minX = min(minX, b.0); minY = min(minY, b.1); maxX = max(maxX, b.2); maxY = max(maxY, b.3)
        }
        // Deep enough that leaves are about cellSize wide: border cells then hold few points.
        let side = max(maxX - minX, maxY - minY, cellSize)
        let depth = min(20, max(1, Int((log2(side / cellSize)).rounded(.up))))
        return CellIndex(store: store, unitOf: partUnit, maxDepth: depth) { p, x, y in
            if prepared[p] == nil { prepared[p] = PreparedGeometry(store.geometry(p, context: context), context: context) }
            return prepared[p]!.containsProperly(pointCache.point(x: x, y: y))
        }
    }

    /// The unit containing (x, y), by the boundary rule: the lowest-numbered unit whose interior
    /// contains the point; if none, the lowest-numbered unit whose boundary it lies on; else nil.
    /// "Lowest-numbered" is record order in the file, so a point on a shared border always resolves to
    /// exactly one unit, the same one on every run and every thread.
    func locate(x: Double, y: Double, in context: QueryContext) -> Int? {
        if let hotCells {
            // nil: the cells cannot tell (both frames have candidates); the R-tree path below sorts it out.
            let found: Int?? = hotCells._withUnsafeGuaranteedRef { locate(x: x, y: y, cells: $0, in: context) }
            if let found { return found }
        }
        context.candidates.removeAll(keepingCapacity: true)
        tree.search(x: x, y: y, into: &context.candidates)
        let direct = context.candidates.count
        // West of 180° the point may also be inside a unit stored east of 180° (see RingAssembler).
        if hasWrappedParts && x < 0 { tree.search(x: x + 360, y: y, into: &context.candidates) }
        return test(x: x, y: y, direct: direct, in: context)
    }

    /// The cells' answer: `.some(unit)`, `.some(nil)` for no unit, or nil when both the point and its
    /// western twin have candidates, which the R-tree path decides.
    @inline(__always)
    private func locate(x: Double, y: Double, cells: CellIndex, in context: QueryContext) -> Int?? {
        let here = cells.answer(x: x, y: y)
        // West of 180° a unit stored east of 180° may hold the point too: ask for its twin as well.
        let twin: CellIndex.Answer = hasWrappedParts && x < 0 ? cells.answer(x: x + 360, y: y) : .empty
        switch (here, twin) {
        case (.empty, .empty): return .some(nil)
        case (.unit(let u), .empty): return u
        case (.empty, .unit(let u)): return u
        case (.candidates(let entries), .empty):
            return crossingTest(x: x, y: y, entries: entries, cells: cells, in: context)
        case (.empty, .candidates(let entries)):
            return crossingTest(x: x + 360, y: y, entries: entries, cells: cells, in: context)
        default:
            return nil
        }
    }

    /// Applies the boundary rule to a border cell's candidates by their crossing lists (exactly GEOS's
    /// answer, see CrossingLists); a candidate whose list cannot be sure of a point asks GEOS itself.
    @inline(__always)
    private func crossingTest(x: Double, y: Double, entries: Range<Int>, cells: CellIndex, in context: QueryContext) -> Int? {
        var onBoundary: Int?
        for r in cells.records(entries) {
            let part = cells.part(record: r)
            switch cells.locate(record: r, x: x, y: y) {
            case .interior: return Int(partUnit[part])
            case .exterior: continue
            case .boundary: break
            case .uncertain:
                let prepared = context.prepared(partOffset + part) { store.geometry(part, context: $0) }
                let point = context.point(x: x, y: y)
                if prepared.containsProperly(point) { return Int(partUnit[part]) }
                if !prepared.covers(point) { continue }
            }
            if onBoundary == nil { onBoundary = Int(partUnit[part]) }
        }
        return onBoundary
    }

    /// Applies the boundary rule with GEOS to `context.candidates` (the first `direct` are tested at x,
    /// the rest at x + 360).
    private func test(x: Double, y: Double, direct: Int, in context: QueryContext) -> Int? {
        if context.candidates.isEmpty { return nil }
        // Each candidate is tested with the point in its own frame; pack (part, frame) to sort once.
        // Take the buffer out of the context so it is uniquely referenced (no copy on mutation).
        var keyed = context.keyed
        context.keyed = []
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
            if context.prepared(partOffset + part, { store.geometry(part, context: $0) }).containsProperly(p) {
                return Int(partUnit[part])
            }
        }
        for key in keyed {
            let part = key >> 1
            let p = key & 1 == 0 ? point : wrappedPoint!
            if context.prepared(partOffset + part, { store.geometry(part, context: $0) }).covers(p) { return Int(partUnit[part]) }
        }
        return nil
    }
}
