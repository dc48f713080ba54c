/// Where a segment lies in the quadtree's grid before any test: the deepest level at which its box,
/// grown by the edge test's margin and a slack, lies inside one cell, and that cell's position, so that
/// ``CellTreeBuilder`` files it into the one child it touches with a few integer operations instead of
/// ``ChildCells/touched(by:among:)``'s box and line tests, at every level above that.
///
/// Why it gives the same answer: splitting a cell of level l tests the segment against its four
/// children grown by the margin. A segment whose grown box stays clear of the level-(l + 1) grid lines
/// (which include every coarser level's) overlaps one grown child only, holds both its ends in it, and
/// so is touched by that child alone; which child is the bit of the cell's column and row at level
/// l + 1. The slack is far wider than the rounding of the builder's cell corners (sums of halved sides,
/// a few ulps per level), so a segment that close to a grid line is simply left to the full test.
/// `CellTreeBuilderTests` checks the two agree.
struct SegmentHome {
    /// The cell's column and row at ``bits`` levels below the root, of the grown box's south-west corner.
    var column: UInt32, row: UInt32
    /// Levels 0 ..< level split the segment's cells by ``child(splitting:)``; from `level` on the full test.
    var level: Int32

    /// Grid positions are kept at this many levels; deeper than any tree (``CellIndex``'s maxDepth).
    static let bits = 30

    /// The child (column bit | row bit << 1) the segment touches when a cell of `level` (< ``level``)
    /// is split.
    @inline(__always)
    func child(splitting level: Int) -> Int {
        let shift = UInt32(Self.bits - 1 - level)
        return Int((column >> shift) & 1 | ((row >> shift) & 1) << 1)
    }

    /// Every segment's home in the square (originX, originY, side), at most `maxLevel` deep, in a
    /// ``LargeAllocation`` the caller frees.
    static func homes(of segments: UnsafeMutableBufferPointer<BuildSegment>, originX: Double, originY: Double, side: Double,
                      margin: Double, maxLevel: Int) -> UnsafeMutableBufferPointer<SegmentHome> {
        let out = LargeAllocation.allocate(SegmentHome.self, count: max(1, segments.count))
        // Rounding of the cell corners is ~1e-16 relative per level; 1e-9 of the coordinates' size leaves
        // seven orders of magnitude, and costs only the segments within it of a grid line (the full test).
        let grow = margin + 1e-9 * (abs(originX) + abs(originY) + side + 1)
        let scale = Double(1 << bits) / side
        let cap = min(maxLevel, bits)
        for k in 0..<segments.count {
            let s = segments[k]
            let x = position(min(s.x1, s.x2) - grow, max(s.x1, s.x2) + grow, from: originX, scale: scale)
            let y = position(min(s.y1, s.y2) - grow, max(s.y1, s.y2) + grow, from: originY, scale: scale)
            guard let x, let y else {
                out[k] = SegmentHome(column: 0, row: 0, level: 0)
                continue
            }
            // The levels at which both ends of the grown box share a cell: the leading bits they share.
            let shared = min(common(x.lo, x.hi), common(y.lo, y.hi))
            out[k] = SegmentHome(column: x.lo, row: y.lo, level: Int32(min(shared, cap)))
        }
        return out
    }

    /// The grid positions of lo and hi at ``bits`` levels, nil when either is outside the square (or
    /// not a number).
    private static func position(_ lo: Double, _ hi: Double, from origin: Double, scale: Double) -> (lo: UInt32, hi: UInt32)? {
        let a = ((lo - origin) * scale).rounded(.down), b = ((hi - origin) * scale).rounded(.down)
        let limit = Double(1 << bits)
        guard a >= 0, b < limit, a <= b else { return nil }
        return (UInt32(a), UInt32(b))
    }

    /// How many of the top ``bits`` bits of two positions are equal.
    private static func common(_ a: UInt32, _ b: UInt32) -> Int {
        min(bits, (a ^ b).leadingZeroBitCount - (32 - bits))
    }
}
