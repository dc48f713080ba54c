import Synchronization

/// What a point far from every admin unit gets, per cell of the ``FarMask`` grid: the overlays' units
/// (the time zone at sea) when each overlay has one answer over the whole cell, so such a point is
/// answered with one load instead of the whole query path.
///
/// Without it a far point (most of the sea: over half of uniform world points) paid every admin
/// dataset's empty mask, the far mask, then each overlay's cell descent (the time zones' megabyte-sized
/// top table, a cache miss) before its combined placemark; the median world query was such a point
/// (Benchmarks/results/placemark-speed.md, session 11).
///
/// A cell's entry is 0 (not far: the query path decides), ``farOnly`` (far, but some overlay is not one
/// answer over the cell: the point goes straight to the overlays, past the admin datasets), or k in
/// 1 ... 254: the point is far, and overlay o answers slot `slots[(k - 1) * overlays + o]` (-1: none) for
/// every point of the cell in every datum. The 254 combinations a byte can name are many more than the
/// sea has (the bundled data: see ``combinationCount``); cells of further combinations are ``farOnly``.
///
/// Two levels, so that the open sea is answered from a table that stays in the L2 cache: one 16-bit
/// entry per block of 16 × 16 cells (16 KB), which is the block's entry when all its cells have the same
/// one, else 256 + the number of the block's own 256 cell entries (coasts, zone borders). A flat byte a
/// cell (2 MB) was measured first: as many instructions, but a point timed on its own took 170 ns, most
/// of it the random entry's miss past the L2 (Benchmarks/results/placemark-speed.md, session 11).
///
/// Exactness, cell by cell (``build(mask:overlays:)``): the far bit is the ``FarMask``'s own (the same
/// cell formula), so no admin unit can answer the point; for each overlay, the cell is inside its
/// reach or outside it (the query path tests the reach on the point as asked), and its layers' cells
/// give one answer over the cell grown by ``FarMask/datumSlack`` (so wherever the overlay's datum
/// conversion moves the point, GCJ-02 and BD-09 included), its western twin's too where the layer has
/// units stored east of 180°, exactly as `LayerIndex.locate` reads them. So an entry never changes an
/// answer, only how fast it comes.
final class FarAnswers: Sendable {
    static let columns = FarMask.columns, rows = FarMask.rows
    /// The largest combination an entry can name.
    static let maxCombinations = Int(UInt8.max) - 1
    /// The entry of a far cell without one answer of every overlay.
    static let farOnly = Int(UInt8.max)
    private static let cellWidth = 360.0 / Double(columns), cellHeight = 180.0 / Double(rows)
    /// Cells per block side, and blocks per row of blocks.
    static let blockSide = 16, blockColumns = columns / blockSide
    /// Per block: its cells' common entry (< 256), or 256 + its block number in `cells`.
    nonisolated(unsafe) private let blocks: UnsafeMutableBufferPointer<UInt16>
    /// The cell entries of the blocks without a common one, 256 a block (row by row).
    nonisolated(unsafe) private let cells: UnsafeMutableBufferPointer<UInt8>
    /// Each combination's slot per overlay, combination after combination.
    nonisolated(unsafe) private let slots: UnsafeMutableBufferPointer<Int32>
    /// Overlay datasets per combination.
    let overlays: Int
    /// Distinct combinations the far cells have (some may have been left 0 beyond ``maxCombinations``).
    let combinationCount: Int
    /// Cells with an entry (for statistics and tests).
    let answeredCells: Int

    /// Blocks whose cells have entries of their own (for statistics).
    var detailedBlocks: Int { cells.count / (Self.blockSide * Self.blockSide) }

    private init(blocks: UnsafeMutableBufferPointer<UInt16>, cells: UnsafeMutableBufferPointer<UInt8>, slots: [Int32], overlays: Int,
                 combinations: Int, answered: Int) {
        self.blocks = blocks
        self.cells = cells
        self.slots = .allocate(capacity: max(1, slots.count))
        _ = self.slots.initialize(from: slots)
        self.overlays = overlays
        combinationCount = combinations
        answeredCells = answered
    }

    deinit {
        blocks.deallocate()
        cells.deallocate()
        slots.deallocate()
    }

    /// The entry for (x, y), a valid coordinate: 0, a combination (1 ... 254) or ``farOnly``. The cell is the one
    /// ``FarMask/isFar(x:y:)`` reads (the same arithmetic).
    @inline(__always)
    func combination(x: Double, y: Double) -> Int {
        let column = min(Int((x + 180) * (1 / Self.cellWidth)), Self.columns &- 1)
        let row = min(Int((y + 90) * (1 / Self.cellHeight)), Self.rows &- 1)
        guard column >= 0, row >= 0 else { return 0 }
        let block = Int(blocks[(row &>> 4) &* Self.blockColumns &+ (column &>> 4)])
        if block < 256 { return block }
        return Int(cells[((block &- 256) &<< 8) | ((row & 15) &<< 4) | (column & 15)])
    }

    /// Overlay `o`'s slot in combination entry `k` (≥ 1).
    @inline(__always)
    func slot(_ k: Int, overlay o: Int) -> Int32 { slots[(k &- 1) &* overlays &+ o] }

    /// One overlay dataset as the query path reads it: its reach (tested on the point as asked) and its
    /// layers in order, each with where its units' slots start.
    struct Overlay: Sendable {
        var reach: Box
        var layers: [(layer: LayerIndex, placemarkBase: Int)]
    }

    /// No answer for a cell (some overlay is not one answer over it, or it is not far).
    private static let unknown = Int32.min

    /// The entries for the far cells of `mask`. Its build takes a fraction of the far mask's (blocks of
    /// 64 × 64 cells that one answer covers are decided at once).
    static func build(mask: FarMask, overlays: [Overlay]) -> FarAnswers {
        let n = max(1, overlays.count), cellCount = columns * rows
        // Phase 1, blocks side by side: each far cell's slots (unknown where there is no single answer).
        let keys = UnsafeMutableBufferPointer<Int32>.allocate(capacity: cellCount * n)
        keys.initialize(repeating: unknown)
        defer { keys.deallocate() }
        nonisolated(unsafe) let base = keys
        @Sendable func far(_ c: Int, _ r: Int) -> Bool {
            mask.isFar(x: -180 + (Double(c) + 0.5) * cellWidth, y: -90 + (Double(r) + 0.5) * cellHeight)
        }
        @Sendable func fill(column: Int, row: Int, size: Int) {
            var anyFar = false
            for r in row..<(row + size) where !anyFar {
                for c in column..<(column + size) where far(c, r) { anyFar = true; break }
            }
            guard anyFar else { return }
            let raw = Box(minX: -180 + Double(column) * cellWidth, minY: -90 + Double(row) * cellHeight,
                          maxX: -180 + Double(column + size) * cellWidth, maxY: -90 + Double(row + size) * cellHeight)
            var answer: [Int32] = []
            for overlay in overlays {
                let slot = slot(overlay, over: raw)
                if slot == unknown { break }
                answer.append(slot)
            }
            if answer.count == overlays.count {
                for r in row..<(row + size) {
                    for c in column..<(column + size) where far(c, r) {
                        let at = (r * columns + c) * n
                        if overlays.isEmpty { base[at] = -1 } else { for o in 0..<overlays.count { base[at + o] = answer[o] } }
                    }
                }
                return
            }
            guard size > 1 else { return }
            let half = size / 2
            for (dc, dr) in [(0, 0), (half, 0), (0, half), (half, half)] { fill(column: column + dc, row: row + dr, size: half) }
        }
        let block = 64, across = columns / block, down = rows / block
        Workers.perform(iterations: across * down) { b in
            fill(column: (b % across) * block, row: (b / across) * block, size: block)
        }
        // Phase 2: number the combinations in the order the cells meet them (so the same data gives the same entries).
        let entries = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: cellCount)
        entries.initialize(repeating: 0)
        defer { entries.deallocate() }
        var numbers: [[Int32]: Int] = [:], slots: [Int32] = [], answered = 0
        // Runs of cells along a row share their combination: the dictionary (and the key's array) only
        // where it changes (1.3 M far cells one by one took a fifth of a second).
        var previous = -1, k = 0
        for cell in 0..<cellCount where keys[cell * n] != unknown {
            if previous < 0 || !(0..<overlays.count).allSatisfy({ keys[previous * n + $0] == keys[cell * n + $0] }) {
                let key = Array(keys[(cell * n)..<(cell * n + overlays.count)])
                if let known = numbers[key] {
                    k = known
                } else {
                    k = numbers.count + 1
                    numbers[key] = k
                    if k <= maxCombinations { slots += key }
                }
            }
            previous = cell
            if k <= maxCombinations {
                entries[cell] = UInt8(k)
                answered += 1
            }
        }
        // Far cells without one answer: past the admin datasets at least (the entries of the cells above
        // that have one stand; this only fills those phase 1 left unknown).
        for cell in 0..<cellCount where entries[cell] == 0 && far(cell % columns, cell / columns) { entries[cell] = UInt8(farOnly) }
        // Phase 3: the two levels.
        let side = blockSide, blockCount = blockColumns * (rows / side)
        let blocks = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: blockCount)
        var detail: [UInt8] = []
        for b in 0..<blockCount {
            let column0 = (b % blockColumns) * side, row0 = (b / blockColumns) * side
            let first = entries[row0 * columns + column0]
            var same = true
            for r in row0..<(row0 + side) where same {
                for c in column0..<(column0 + side) where entries[r * columns + c] != first { same = false; break }
            }
            if same {
                blocks[b] = UInt16(first)
            } else {
                blocks[b] = UInt16(256 + detail.count / (side * side))
                for r in row0..<(row0 + side) { for c in column0..<(column0 + side) { detail.append(entries[r * columns + c]) } }
            }
        }
        precondition(256 + detail.count / (side * side) <= Int(UInt16.max), "block numbers fit 16 bits (8,192 blocks)")
        let cells = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, detail.count))
        _ = cells.initialize(from: detail)
        return FarAnswers(blocks: blocks, cells: UnsafeMutableBufferPointer(rebasing: cells[0..<detail.count]), slots: slots,
                          overlays: overlays.count, combinations: numbers.count, answered: answered)
    }

    /// The slot the query path's `overlaySlot` gives every point of `raw` (as asked, in any datum), or
    /// ``unknown``.
    private static func slot(_ overlay: Overlay, over raw: Box) -> Int32 {
        // The reach is tested on the point as asked; a point the cell formula files here may lie a
        // rounding outside the box.
        let asked = raw.grown(by: CellIndex.margin)
        if asked.isDisjoint(from: overlay.reach) { return -1 }
        let r = overlay.reach
        guard r.minX <= asked.minX, r.minY <= asked.minY, asked.maxX <= r.maxX, asked.maxY <= r.maxY else { return unknown }
        // Wherever the overlay's datum conversion can move the point.
        let moved = raw.grown(by: FarMask.datumSlack)
        for (layer, placemarkBase) in overlay.layers {
            switch answer(layer, throughout: moved) {
            case .unit(let u): return Int32(placemarkBase + u)
            case .empty: continue
            case .mixed: return unknown
            }
        }
        return -1
    }

    /// What `LayerIndex.locate` answers for every point of `box`, its western twin included (a point west
    /// of 0° is also looked for 360° east where the layer has units stored east of 180°).
    private static func answer(_ layer: LayerIndex, throughout box: Box) -> CellIndex.BoxAnswer {
        guard let cells = layer.cells else { return .mixed }
        let here = cells.boxAnswer(x0: box.minX, y0: box.minY, x1: box.maxX, y1: box.maxY)
        guard layer.hasWrappedParts, box.minX < 0 else { return here }
        let twin = cells.boxAnswer(x0: box.minX + 360, y0: box.minY, x1: box.maxX + 360, y1: box.maxY)
        switch (here, twin) {
        case (_, .empty): return here
        // Every point of the box has a twin (x < 0) and only the twin has a unit.
        case (.empty, .unit) where box.maxX < 0: return twin
        default: return .mixed
        }
    }
}
