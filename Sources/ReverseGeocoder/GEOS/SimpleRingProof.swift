/// A proof, without GEOS, that a polygon of one ring and no holes is valid by GEOS's rules, for the
/// common case at reading (a simple ring); every case it cannot prove is left to GEOS's `isValid`, so a
/// layer is read exactly as strictly as with GEOS alone. GEOS's check noded every ring's segments
/// (≈ 1,000 instructions a vertex, 1.0 G of a bundled China build); this is a sweep over edge boxes.
///
/// Why "proved" means "GEOS says valid" (GEOS 3.10+ `IsValidOp` on a polygon without holes):
/// - coordinates finite, ring closed (first point = last, exactly): checked here;
/// - at least 4 points that differ from their predecessor: here no point equals its predecessor and
///   there are at least 4;
/// - no invalid intersection (`PolygonIntersectionAnalyzer`): GEOS flags a pair of the ring's segments
///   only when its `LineIntersector` finds them intersecting, and then lets through only adjacent
///   segments meeting at one point. Here every pair of non-adjacent edges is proved disjoint — their
///   boxes are apart (exact comparisons), or both ends of one lie strictly on one side of the other's
///   line (the sign of ``CrossingLists/side`` certain, so the exact sign, which GEOS's double-double
///   orientation also finds, and with it GEOS's "no intersection") — and every two adjacent edges meet
///   only at their shared vertex: they are not collinear (certain turn), or they point apart (a certainly
///   negative dot product of the two directions from the shared vertex, so they cannot overlap);
/// - holes in the shell, holes not nested, interior connected: no holes, and with no touching segment
///   no self-touch disconnects the interior.
/// Anything else — a hole, a repeated point, a pair in doubt — answers false, and GEOS decides.
/// `SimpleRingProofTests` compares it with GEOS on real and constructed rings, valid and invalid.
enum SimpleRingProof {
    /// One ring edge's west end and its number in the ring: what the sweep sorts (16 bytes, moved
    /// cheaply; the rest of its box is read from the ring).
    struct EdgeStart {
        var minX: Double
        var edge: Int
    }

    /// True only when the polygon with `ring` (x, y interleaved, closed) as its shell and no holes is
    /// certainly valid by GEOS's rules; false means "not proved" (GEOS decides), not "invalid".
    static func provesValid(_ ring: [Double]) -> Bool {
        ring.withUnsafeBufferPointer { provesValid($0) }
    }

    static func provesValid(_ xy: UnsafeBufferPointer<Double>) -> Bool {
        let points = xy.count / 2
        guard xy.count % 2 == 0, points >= 4 else { return false }
        let m = points - 1  // edges: edge i runs from point i to point i + 1
        guard xy[0] == xy[2 * m], xy[1] == xy[2 * m + 1] else { return false }
        for v in xy where !v.isFinite { return false }
        for i in 0..<m where xy[2 * i] == xy[2 * i + 2] && xy[2 * i + 1] == xy[2 * i + 3] { return false }
        // Adjacent edges (i - 1, i) at point i, the closing pair (m - 1, 0) at point 0 = point m.
        for i in 0..<m {
            let b = i == 0 ? m : i
            let ax = xy[2 * (b - 1)], ay = xy[2 * (b - 1) + 1], bx = xy[2 * b], by = xy[2 * b + 1]
            let cx = xy[2 * (i + 1)], cy = xy[2 * (i + 1) + 1]
            if CrossingLists.side(ax, ay, bx, by, cx, cy) != 0 { continue }
            // Collinear or nearly: fine when the directions from b are certainly apart.
            let ux = ax - bx, uy = ay - by, vx = cx - bx, vy = cy - by
            let p = ux * vx, q = uy * vy
            if p + q < -1e-12 * (abs(p) + abs(q)) { continue }
            return false
        }
        guard m > 3 else { return true }  // a triangle's edges are all adjacent
        // Non-adjacent pairs whose boxes overlap, by a sweep in x.
        var starts: [EdgeStart] = []
        starts.reserveCapacity(m)
        for i in 0..<m { starts.append(EdgeStart(minX: min(xy[2 * i], xy[2 * i + 2]), edge: i)) }
        return starts.withUnsafeMutableBufferPointer { starts in
            sortByMinX(starts)
            for a in 0..<m {
                let i0 = starts[a].edge
                let maxX = max(xy[2 * i0], xy[2 * i0 + 2])
                let minY = min(xy[2 * i0 + 1], xy[2 * i0 + 3]), maxY = max(xy[2 * i0 + 1], xy[2 * i0 + 3])
                var b = a + 1
                while b < m, starts[b].minX <= maxX {
                    let j0 = starts[b].edge
                    b += 1
                    if min(xy[2 * j0 + 1], xy[2 * j0 + 3]) > maxY || max(xy[2 * j0 + 1], xy[2 * j0 + 3]) < minY { continue }
                    let i = min(i0, j0), j = max(i0, j0)
                    if j == i + 1 || (i == 0 && j == m - 1) { continue }  // adjacent: checked above
                    if !disjoint(xy, i, j) { return false }
                }
            }
            return true
        }
    }

    /// Sorts the edges by their west end. The sweep checks the same pairs whatever the order of equal
    /// ends, so any sort will do: by buckets of equal width over the ring's span (a counting sort, the
    /// ends spread fairly evenly), each bucket then by ``Swift/UnsafeMutableBufferPointer/sortShort(by:)``.
    /// The library's sort of the whole ring was 0.15 G instructions of a bundled China build.
    static func sortByMinX(_ a: UnsafeMutableBufferPointer<EdgeStart>) {
        let n = a.count
        guard n > 1 else { return }
        var lo = a[0].minX, hi = a[0].minX
        for e in a { lo = min(lo, e.minX); hi = max(hi, e.minX) }
        guard hi > lo else { return }
        let buckets = max(1, n / 4)
        // (x - lo) * scale lies in 0 ... buckets (rounding may reach it): clamped to the last bucket.
        let scale = Double(buckets) / (hi - lo)
        @inline(__always) func bucket(_ x: Double) -> Int { min(buckets - 1, Int((x - lo) * scale)) }
        var start = [Int](repeating: 0, count: buckets + 1)
        for e in a { start[bucket(e.minX) + 1] += 1 }
        for b in 0..<buckets { start[b + 1] += start[b] }
        let sorted = UnsafeMutableBufferPointer<EdgeStart>.allocate(capacity: n)
        defer { sorted.deallocate() }
        var at = start
        for e in a {
            let b = bucket(e.minX)
            sorted[at[b]] = e
            at[b] += 1
        }
        for b in 0..<buckets where start[b + 1] - start[b] > 1 {
            UnsafeMutableBufferPointer(rebasing: sorted[start[b]..<start[b + 1]]).sortShort { $0.minX < $1.minX }
        }
        _ = a.update(fromContentsOf: sorted)
    }

    /// Whether edges i and j are certainly disjoint: both ends of one strictly on one side of the other.
    @inline(__always)
    private static func disjoint(_ xy: UnsafeBufferPointer<Double>, _ i: Int, _ j: Int) -> Bool {
        let px1 = xy[2 * i], py1 = xy[2 * i + 1], px2 = xy[2 * i + 2], py2 = xy[2 * i + 3]
        let qx1 = xy[2 * j], qy1 = xy[2 * j + 1], qx2 = xy[2 * j + 2], qy2 = xy[2 * j + 3]
        let s1 = CrossingLists.side(px1, py1, px2, py2, qx1, qy1), s2 = CrossingLists.side(px1, py1, px2, py2, qx2, qy2)
        if s1 != 0 && s1 == s2 { return true }
        let t1 = CrossingLists.side(qx1, qy1, qx2, qy2, px1, py1), t2 = CrossingLists.side(qx1, qy1, qx2, qy2, px2, py2)
        return t1 != 0 && t1 == t2
    }
}
