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

    /// Copies the rings out of GEOS polygons.
    init(polygons: [Geometry]) {
        var xy: [Double] = [], rs: [UInt32] = [0], pr: [UInt32] = [0], env: [Double] = []
        for g in polygons {
            for ring in g.rings() where ring.count >= 8 {
                xy += ring
                rs.append(UInt32(xy.count / 2))
            }
            pr.append(UInt32(rs.count - 1))
            let e = g.envelope
            env += [e.minX, e.minY, e.maxX, e.maxY]
        }
        precondition(xy.count / 2 < Int(UInt32.max), "a layer with more than 4 billion vertices")
        func copy<T>(_ a: [T]) -> UnsafeBufferPointer<T> {
            let b = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, a.count))
            _ = b.initialize(from: a)
            return UnsafeBufferPointer(rebasing: b[0..<a.count])
        }
        vertices = copy(xy)
        ringStart = copy(rs)
        partRings = copy(pr)
        envelopes = copy(env)
        owner = nil
    }

    deinit {
        guard owner == nil else { return }
        for b in [UnsafeRawPointer(vertices.baseAddress), UnsafeRawPointer(ringStart.baseAddress),
                  UnsafeRawPointer(partRings.baseAddress), UnsafeRawPointer(envelopes.baseAddress)] {
            UnsafeMutableRawPointer(mutating: b)?.deallocate()
        }
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
