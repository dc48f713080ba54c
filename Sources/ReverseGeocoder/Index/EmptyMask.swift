import CHotPath

/// Where a dataset has no unit at all: one bit per cell of a 1024 × 1024 grid over its reach.
///
/// Most points a geocoder sees inside a dataset's bounding box but outside its units are in the sea or
/// in a neighbouring country (69 % of uniform points in China's box). Each layer's quadtree answers them
/// "empty" after a load from its megabyte-sized top table, usually a miss in the L2 cache, and a dataset
/// of several layers pays that once per layer. This mask is 128 KB, small enough to stay in the L2: a
/// set bit answers "no unit here" for the whole dataset with one load.
///
/// A bit is set only when every layer's quadtree says "empty" for every point of the cell, grown by the
/// cell index's margin (``CellIndex/boxAnswer(x0:y0:x1:y1:)``), so a point that rounding files into a
/// neighbouring cell is still covered; and, for a layer with units stored east of 180°, also for the
/// cell moved by 360°, where `LayerIndex.locate` looks for a western point's twin. So the mask never
/// changes an answer, only how fast "none" comes.
final class EmptyMask: Sendable {
    /// Cells per side; a power of two, so the bit index is shifts.
    static let side = 1024
    static let wordCount = side * side / 64

    let originX: Double, originY: Double, scaleX: Double, scaleY: Double
    nonisolated(unsafe) let words: UnsafeBufferPointer<UInt64>
    private let owner: (any AnyObject & Sendable)?

    init(originX: Double, originY: Double, scaleX: Double, scaleY: Double, words: UnsafeBufferPointer<UInt64>,
         owner: (any AnyObject & Sendable)?) {
        self.originX = originX; self.originY = originY; self.scaleX = scaleX; self.scaleY = scaleY
        self.words = words
        self.owner = owner
    }

    deinit {
        if owner == nil { UnsafeMutableRawPointer(mutating: words.baseAddress)?.deallocate() }
    }

    /// Whether the mask proves that no layer has a unit at (x, y) (in the dataset's datum).
    @inline(__always)
    func isEmpty(x: Double, y: Double) -> Bool {
        let fx = (x - originX) * scaleX, fy = (y - originY) * scaleY
        guard fx >= 0, fy >= 0, fx < Double(Self.side), fy < Double(Self.side) else { return false }
        // Bounded by the guard: no need of Int()'s range check (see CHotPath).
        let bit = (hot_path_truncate(fy) &<< 10) | hot_path_truncate(fx)
        return words[bit &>> 6] & (1 &<< UInt64(bit & 63)) != 0
    }

    /// Whether any bit is set. A dataset that covers its whole reach (the time zones, oceans included)
    /// gets a mask of zeros: asking it costs a query some 38 instructions (callgrind) and never answers,
    /// so the query path leaves such a mask out.
    var provesAnything: Bool { words.contains { $0 != 0 } }

    /// Whether a mask read from the cache has the shape this engine uses.
    static func isWellFormed(originX: Double, originY: Double, scaleX: Double, scaleY: Double, wordCount: Int) -> Bool {
        originX.isFinite && originY.isFinite && scaleX.isFinite && scaleY.isFinite && scaleX > 0 && scaleY > 0
            && wordCount == Self.wordCount
    }

    /// Builds the mask over `box` for layers that all have cells; nil otherwise.
    static func build(layers: [LayerIndex], box: Box) -> EmptyMask? {
        guard !layers.isEmpty, layers.allSatisfy({ $0.cells != nil }), box.maxX > box.minX, box.maxY > box.minY else { return nil }
        let scaleX = Double(side) / (box.maxX - box.minX), scaleY = Double(side) / (box.maxY - box.minY)
        guard scaleX.isFinite, scaleY.isFinite else { return nil }
        let words = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: wordCount)
        words.initialize(repeating: 0)
        // The layers' cell indexes unretained (`layers` holds them), in a buffer rather than an array of
        // class references: an array per call and a retain and release per layer and block were most of
        // the 66 M instructions this build lost (358 M → 292 M with the word-wide fill below; bundled
        // districts, callgrind).
        let cells = UnsafeMutableBufferPointer<(index: Unmanaged<CellIndex>, wrapped: Bool)>.allocate(capacity: layers.count)
        for (l, layer) in layers.enumerated() { cells[l] = (Unmanaged.passUnretained(layer.cells!), layer.hasWrappedParts) }
        defer { cells.deallocate() }
        nonisolated(unsafe) let base = words, indexes = UnsafeBufferPointer(cells)
        // Blocks of cells, coarse to fine: a block every layer calls empty sets all its bits, a block one
        // layer fills with a unit has none, and only the rest is split. Asking about each of the 2^20
        // cells one by one took a quarter of a second even for a dataset of three polygons.
        @Sendable func fill(column: Int, row: Int, size: Int) {
            let x0 = box.minX + Double(column) / scaleX, x1 = box.minX + Double(column + size) / scaleX
            let y0 = box.minY + Double(row) / scaleY, y1 = box.minY + Double(row + size) / scaleY
            var allEmpty = true
            for layer in indexes {
                // West of 180° a layer with units stored east of it also looks at the point's twin.
                for twin in 0..<(layer.wrapped && x0 < 0 ? 2 : 1) {
                    let shift = twin == 0 ? 0.0 : 360.0
                    switch layer.index._withUnsafeGuaranteedRef({ $0.boxAnswer(x0: x0 + shift, y0: y0, x1: x1 + shift, y1: y1) }) {
                    case .unit: return  // the whole block is in a unit of this layer: no bit to set
                    case .mixed: allEmpty = false
                    case .empty: break
                    }
                }
            }
            if allEmpty {
                // A block lies within one word of each of its rows (blocks are at most 64 wide and aligned
                // to their size).
                let bits: UInt64 = size == 64 ? ~0 : (1 << UInt64(size) - 1) << UInt64(column & 63)
                for r in row..<(row + size) { base[(r << 10 | column) >> 6] |= bits }
                return
            }
            guard size > 1 else { return }
            let half = size / 2
            fill(column: column, row: row, size: half)
            fill(column: column + half, row: row, size: half)
            fill(column: column, row: row + half, size: half)
            fill(column: column + half, row: row + half, size: half)
        }
        // Blocks of 64 × 64 cells write whole words of their own rows, so they can be filled side by side.
        let block = 64, blocks = side / block
        Workers.perform(iterations: blocks * blocks) { b in
            fill(column: (b % blocks) * block, row: (b / blocks) * block, size: block)
        }
        return EmptyMask(originX: box.minX, originY: box.minY, scaleX: scaleX, scaleY: scaleY,
                         words: UnsafeBufferPointer(words), owner: nil)
    }
}
