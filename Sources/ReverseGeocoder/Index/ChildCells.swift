/// The four children of a quadtree cell, each grown by the edge test's margin, as the four lanes of a
/// vector (child c is column c & 1, row c >> 1): what ``CellTreeBuilder`` tests each part's box and each
/// of its segments against, all four children at once.
///
/// Lane by lane this is the arithmetic of ``Box/isDisjoint(from:)`` and of
/// ``CellTreeBuilder/segmentMayTouch(_:_:)`` on ``cell(_:)``, operation for operation, so the answers are
/// the same bits (`CellTreeBuilderTests` compares them). Why lanes: the same tests written per child,
/// with `&&` and `||`, made the builder's loop four chains of short-circuit branches that the compiler's
/// loop passes took ~40 s of CPU to optimize, a quarter of the engine's -O compile, and CI compiles the
/// engine three times.
struct ChildCells {
    /// One flag per child.
    typealias Lanes = SIMDMask<SIMD4<Int64>>

    let minX: SIMD4<Double>, minY: SIMD4<Double>, maxX: SIMD4<Double>, maxY: SIMD4<Double>
    /// |maxX| + |maxY| of each child: the cell's part of lineMayTouch's tolerance, once per cell.
    private let cornerSum: SIMD4<Double>

    /// The children of the cell with south-west corner (x0, y0) and side `2 * half`, grown by `margin`.
    init(x0: Double, y0: Double, half: Double, margin: Double) {
        let west = SIMD4<Double>(x0, x0 + half, x0, x0 + half), south = SIMD4<Double>(y0, y0, y0 + half, y0 + half)
        minX = west - margin; minY = south - margin
        maxX = west + (half + margin); maxY = south + (half + margin)
        cornerSum = SIMD4<Double>(abs(maxX[0]), abs(maxX[1]), abs(maxX[2]), abs(maxX[3]))
            + SIMD4<Double>(abs(maxY[0]), abs(maxY[1]), abs(maxY[2]), abs(maxY[3]))
    }

    /// Child c's grown cell.
    func cell(_ c: Int) -> Box { Box(minX: minX[c], minY: minY[c], maxX: maxX[c], maxY: maxY[c]) }

    /// The children the box is not disjoint from.
    @inline(__always)
    func reached(by b: Box) -> Lanes {
        .!(b.minX .> maxX .| b.minY .> maxY .| b.maxX .< minX .| b.maxY .< minY)
    }

    /// The children among `reaching` the segment may touch: its box overlaps the child's, and the
    /// child's four corners are not all clearly on one side of its line. A child holding an end of the
    /// segment is touched without the cross products (see ``CellTreeBuilder/endInside(_:_:)``), which
    /// most segments, short against the cell, never reach.
    @inline(__always)
    func touched(by s: BuildSegment, among reaching: Lanes) -> Lanes {
        let lo = min(s.x1, s.x2), hi = max(s.x1, s.x2), bottom = min(s.y1, s.y2), top = max(s.y1, s.y2)
        let near = reaching .& .!(lo .> maxX .| hi .< minX .| bottom .> maxY .| top .< minY)
        let endInside = (s.x1 .>= minX .& s.x1 .<= maxX .& s.y1 .>= minY .& s.y1 .<= maxY)
            .| (s.x2 .>= minX .& s.x2 .<= maxX .& s.y2 .>= minY .& s.y2 .<= maxY)
        if !any(near .& .!endInside) { return near }
        return near .& (endInside .| .!clearOfLine(s))
    }

    /// The children whose four corners lie clearly on one side of the segment's line (by more than
    /// rounding could move them): ``CellTreeBuilder/lineMayTouch(_:_:)`` false, lane by lane, with its
    /// tolerance computed in the same order.
    private func clearOfLine(_ s: BuildSegment) -> Lanes {
        let x1 = s.x1, y1 = s.y1
        let dx = s.x2 - x1, dy = s.y2 - y1
        let c1 = dx * (minY - y1) - dy * (minX - x1)
        let c2 = dx * (minY - y1) - dy * (maxX - x1)
        let c3 = dx * (maxY - y1) - dy * (minX - x1)
        let c4 = dx * (maxY - y1) - dy * (maxX - x1)
        // Spelled out with types: the type checker gives up on these expressions otherwise.
        let scale: Double = 1e-12 * (abs(dx) + abs(dy) + 1)
        let sum: SIMD4<Double> = cornerSum + abs(x1) + abs(y1) + 1
        let tolerance: SIMD4<Double> = scale * sum
        let above: Lanes = c1 .> tolerance .& c2 .> tolerance .& c3 .> tolerance .& c4 .> tolerance
        let below: Lanes = c1 .< -tolerance .& c2 .< -tolerance .& c3 .< -tolerance .& c4 .< -tolerance
        return above .| below
    }
}
