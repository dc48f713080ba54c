#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bounds on the GCJ-02 offset over a whole longitude/latitude box, by interval arithmetic on the
/// published formula: for every WGS-84 point p in the box, the offset ``DatumTransform/offset(_:)``
/// computes at p lies inside the bounds. Lets the engine decide once, at index time, that every point of a
/// WGS-84 cell lands in the same place of a GCJ-02 dataset (see ``WGS84Grid``).
///
/// Each term is bounded on its own (so the bounds are wider than the offset's true range, never
/// narrower), then widened by 1e-12° for the formula's own rounding, which is about 1e-16°.
enum OffsetBounds {
    struct Interval {
        var lo: Double, hi: Double
        init(_ lo: Double, _ hi: Double) { self.lo = lo; self.hi = hi }
        init(_ v: Double) { lo = v; hi = v }
        static func + (a: Interval, b: Interval) -> Interval { Interval(a.lo + b.lo, a.hi + b.hi) }
        static func * (a: Interval, b: Interval) -> Interval {
            let p0 = a.lo * b.lo, p1 = a.lo * b.hi, p2 = a.hi * b.lo, p3 = a.hi * b.hi
            return Interval(min(min(p0, p1), min(p2, p3)), max(max(p0, p1), max(p2, p3)))
        }
        static func * (k: Double, a: Interval) -> Interval { k >= 0 ? Interval(k * a.lo, k * a.hi) : Interval(k * a.hi, k * a.lo) }
        /// Grown by `e` on both sides (rounding slack).
        func widened(_ e: Double) -> Interval { Interval(lo - e, hi + e) }
    }

    /// sin(k·π·t) for t in `t` (k > 0).
    static func sinPi(_ k: Double, _ t: Interval) -> Interval {
        let a = k * Double.pi * t.lo, b = k * Double.pi * t.hi
        if b - a >= 2 * Double.pi { return Interval(-1, 1) }
        var lo = min(sin(a), sin(b)), hi = max(sin(a), sin(b))
        // An extremum inside: sin peaks at π/2 + 2πn and bottoms at -π/2 + 2πn.
        let slack = 1e-9
        let firstPeak = (((a - Double.pi / 2) / (2 * Double.pi)).rounded(.up)) * 2 * Double.pi + Double.pi / 2
        if firstPeak <= b + slack { hi = 1 }
        let firstTrough = (((a + Double.pi / 2) / (2 * Double.pi)).rounded(.up)) * 2 * Double.pi - Double.pi / 2
        if firstTrough <= b + slack { lo = -1 }
        return Interval(lo, hi).widened(1e-12)
    }

    /// √|t| for t in `t`.
    static func sqrtAbs(_ t: Interval) -> Interval {
        let m = max(abs(t.lo), abs(t.hi))
        let n = (t.lo <= 0 && t.hi >= 0) ? 0 : min(abs(t.lo), abs(t.hi))
        return Interval(n.squareRoot(), m.squareRoot()).widened(1e-12)
    }

    /// The terms of the formula that depend on the longitude only (a grid's column).
    struct LongitudeTerms {
        var x: Interval, sqrtLat: Interval, t1: Interval, xx: Interval, sqrtLon: Interval, lonA: Interval, lonB: Interval
    }

    /// The terms that depend on the latitude only (a grid's row), with the two scale factors.
    struct LatitudeTerms {
        var y: Interval, yy: Interval, latA: Interval, latB: Interval, kLat: Interval, kLon: Interval
    }

    static func terms(longitudes: ClosedRange<Double>) -> LongitudeTerms {
        let x = Interval(longitudes.lowerBound - 105, longitudes.upperBound - 105).widened(1e-12)
        return LongitudeTerms(x: x, sqrtLat: 0.2 * sqrtAbs(x), t1: (2.0 / 3.0) * (20 * sinPi(6, x) + 20 * sinPi(2, x)),
                              xx: 0.1 * (x * x), sqrtLon: 0.1 * sqrtAbs(x),
                              lonA: (2.0 / 3.0) * (20 * sinPi(1, x) + 40 * sinPi(1.0 / 3.0, x)),
                              lonB: (2.0 / 3.0) * (150 * sinPi(1.0 / 12.0, x) + 300 * sinPi(1.0 / 30.0, x)))
    }

    static func terms(latitudes: ClosedRange<Double>) -> LatitudeTerms {
        let y = Interval(latitudes.lowerBound - 35, latitudes.upperBound - 35).widened(1e-12)
        // Scale factors from the latitude (monotone in |latitude| over China's rectangle, all north).
        let a = DatumTransform.a, ee = DatumTransform.ee
        func scales(_ lat: Double) -> (Double, Double) {
            let rad = lat / 180 * Double.pi
            let magic = 1 - ee * sin(rad) * sin(rad)
            let sq = magic.squareRoot()
            return (180 / ((a * (1 - ee)) / (magic * sq) * Double.pi), 180 / (a / sq * cos(rad) * Double.pi))
        }
        let (kLat0, kLon0) = scales(latitudes.lowerBound), (kLat1, kLon1) = scales(latitudes.upperBound)
        return LatitudeTerms(y: y, yy: 0.2 * (y * y),
                             latA: (2.0 / 3.0) * (20 * sinPi(1, y) + 40 * sinPi(1.0 / 3.0, y)),
                             latB: (2.0 / 3.0) * (160 * sinPi(1.0 / 12.0, y) + 320 * sinPi(1.0 / 30.0, y)),
                             kLat: Interval(min(kLat0, kLat1), max(kLat0, kLat1)).widened(1e-15 * max(kLat0, kLat1)),
                             kLon: Interval(min(kLon0, kLon1), max(kLon0, kLon1)).widened(1e-15 * max(kLon0, kLon1)))
    }

    /// (latitude offset, longitude offset) bounds, in degrees, over the box whose column and row terms
    /// are given: only the mixed x·y term is computed here, so a grid pays for the sines once per
    /// column and once per row, not once per cell.
    static func offset(_ lx: LongitudeTerms, _ ly: LatitudeTerms) -> (lat: Interval, lon: Interval) {
        let x = lx.x, y = ly.y, xy = 0.1 * (x * y)
        var dLat = Interval(-100) + 2 * x + 3 * y + ly.yy + xy + lx.sqrtLat + lx.t1
        dLat = dLat + ly.latA
        dLat = dLat + ly.latB
        var dLon = Interval(300) + x + 2 * y + lx.xx + xy + lx.sqrtLon + lx.t1
        dLon = dLon + lx.lonA
        dLon = dLon + lx.lonB
        return ((dLat * ly.kLat).widened(1e-12), (dLon * ly.kLon).widened(1e-12))
    }

    /// (latitude offset, longitude offset) bounds, in degrees, over the box.
    static func offset(longitudes: ClosedRange<Double>, latitudes: ClosedRange<Double>) -> (lat: Interval, lon: Interval) {
        offset(terms(longitudes: longitudes), terms(latitudes: latitudes))
    }
}
