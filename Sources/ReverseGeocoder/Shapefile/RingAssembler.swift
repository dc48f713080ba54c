/// Turns a record's rings into polygons (shell + holes).
///
/// The shapefile spec says shells wind clockwise and holes counter-clockwise, but real files get it
/// wrong (whole files wound backwards, single rings reversed). So winding is not trusted: every ring's
/// role comes from nesting. Rings are taken largest first; each ring's parent is the smallest ring
/// already seen that contains it; even nesting depth is a shell, odd depth a hole of its parent. For
/// well-formed files this is exactly "each hole goes to the smallest shell containing it"; a "hole"
/// contained by nothing (an orphan) becomes a shell, and a reversed file still gets its holes.
/// Rings that disagree with their winding are counted in ``Statistics/windingCorrected``.
///
/// Antimeridian: a ring with a jump of more than 180° between consecutive vertices crosses ±180°. The
/// record is then moved into one continuous frame by adding 360° to its negative longitudes, so GEOS
/// sees a proper polygon spanning e.g. 177°…183°; the query side tests x + 360 for western points.
struct RingAssembler {
    struct Statistics {
        var degenerateRings = 0
        var windingCorrected = 0
        var antimeridianRecords = 0
    }

    struct Polygon {
        var shell: [Double]
        var holes: [[Double]]
    }

    private struct Ring {
        var xy: [Double]
        var signedArea: Double
        var minX, minY, maxX, maxY: Double
        var parent = -1
        var depth = 0
    }

    static func assemble(_ input: [[Double]], statistics: inout Statistics) -> [Polygon] {
        var rings: [[Double]] = []
        for var xy in input {
            // Close open rings; a ring needs 3 distinct corners (4 points closed) to enclose anything.
            if xy.count >= 2, xy[0] != xy[xy.count - 2] || xy[1] != xy[xy.count - 1] {
                xy.append(xy[0]); xy.append(xy[1])
            }
            if xy.count < 8 { statistics.degenerateRings += 1; continue }
            rings.append(xy)
        }

        if rings.contains(where: crossesAntimeridian) {
            statistics.antimeridianRecords += 1
            for i in rings.indices {
                for j in stride(from: 0, to: rings[i].count, by: 2) where rings[i][j] < 0 { rings[i][j] += 360 }
            }
        }

        var all: [Ring] = []
        for xy in rings {
            let area = signedArea(xy)
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            for j in stride(from: 0, to: xy.count, by: 2) {
                minX = min(minX, xy[j]); maxX = max(maxX, xy[j])
                minY = min(minY, xy[j + 1]); maxY = max(maxY, xy[j + 1])
            }
            // A flat ring encloses nothing. (Zero signed area alone is not enough: a symmetric bow-tie has
            // it too, and GEOS repairs that into two real triangles.)
            if minX == maxX || minY == maxY { statistics.degenerateRings += 1; continue }
            all.append(Ring(xy: xy, signedArea: area, minX: minX, minY: minY, maxX: maxX, maxY: maxY))
        }
        if all.count == 1 {
            if all[0].signedArea > 0 { statistics.windingCorrected += 1 }
            return [Polygon(shell: all[0].xy, holes: [])]
        }

        // Largest first (stable for equal areas), then find each ring's smallest container.
        let order = all.indices.sorted { abs(all[$0].signedArea) != abs(all[$1].signedArea) ? abs(all[$0].signedArea) > abs(all[$1].signedArea) : $0 < $1 }
        var sorted = order.map { all[$0] }
        for i in sorted.indices {
            for j in stride(from: i - 1, through: 0, by: -1) {  // smaller candidates first
                let c = sorted[j], r = sorted[i]
                guard c.minX <= r.minX, c.minY <= r.minY, c.maxX >= r.maxX, c.maxY >= r.maxY else { continue }
                if contains(ring: c.xy, anyVertexOf: r.xy) {
                    sorted[i].parent = j
                    sorted[i].depth = sorted[j].depth + 1
                    break
                }
            }
        }

        // Shoelace area is positive for counter-clockwise rings: shells should be negative (clockwise).
        var polygons: [Polygon] = []
        var polygonOf = [Int](repeating: -1, count: sorted.count)
        for i in sorted.indices {
            let isShell = sorted[i].depth % 2 == 0
            if isShell != (sorted[i].signedArea < 0) { statistics.windingCorrected += 1 }
            if isShell {
                polygonOf[i] = polygons.count
                polygons.append(Polygon(shell: sorted[i].xy, holes: []))
            } else {
                polygons[polygonOf[sorted[i].parent]].holes.append(sorted[i].xy)
            }
        }
        return polygons
    }

    static func crossesAntimeridian(_ xy: [Double]) -> Bool {
        var j = 2
        while j < xy.count {
            // An edge along a pole (both ends at latitude ±90, e.g. 180,-90 → -180,-90) is a single point
            // on the sphere, not a crossing: a polygon around the pole is already a proper polygon in
            // longitude/latitude (Antarctica/McMurdo in the time zones); shifting it would break it.
            let alongPole = abs(xy[j + 1]) == 90 && xy[j + 1] == xy[j - 1]
            if abs(xy[j] - xy[j - 2]) > 180 && !alongPole { return true }
            j += 2
        }
        return false
    }

    static func signedArea(_ xy: [Double]) -> Double {
        var sum = 0.0
        var j = 0
        while j + 3 < xy.count {
            sum += xy[j] * xy[j + 3] - xy[j + 2] * xy[j + 1]
            j += 2
        }
        return sum / 2
    }

    /// Whether `inner` lies inside `ring`, judged by the first vertex of `inner` that is not on `ring`'s
    /// boundary (rings of a valid polygon touch at most at single points). A ring identical to `ring`
    /// (every vertex on the boundary) is not inside it.
    static func contains(ring: [Double], anyVertexOf inner: [Double]) -> Bool {
        var j = 0
        while j + 1 < inner.count {
            switch locate(x: inner[j], y: inner[j + 1], in: ring) {
            case .inside: return true
            case .outside: return false
            case .boundary: j += 2
            }
        }
        return false
    }

    enum Location { case inside, outside, boundary }

    /// Crossing-number point-in-ring test with an exact on-segment check.
    static func locate(x: Double, y: Double, in ring: [Double]) -> Location {
        var inside = false
        var j = 0
        while j + 3 < ring.count {
            let x1 = ring[j], y1 = ring[j + 1], x2 = ring[j + 2], y2 = ring[j + 3]
            // On the segment: collinear and within its box.
            let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
            if cross == 0, min(x1, x2) <= x, x <= max(x1, x2), min(y1, y2) <= y, y <= max(y1, y2) {
                return .boundary
            }
            if (y1 > y) != (y2 > y) {
                let xCross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                if x < xCross { inside.toggle() }
            }
            j += 2
        }
        return inside ? .inside : .outside
    }
}
