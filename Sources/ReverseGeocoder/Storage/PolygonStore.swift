/// The polygons of one layer as flat arrays: every ring's vertices (interleaved x, y, each ring closed),
/// where each ring starts, which rings each polygon has, and each polygon's box.
///
/// This is what the indexes and the index cache share: the crossing lists index `vertices` directly, and
/// a GEOS geometry is made from a polygon's rings only when a query needs GEOS (a point within rounding
/// of an edge, or an index built without cells), by that thread's own context.
final class PolygonStore: @unchecked Sendable {
    // @unchecked: immutable after init; the buffers are either owned (freed in deinit) or point into
    // `owner`, a mapped index cache that outlives them.
    nonisolated(unsafe) let vertices: UnsafeBufferPointer<Double>
    /// Ring r's vertices are `ringStart[r] ..< ringStart[r + 1]` (vertex numbers, not array offsets).
    nonisolated(unsafe) let ringStart: UnsafeBufferPointer<UInt32>
    /// Polygon p's rings are `partRings[p] ..< partRings[p + 1]`, shell first.
    nonisolated(unsafe) let partRings: UnsafeBufferPointer<UInt32>
    /// minX, minY, maxX, maxY of each polygon, flat (the index cache's layout); read one as a ``Box``
    /// with ``envelope(_:)``.
    nonisolated(unsafe) let envelopes: UnsafeBufferPointer<Double>
    private let owner: (any AnyObject & Sendable)?

    var count: Int { partRings.count - 1 }
    var vertexCount: Int { vertices.count / 2 }

    /// Takes the arrays of a mapped cache (already checked for size and consistency).
    init(vertices: UnsafeBufferPointer<Double>, ringStart: UnsafeBufferPointer<UInt32>, partRings: UnsafeBufferPointer<UInt32>,
         envelopes: UnsafeBufferPointer<Double>, owner: any AnyObject & Sendable) {
        self.vertices = vertices
        self.ringStart = ringStart
        self.partRings = partRings
        self.envelopes = envelopes
        self.owner = owner
    }

    /// Copies the rings out of GEOS polygons, each array written once where it stays: the rings are
    /// counted first, then copied from GEOS straight into the one vertex buffer (an array per ring in
    /// between was 15 MB of fresh memory and a fifth of the bundled build's page faults).
    init(polygons: [Geometry]) {
        // Rings of fewer than 4 vertices are dropped, as GEOS would not make a polygon of them.
        let counts = polygons.map { $0.ringVertexCounts() }
        var ringCount = 0, coordinates = 0
        for c in counts { for n in c where n >= 4 { ringCount += 1; coordinates += 2 * n } }
        precondition(coordinates / 2 < Int(UInt32.max), "a layer with more than 4 billion vertices")
        let xy = LargeAllocation.allocate(Double.self, count: coordinates)
        let rs = LargeAllocation.allocate(UInt32.self, count: ringCount + 1)
        let pr = LargeAllocation.allocate(UInt32.self, count: polygons.count + 1)
        let env = LargeAllocation.allocate(Double.self, count: 4 * polygons.count)
        var n = 0, r = 0
        rs[0] = 0
        pr[0] = 0
        for (p, g) in polygons.enumerated() {
            for (i, count) in counts[p].enumerated() where count >= 4 {
                g.copyRing(i, into: UnsafeMutableBufferPointer(rebasing: xy[n..<(n + 2 * count)]))
                n += 2 * count
                r += 1
                rs[r] = UInt32(n / 2)
            }
            pr[p + 1] = UInt32(r)
            let e = g.envelope
            env[4 * p] = e.minX; env[4 * p + 1] = e.minY; env[4 * p + 2] = e.maxX; env[4 * p + 3] = e.maxY
        }
        vertices = UnsafeBufferPointer(xy)
        ringStart = UnsafeBufferPointer(rs)
        partRings = UnsafeBufferPointer(pr)
        envelopes = UnsafeBufferPointer(env)
        owner = nil
    }

    deinit {
        guard owner == nil else { return }
        for b in [vertices, envelopes] { LargeAllocation.free(b) }
        for b in [ringStart, partRings] { LargeAllocation.free(b) }
    }

    @inline(__always)
    func envelope(_ p: Int) -> Box {
        Box(minX: envelopes[4 * p], minY: envelopes[4 * p + 1], maxX: envelopes[4 * p + 2], maxY: envelopes[4 * p + 3])
    }

    /// The edge ranges of polygon p: one per ring (a ring of n vertices has n - 1 edges; edge k runs from
    /// vertex k to vertex k + 1).
    func edgeRanges(_ p: Int) -> [Range<Int>] {
        (Int(partRings[p])..<Int(partRings[p + 1])).map { r in Int(ringStart[r])..<(Int(ringStart[r + 1]) - 1) }
    }

    /// Polygon p as a GEOS geometry owned by `context`, built from the flat arrays by the same code the
    /// loader builds polygons with. It cannot fail for rings GEOS accepted before, short of memory; a
    /// failure is the caller's error to report (a load error at build, a query error at query time).
    func geometry(_ p: Int, context: GEOSContext) throws(GEOSError) -> Geometry {
        // Ring boundaries of polygon p: ringStart[partRings[p]] ... ringStart[partRings[p + 1]].
        let bounds = UnsafeBufferPointer(rebasing: ringStart[Int(partRings[p])...Int(partRings[p + 1])])
        return try Geometry.polygon(vertices: vertices.baseAddress!, ringBounds: bounds, context: context)
    }
}
