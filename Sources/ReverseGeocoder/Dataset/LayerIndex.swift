#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One loaded shapefile, ready to answer: the polygons, an R-tree over their boxes, and the resolved
/// placemark of every unit. Immutable after load, so it is shared by all threads.
final class LayerIndex: Sendable {
    /// The records' level; nil in an overlay dataset.
    let level: AdminLevel?
    let file: String
    /// One placemark per unit (record with geometry), fully resolved: coarser levels, fallback, dataset
    /// name. Kept in raw memory: reading one on the hot path then costs no reference counting of an array.
    /// Empty for a layer checked on first use, whose placemarks `firstUse` decodes one by one.
    nonisolated(unsafe) private let placemarkTable: UnsafeMutablePointer<Placemark>
    /// Number of units (and placemarks).
    let unitCount: Int
    /// The placemarks as an array (a copy: for loading and writing, not for queries).
    var placemarks: [Placemark] {
        guard let firstUse else { return Array(UnsafeBufferPointer(start: placemarkTable, count: unitCount)) }
        return (0..<unitCount).map { u in
            do { try firstUse.preparePlacemark(u) } catch { preconditionFailure("index cache: \(error)") }
            return firstUse.placemark(u)!
        }
    }
    /// The polygons (multipolygon records contribute one per part), in unit order.
    let store: PolygonStore
    /// The unit each polygon belongs to (owned, or in the mapped index cache `owner` keeps alive).
    nonisolated(unsafe) let partUnit: UnsafeBufferPointer<Int32>
    private let owner: (any AnyObject & Sendable)?
    /// Index of `parts[0]` among all polygons of the geocoder: slot in each thread's prepared cache.
    let partOffset: Int
    /// The R-tree over the polygons' boxes; nil for a layer checked on first use (`firstUse` builds it
    /// once the boxes are checked).
    private let builtTree: PackedRTree?
    /// The cell quadtree answering most points without GEOS (nil when disabled).
    let cells: CellIndex?
    /// `cells` for the query path, unretained (`cells` owns it): passed on as a strong reference, it was
    /// retained and released on every border-cell query, atomic writes to one line shared by all threads.
    let hotCells: Unmanaged<CellIndex>?
    /// True when some polygon extends east of 180° (an antimeridian-crossing unit moved into one frame).
    let hasWrappedParts: Bool
    /// Each unit's populated place, when the layer's levels are the nearest place (manifest `place`).
    let places: PlaceTable?
    /// `places` for the query path, unretained (`places` owns it).
    let hotPlaces: Unmanaged<PlaceTable>?
    /// For a layer mapped from the index cache and checked as queries read it (see ``LayerFirstUse``).
    let firstUse: LayerFirstUse?
    /// The ring edges in chunks for the coast fallback, built when it first reaches the layer.
    let edgeChunks = EdgeChunksSlot()

    /// A layer from its parts: the R-tree is built here (it takes milliseconds); `cells` is built by
    /// ``buildCells(store:partUnit:cellSize:)`` or mapped from the index cache.
    convenience init(level: AdminLevel?, file: String, placemarks: [Placemark], store: PolygonStore, partUnit: [Int32], partOffset: Int,
                     cells: CellIndex?, places: PlaceTable? = nil) {
        let owned = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, partUnit.count))
        _ = owned.initialize(from: partUnit)
        self.init(level: level, file: file, placemarks: placemarks, store: store,
                  partUnit: UnsafeBufferPointer(rebasing: owned[0..<partUnit.count]), owner: nil, partOffset: partOffset, cells: cells,
                  places: places)
    }

    /// A layer whose unit table is `partUnit`: owned (freed in deinit) when `owner` is nil, else in
    /// memory `owner` keeps alive (an index cache checked at load).
    init(level: AdminLevel?, file: String, placemarks: [Placemark], store: PolygonStore, partUnit: UnsafeBufferPointer<Int32>,
         owner: (any AnyObject & Sendable)?, partOffset: Int, cells: CellIndex?, places: PlaceTable? = nil) {
        precondition(places == nil || places!.count == placemarks.count, "one place per unit")
        self.level = level
        self.places = places
        hotPlaces = places.map { Unmanaged.passUnretained($0) }
        self.file = file
        unitCount = placemarks.count
        placemarkTable = .allocate(capacity: max(1, placemarks.count))
        _ = UnsafeMutableBufferPointer(start: placemarkTable, count: placemarks.count).initialize(from: placemarks)
        self.store = store
        self.partUnit = partUnit
        self.owner = owner
        self.partOffset = partOffset
        var builder = PackedRTree.Builder()
        var wrapped = false
        for p in 0..<store.count {
            let box = store.envelope(p)
            builder.add(box)
            if box.maxX > 180 { wrapped = true }
        }
        builtTree = builder.finish()
        hasWrappedParts = wrapped
        self.cells = cells
        hotCells = cells.map { Unmanaged.passUnretained($0) }
        firstUse = nil
    }

    /// A layer of an index cache mapped but not checked: it reads nothing here, and every query checks
    /// what it reads first (``LayerFirstUse``); `wrapped` comes from the cache's checked metadata.
    init(level: AdminLevel?, file: String, units: Int, firstUse: LayerFirstUse, store: PolygonStore,
         partUnit: UnsafeBufferPointer<Int32>, partOffset: Int, cells: CellIndex?, wrapped: Bool, places: PlaceTable?) {
        precondition(places == nil || places!.count == units, "one place per unit")
        self.level = level
        self.places = places
        hotPlaces = places.map { Unmanaged.passUnretained($0) }
        self.file = file
        unitCount = units
        placemarkTable = .allocate(capacity: 1)
        self.store = store
        self.partUnit = partUnit
        owner = firstUse
        self.partOffset = partOffset
        builtTree = nil
        hasWrappedParts = wrapped
        self.cells = cells
        hotCells = cells.map { Unmanaged.passUnretained($0) }
        self.firstUse = firstUse
    }

    deinit {
        if firstUse == nil { placemarkTable.deinitialize(count: unitCount) }
        placemarkTable.deallocate()
        if owner == nil { UnsafeMutableRawPointer(mutating: partUnit.baseAddress)?.deallocate() }
    }

    /// The R-tree over the polygons' boxes, for the paths that walk it themselves (the nearest unit). A
    /// layer checked on first use has it once ``LayerFirstUse/prepareTree()`` has checked the polygons.
    var tree: PackedRTree {
        guard let tree = builtTree ?? firstUse?.tree else { preconditionFailure("R-tree asked for before its check") }
        return tree
    }

    /// Unit `unit`'s placemark.
    @inline(__always)
    func placemark(_ unit: Int) -> Placemark {
        guard let firstUse else { return placemarkTable[unit] }
        // Decoded by the query's check (DatasetFirstUse.preparePlacemark) before it asks.
        return firstUse.placemark(unit)!
    }

    /// The cell quadtree (with its crossing lists) over a layer's polygons, leaves about `cellSize` wide.
    /// Fails when GEOS does (a polygon it cannot rebuild or prepare, a predicate it raises on).
    /// `maxEdges`: see ``CellIndex/defaultMaxEdges`` (tests make deep trees with fewer). `threads`: workers
    /// for this one layer (default: the cores this process may run on, so `taskset -c 0` builds on one);
    /// the index is the same whatever it is.
    static func buildCells(store: PolygonStore, partUnit: [Int32], cellSize: Double,
                           maxEdges: Int = CellIndex.defaultMaxEdges, threads: Int? = nil) throws(GEOSError) -> CellIndex? {
        guard store.count > 0 else { return nil }
        let threads = max(1, threads ?? ReverseGeocoder.usableCores())
        // One GEOS context per worker: contexts and prepared geometries are not thread-safe.
        var tests: [InteriorTest] = []
        for _ in 0..<threads { tests.append(try InteriorTest(store: store)) }
        let extent = (0..<store.count).reduce(Box.empty) { $0.union(store.envelope($1)) }
        // Deep enough that leaves are about cellSize wide. Border cells go the layer's own
        // ``CellIndex/borderLevels(store:cellSide:)`` further (then few points reach one), and further still while they hold many edges (fine
        // boundaries), to 20 levels (the tree's limit) less one when that keeps the extra levels even, so
        // the top grid is as deep as without them.
        let side = max(extent.maxX - extent.minX, extent.maxY - extent.minY, cellSize)
        let depth = min(20, max(1, Int((log2(side / cellSize)).rounded(.up))))
        let maxDepth = depth + (20 - depth) / 2 * 2
        let workers = tests
        let borderLevels = CellIndex.borderLevels(store: store, cellSide: side / Double(1 << depth))
        let cells = CellIndex(store: store, unitOf: partUnit, baseDepth: min(maxDepth, depth + borderLevels), maxDepth: maxDepth,
                              maxEdges: maxEdges, threads: threads) { worker, p, x, y in
            workers[worker].containsProperly(p, x, y)
        }
        // The first failure, in worker order (each worker's first; all are GEOS failing on the same data).
        if let failure = tests.lazy.compactMap(\.failure).first { throw failure }
        return cells
    }

    /// The unit containing (x, y), by the boundary rule: the lowest-numbered unit whose interior
    /// contains the point; if none, the lowest-numbered unit whose boundary it lies on; else nil.
    /// "Lowest-numbered" is record order in the file, so a point on a shared border always resolves to
    /// exactly one unit, the same one on every run and every thread.
    ///
    /// Throws when GEOS does (an exception in a predicate, a polygon it cannot rebuild or prepare, a
    /// point it cannot make): never an "outside" in disguise.
    func locate(x: Double, y: Double, in context: QueryContext) throws(GEOSError) -> Int? {
        if let hotCells {
            switch try hotCells.withGuaranteedRef({ (cells) throws(GEOSError) in try locate(x: x, y: y, cells: cells, in: context) }) {
            case .unit(let u): return u
            case .noUnit: return nil
            case .undecided: break  // both frames have candidates: the R-tree path below sorts it out
            }
        }
        context.candidates.removeAll(keepingCapacity: true)
        // A layer checked on first use has its tree once the query's check built it (prepareTree).
        guard let tree = builtTree ?? firstUse?.tree else { preconditionFailure("R-tree asked for before its check") }
        tree.search(x: x, y: y, into: &context.candidates)
        let direct = context.candidates.count
        // West of 180° the point may also be inside a unit stored east of 180° (see RingAssembler).
        if hasWrappedParts && x < 0 { tree.search(x: x + 360, y: y, into: &context.candidates) }
        return try test(x: x, y: y, direct: direct, in: context)
    }

    /// What the cells make of a point.
    enum CellVerdict {
        /// This unit holds the point.
        case unit(Int)
        /// No unit holds it.
        case noUnit
        /// The cells cannot tell: both the point and its western twin have candidates.
        case undecided
    }

    /// The cells' answer for (x, y), or `.undecided` when both the point and its western twin have
    /// candidates, which the R-tree path decides.
    @inline(__always)
    private func locate(x: Double, y: Double, cells: CellIndex, in context: QueryContext) throws(GEOSError) -> CellVerdict {
        let here = cells.answer(x: x, y: y)
        // West of 180° a unit stored east of 180° may hold the point too: ask for its twin as well.
        let twin: CellIndex.Answer = hasWrappedParts && x < 0 ? cells.answer(x: x + 360, y: y) : .empty
        switch (here, twin) {
        case (.empty, .empty): return .noUnit
        case (.unit(let u), .empty): return .unit(u)
        case (.empty, .unit(let u)): return .unit(u)
        case (.candidates(let entries), .empty):
            return try crossingTest(x: x, y: y, entries: entries, cells: cells, in: context).map(CellVerdict.unit) ?? .noUnit
        case (.empty, .candidates(let entries)):
            return try crossingTest(x: x + 360, y: y, entries: entries, cells: cells, in: context).map(CellVerdict.unit) ?? .noUnit
        default:
            return .undecided
        }
    }

    /// Applies the boundary rule to a border cell's candidates by their crossing lists (exactly GEOS's
    /// answer, see CrossingLists); a candidate whose list cannot be sure of a point asks GEOS itself.
    @inline(__always)
    private func crossingTest(x: Double, y: Double, entries: Int, cells: CellIndex, in context: QueryContext) throws(GEOSError) -> Int? {
        var onBoundary: Int?
        context.sink.pointee = cells.warm(entries)
        for r in cells.records(entries) {
            let part = cells.part(record: r)
            switch cells.locate(record: r, x: x, y: y) {
            case .interior: return Int(partUnit[part])
            case .exterior: continue
            case .boundary: break
            case .uncertain:
                let prepared = try context.prepared(partOffset + part) { (geos) throws(GEOSError) in try store.geometry(part, context: geos) }
                let point = try context.point.at(x: x, y: y)
                if try prepared.containsProperly(point) { return Int(partUnit[part]) }
                if try !prepared.covers(point) { continue }
            }
            if onBoundary == nil { onBoundary = Int(partUnit[part]) }
        }
        return onBoundary
    }

    /// Applies the boundary rule with GEOS to `context.candidates` (the first `direct` are tested at x,
    /// the rest at x + 360).
    private func test(x: Double, y: Double, direct: Int, in context: QueryContext) throws(GEOSError) -> Int? {
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

        let point = try context.point.at(x: x, y: y)
        let wrappedPoint = direct < context.candidates.count ? try context.twin.at(x: x + 360, y: y) : nil
        func prepared(_ part: Int) throws(GEOSError) -> PreparedGeometry {
            try context.prepared(partOffset + part) { (geos) throws(GEOSError) in try store.geometry(part, context: geos) }
        }
        for key in keyed {
            let part = key >> 1
            let p = key & 1 == 0 ? point : wrappedPoint!
            if try prepared(part).containsProperly(p) { return Int(partUnit[part]) }
        }
        for key in keyed {
            let part = key >> 1
            let p = key & 1 == 0 ? point : wrappedPoint!
            if try prepared(part).covers(p) { return Int(partUnit[part]) }
        }
        return nil
    }
}
