/// Each polygon's edges filed in horizontal bands of its box, so that the cell builder can decide an
/// edgeless cell's centre by a ray-crossing count over one band's edges instead of asking GEOS (whose
/// prepared geometry each worker would first rebuild and index, for every polygon).
///
/// Exactness: the count follows GEOS's `RayCrossingCounter` rule for rule (as ``CrossingLists`` does),
/// and answers nil, for the caller to ask GEOS, whenever GEOS would find the point on the boundary or a
/// side is not certain in double precision. Otherwise every edge GEOS's ray meets is in the band (an
/// edge whose y-range holds the point's y is filed in every band from its lower to its upper y, and the
/// band of a y is monotone in y), GEOS's exact orientation has the sign this finds certain, so the
/// parity is GEOS's.
struct PartBands {
    /// Part p's bands are `bandStart[firstBand[p] ..< firstBand[p + 1] + 1]`; band b's edges are
    /// `edges[bandStart[b] ..< bandStart[b + 1]]`, as indices into the builder's segments.
    private let firstBand: [Int]
    private let bandStart: [Int]
    private let edges: [UInt32]
    /// Per part: its box's south edge and the bands' height.
    private let south: [Double], height: [Double]

    /// Edges per band, on average, for a polygon drawn with short edges (a long edge is filed in every
    /// band it spans).
    static let edgesPerBand = 8

    init(segments: UnsafeMutableBufferPointer<BuildSegment>, segStart: [Int32], boxes: UnsafeMutableBufferPointer<Box>) {
        let parts = segStart.count - 1
        var firstBand = [Int](repeating: 0, count: parts + 1)
        var south = [Double](repeating: 0, count: parts), height = [Double](repeating: 1, count: parts)
        for p in 0..<parts {
            let n = Int(segStart[p + 1] - segStart[p])
            let bands = max(1, n / Self.edgesPerBand)
            firstBand[p + 1] = firstBand[p] + bands
            south[p] = boxes[p].minY
            let h = (boxes[p].maxY - boxes[p].minY) / Double(bands)
            height[p] = h > 0 ? h : 1
        }
        // Two passes: count each band's edges, then file them (in edge order within a band). Plain
        // loops over raw memory: this runs once per edge and pass.
        var start = [Int](repeating: 0, count: firstBand[parts] + 1)
        var filed: [UInt32] = []
        for pass in 0..<2 {
            if pass == 1 {
                for b in 0..<firstBand[parts] { start[b + 1] += start[b] }
                filed = [UInt32](repeating: 0, count: start[firstBand[parts]])
            }
            var at = pass == 1 ? Array(start.dropLast()) : []
            start.withUnsafeMutableBufferPointer { start in
                at.withUnsafeMutableBufferPointer { at in
                    filed.withUnsafeMutableBufferPointer { filed in
                        for p in 0..<parts {
                            let base = firstBand[p], last = firstBand[p + 1] - base - 1
                            let s0 = south[p], h = height[p]
                            for k in Int(segStart[p])..<Int(segStart[p + 1]) {
                                let s = segments[k]
                                let b0 = Self.band(min(s.y1, s.y2), south: s0, height: h, last: last)
                                let b1 = Self.band(max(s.y1, s.y2), south: s0, height: h, last: last)
                                for b in (base + b0)...(base + b1) {
                                    if pass == 0 {
                                        start[b + 1] += 1
                                    } else {
                                        filed[at[b]] = UInt32(k)
                                        at[b] += 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        self.firstBand = firstBand
        bandStart = start
        edges = filed
        self.south = south
        self.height = height
    }

    /// The band of a y among a part's bands 0 ... last (monotone in y: see the type's comment).
    @inline(__always)
    private static func band(_ y: Double, south: Double, height: Double, last: Int) -> Int {
        let b = ((y - south) / height).rounded(.down)
        return b <= 0 ? 0 : b >= Double(last) ? last : Int(b)
    }

    /// Whether (px, py) is in part p's interior, by GEOS's rules; nil when GEOS would find it on the
    /// boundary or a side is not certain (the caller asks GEOS).
    func interior(_ p: Int, _ px: Double, _ py: Double, segments: UnsafeMutableBufferPointer<BuildSegment>) -> Bool? {
        let b = firstBand[p] + Self.band(py, south: south[p], height: height[p], last: firstBand[p + 1] - firstBand[p] - 1)
        var parity = false
        return edges.withUnsafeBufferPointer { (edges) -> Bool? in
            for i in bandStart[b]..<bandStart[b + 1] {
                let s = segments[Int(edges[i])]
                let x1 = s.x1, y1 = s.y1, x2 = s.x2, y2 = s.y2
                // GEOS RayCrossingCounter::countSegment's cases, in its order.
                if x1 < px && x2 < px { continue }
                if px == x2 && py == y2 { return nil }
                if y1 == py && y2 == py {
                    if px >= min(x1, x2) && px <= max(x1, x2) { return nil }
                    continue
                }
                guard (y1 > py && y2 <= py) || (y2 > py && y1 <= py) else { continue }
                var side = CrossingLists.side(x1, y1, x2, y2, px, py)
                if side == 0 { return nil }
                if y2 < y1 { side = -side }
                if side == 1 { parity.toggle() }
            }
            return parity
        }
    }
}
