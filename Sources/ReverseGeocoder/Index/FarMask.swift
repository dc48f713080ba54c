import Synchronization

/// Where no admin unit of any layer comes within the coast fallback's reach: one bit per cell of a
/// 2048 × 1024 grid over the whole globe (about 0.18° × 0.18°, 256 KB).
///
/// A point in no unit used to pay the nearest-unit search (``NearestUnit``) on every admin layer before
/// it could answer "none near", and on uniform world points (two thirds of them at sea) that search was
/// almost the whole query: 46 µs per point on average, against half a microsecond without the fallback,
/// because the boxes of large polygons (Russia, Canada) cover much open sea and each such box sends the
/// search to GEOS over the polygon's edges. A set bit says the search would find nothing.
///
/// A bit is set only when, for every layer, the quadtree says "empty" (``CellIndex/boxAnswer(x0:y0:x1:y1:)``:
/// no polygon point there, edges included) over the cell grown by the reach and by `datumSlack`, in the
/// cell's own frame and moved by ±360°. The growth is conservative on the sphere of ``SphereBound``:
/// latitude by the reach's central angle, longitude by ``EdgeReach``'s bound at the cell's highest
/// latitude (no bit where that bound reaches 180°, near the poles). `datumSlack` (0.03°) covers the
/// shift the fallback's own datum conversion makes (GCJ-02 under 0.011°, BD-09 on top of it under
/// 0.013°), so one mask serves queries in every datum. So a set bit never changes an answer, only how fast "none" comes.
///
/// Resolution: 4096 × 2048 (1 MB) was measured and not kept: the world points' nearest-unit searches fell
/// by 4 % only (Benchmarks/results/placemark-speed.md), since most searches that find nothing start
/// within the reach's growth of a coast, not in the cell's own width.
///
/// The build does not split a block that lies inside one unit of some layer (after any datum shift): such
/// a block is near at every level below (its grown sub-blocks all hold that unit), so its bits stay clear
/// exactly as splitting it would leave them, and no query there reaches the mask anyway (the inside path
/// answers first). Land is most of the blocks that are not far: this spares their recursion to single cells.
final class FarMask: Sendable {
    static let columns = 2048, rows = 1024
    static let datumSlack = 0.03
    private static let cellWidth = 360.0 / Double(columns), cellHeight = 180.0 / Double(rows)
    private static let wordCount = columns * rows / 64
    nonisolated(unsafe) private let words: UnsafeMutableBufferPointer<UInt64>

    private init(words: UnsafeMutableBufferPointer<UInt64>) { self.words = words }

    deinit { words.deallocate() }

    /// Whether no unit of any layer is within reach of (x, y) (a valid coordinate, any datum).
    @inline(__always)
    func isFar(x: Double, y: Double) -> Bool {
        // Longitude 180 and latitude 90 fall into the last column and row.
        let column = min(Int((x + 180) * (1 / Self.cellWidth)), Self.columns &- 1)
        let row = min(Int((y + 90) * (1 / Self.cellHeight)), Self.rows &- 1)
        guard column >= 0, row >= 0 else { return false }
        let bit = row &* Self.columns &+ column
        return words[bit &>> 6] & (1 &<< UInt64(bit & 63)) != 0
    }

    /// Whether both masks have the same bits (for tests).
    func sameBits(as other: FarMask) -> Bool { words.elementsEqual(other.words) }

    /// Cells with their bit set (for statistics and tests).
    var farCells: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The mask for `layers` (every one with cells) at reach `metres`; nil when a layer has no cells.
    /// Takes about 0.2-0.4 s of CPU for the bundled data (two cores): ``FarMaskSlot`` builds it off the
    /// loading thread.
    /// `skipInside` false: split blocks inside a unit too (the tests' reference for the same bits).
    static func build(layers: [LayerIndex], metres: Double, skipInside: Bool = true) -> FarMask? {
        guard metres > 0, metres.isFinite, layers.allSatisfy({ $0.cells != nil }) else { return nil }
        let words = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: wordCount)
        words.initialize(repeating: 0)
        let cells = layers.map { $0.cells! }
        nonisolated(unsafe) let base = words
        let latitudeGrowth = EdgeReach(metres: metres, latitude: 0).latitudeDegrees + datumSlack

        /// Whether every layer is empty over the block (column, row, size × size cells) grown by the reach.
        @Sendable func far(column: Int, row: Int, size: Int) -> Bool {
            let x0 = -180 + Double(column) * cellWidth, x1 = -180 + Double(column + size) * cellWidth
            let y0 = -90 + Double(row) * cellHeight, y1 = -90 + Double(row + size) * cellHeight
            let highest = max(abs(y0), abs(y1))
            // At the highest latitude a point of the block can have after the fallback's datum shift.
            let dx = EdgeReach(metres: metres, latitude: min(90, highest + datumSlack)).longitudeDegrees + datumSlack
            guard dx < 180 else { return false }
            let gx0 = x0 - dx, gx1 = x1 + dx, gy0 = y0 - latitudeGrowth, gy1 = y1 + latitudeGrowth
            for index in cells {
                for shift in [0.0, 360, -360] where index.boxAnswer(x0: gx0 + shift, y0: gy0, x1: gx1 + shift, y1: gy1) != .empty {
                    return false
                }
            }
            return true
        }
        /// Whether every point of the block lies, after any datum shift the inside path makes, in one unit of
        /// some layer: the inside path answers there and never reads the block's bits.
        @Sendable func inside(column: Int, row: Int, size: Int) -> Bool {
            let x0 = -180 + Double(column) * cellWidth - datumSlack, x1 = -180 + Double(column + size) * cellWidth + datumSlack
            let y0 = -90 + Double(row) * cellHeight - datumSlack, y1 = -90 + Double(row + size) * cellHeight + datumSlack
            for index in cells {
                if case .unit = index.boxAnswer(x0: x0, y0: y0, x1: x1, y1: y1) { return true }
            }
            return false
        }
        // Blocks coarse to fine: a far block sets all its bits, a near one of one cell none, one inside a unit
        // none (its bits are never read), the rest split.
        @Sendable func fill(column: Int, row: Int, size: Int) {
            if skipInside, inside(column: column, row: row, size: size) { return }
            if far(column: column, row: row, size: size) {
                for r in row..<(row + size) {
                    for c in column..<(column + size) {
                        let bit = r * columns + c
                        base[bit >> 6] |= 1 << UInt64(bit & 63)
                    }
                }
                return
            }
            guard size > 1 else { return }
            let half = size / 2
            for (dc, dr) in [(0, 0), (half, 0), (0, half), (half, half)] { fill(column: column + dc, row: row + dr, size: half) }
        }
        // Blocks of 64 × 64 cells write whole words of their own rows, so they can be filled side by side.
        let block = 64, across = columns / block, down = rows / block
        Workers.perform(iterations: across * down) { b in
            fill(column: (b % across) * block, row: (b / across) * block, size: block)
        }
        return FarMask(words: words)
    }
}
