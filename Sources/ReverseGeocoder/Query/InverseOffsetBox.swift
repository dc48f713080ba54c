/// Where the GCJ-02 → WGS-84 conversion can put a point, without running it.
///
/// A GCJ-02 query against a WGS-84 overlay (China's data with the time zones) had to invert the GCJ-02
/// offset for the overlay: a fixed-point iteration of the eleven-sine formula, some 1,500 instructions,
/// several times the whole lookup. But almost everywhere the zone is the same for kilometres around,
/// and the inversion can only land near the point:
/// ``DatumTransform/gcj02ToWGS84(_:)`` steps w ← w − (gcj(w) − c), where gcj(w) is w + offset(w) inside
/// the formula's rectangle and w outside it. Each step's result is therefore c − offset(p) for a point p
/// of the rectangle, or c itself. So the result lies in c minus the range of the offset over the
/// rectangle, which ``OffsetBounds`` bounds rigorously (interval arithmetic, tile by tile); this box is
/// that, plus c, grown by far more than the few ulps the subtractions round by. When an overlay layer's
/// cells give one answer over the whole box (``CellIndex/boxAnswer(x0:y0:x1:y1:)``), that is the answer
/// for the converted point, whichever it is: the same answer as before, without the conversion.
enum InverseOffsetBox {
    /// The offset's range over the whole rectangle, 0 included (the identity outside it), in degrees.
    struct Range {
        var latitude: ClosedRange<Double>
        var longitude: ClosedRange<Double>
    }

    /// Computed once (a few milliseconds): the union of ``OffsetBounds`` over quarter-degree tiles, which
    /// is about 0.011° × 0.007° where the bound over the whole rectangle at once would be far wider.
    static let range: Range = {
        let x0 = 72.004, x1 = 137.8347, y0 = 0.8293, y1 = 55.8271, step = 0.25
        let columns = Int(((x1 - x0) / step).rounded(.up)), rows = Int(((y1 - y0) / step).rounded(.up))
        let longitudeTerms = (0..<columns).map { i in
            OffsetBounds.terms(longitudes: (x0 + Double(i) * step)...min(x1, x0 + Double(i + 1) * step))
        }
        var latLo = 0.0, latHi = 0.0, lonLo = 0.0, lonHi = 0.0
        for j in 0..<rows {
            let ly = OffsetBounds.terms(latitudes: (y0 + Double(j) * step)...min(y1, y0 + Double(j + 1) * step))
            for lx in longitudeTerms {
                let o = OffsetBounds.offset(lx, ly)
                latLo = min(latLo, o.lat.lo); latHi = max(latHi, o.lat.hi)
                lonLo = min(lonLo, o.lon.lo); lonHi = max(lonHi, o.lon.hi)
            }
        }
        return Range(latitude: latLo...latHi, longitude: lonLo...lonHi)
    }()

    /// Slack for the rounding of the inversion's subtractions (about 1e-13° at these magnitudes).
    static let slack = 1e-9

    /// Every point ``DatumTransform/gcj02ToWGS84(_:)`` can return for the GCJ-02 point `c`.
    @inline(__always)
    static func around(_ c: Coordinate) -> Box {
        let r = range
        return Box(minX: c.longitude - r.longitude.upperBound - slack, minY: c.latitude - r.latitude.upperBound - slack,
                   maxX: c.longitude - r.longitude.lowerBound + slack, maxY: c.latitude - r.latitude.lowerBound + slack)
    }
}

extension LayerIndex {
    /// What ``locate(x:y:in:)`` answers for every point of `box`, when the cells say it is one answer:
    /// `.unit(u)` or `.empty`; `.mixed` when they do not, or cannot tell (no cells; a box reaching west
    /// of 0° in a layer whose units are stored east of 180°, where locate also looks at the twin).
    func answer(throughout box: Box) -> CellIndex.BoxAnswer {
        // Through the unretained reference: `guard let cells` retained and released the shared index on
        // every GCJ-02 query with an overlay, two atomic writes to a line every thread writes (China with
        // time zones scaled 1.58x on two threads, the world set 1.87x; perf put the retain at 1.6 % of
        // one thread's samples and 3.6 % of two threads').
        guard let hotCells, !hasWrappedParts || box.minX >= 0 else { return .mixed }
        return hotCells._withUnsafeGuaranteedRef { $0.boxAnswer(x0: box.minX, y0: box.minY, x1: box.maxX, y1: box.maxY) }
    }
}
