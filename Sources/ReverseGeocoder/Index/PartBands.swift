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
///
/// Raw memory, freed by ``free()`` (its owner, ``CellBuildInputs``, does): the builder asks this about
/// a million times per million vertices, and a struct of Swift arrays cost a bounds check per array and
/// a retain of each whenever it was handed over.
struct PartBands {
    /// One part's bands: `count` bands of the same height from `south`, the first being band `first`
    /// of all parts'. One record, so a question reads one cache line for it, not four arrays.
    private struct Part {
        var south: Double
        /// 1 / the bands' height (a product, not a division, per band look-up).
        var scale: Double
        var first: Int32, count: Int32
    }

    private let parts: UnsafeMutableBufferPointer<Part>
    /// Band b's edges are `edges[bandStart[b] ..< bandStart[b + 1]]`, as indices into the builder's segments.
    private let bandStart: UnsafeMutableBufferPointer<Int>
    private let edges: UnsafeMutableBufferPointer<UInt32>

    /// Edges per band, on average, for a polygon drawn with short edges (a long edge is filed in every
    /// band it spans).
    static let edgesPerBand = 8

    init(segments: UnsafeMutableBufferPointer<BuildSegment>, segStart: [Int32], boxes: UnsafeMutableBufferPointer<Box>) {
        let partCount = segStart.count - 1
        parts = LargeAllocation.allocate(Part.self, count: partCount)
        var bandCount = 0
        for p in 0..<partCount {
            let n = Int(segStart[p + 1] - segStart[p])
            let bands = max(1, n / Self.edgesPerBand)
            let h = (boxes[p].maxY - boxes[p].minY) / Double(bands)
            let scale = 1 / h
            parts[p] = Part(south: boxes[p].minY, scale: h > 0 && scale.isFinite ? scale : 1, first: Int32(bandCount), count: Int32(bands))
            bandCount += bands
            precondition(bandCount < Int(Int32.max), "too many edge bands for one layer")
        }
        // Two passes over the edges: count each band's, then file them (in edge order within a band).
        let start = LargeAllocation.allocate(Int.self, count: bandCount + 1)
        start.initialize(repeating: 0)
        for p in 0..<partCount {
            let part = parts[p], base = Int(part.first)
            for k in Int(segStart[p])..<Int(segStart[p + 1]) {
                let (b0, b1) = Self.bands(of: segments[k], in: part)
                for b in (base + b0)...(base + b1) { start[b + 1] += 1 }
            }
        }
        for b in 0..<bandCount { start[b + 1] += start[b] }
        let filed = LargeAllocation.allocate(UInt32.self, count: start[bandCount])
        let at = LargeAllocation.allocate(Int.self, count: bandCount)
        defer { LargeAllocation.free(at) }
        for b in 0..<bandCount { at[b] = start[b] }
        for p in 0..<partCount {
            let part = parts[p], base = Int(part.first)
            for k in Int(segStart[p])..<Int(segStart[p + 1]) {
                let (b0, b1) = Self.bands(of: segments[k], in: part)
                for b in (base + b0)...(base + b1) {
                    filed[at[b]] = UInt32(k)
                    at[b] += 1
                }
            }
        }
        bandStart = start
        edges = filed
    }

    /// Frees the three buffers; the bands are not used after.
    func free() {
        LargeAllocation.free(parts)
        LargeAllocation.free(bandStart)
        LargeAllocation.free(edges)
    }

    /// The bands (of its part's, from 0) an edge's y-range spans.
    @inline(__always)
    private static func bands(of s: BuildSegment, in part: Part) -> (Int, Int) {
        (band(min(s.y1, s.y2), in: part), band(max(s.y1, s.y2), in: part))
    }

    /// The band of a y among a part's bands 0 ..< count: monotone in y (see the type's comment), which
    /// is all exactness needs of it. Truncation is the floor here (the value is at least 1 when it is
    /// truncated), without the libm call `rounded(.down)` makes.
    @inline(__always)
    private static func band(_ y: Double, in part: Part) -> Int {
        let v = (y - part.south) * part.scale, last = Int(part.count) - 1
        return v < 1 ? 0 : v >= Double(last) ? last : Int(v)
    }

    /// Whether (px, py) is in part p's interior, by GEOS's rules; nil when GEOS would find it on the
    /// boundary or a side is not certain (the caller asks GEOS).
    @inline(__always)
    func interior(_ p: Int, _ px: Double, _ py: Double, segments: UnsafeMutableBufferPointer<BuildSegment>) -> Bool? {
        let part = parts[p]
        let b = Int(part.first) + Self.band(py, in: part)
        var parity = false
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
