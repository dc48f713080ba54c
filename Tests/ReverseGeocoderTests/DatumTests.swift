import Testing
import TestSupport
@testable import ReverseGeocoder

/// Published vectors (eviltransform and coordtransform test suites).
struct DatumTests {
    func close(_ a: Coordinate, _ lat: Double, _ lon: Double, tol: Double = 1e-9) -> Bool {
        abs(a.latitude - lat) < tol && abs(a.longitude - lon) < tol
    }

    @Test func wgsToGCJVectors() {
        let cases: [(Double, Double, Double, Double)] = [
            (31.1774276, 121.5272106, 31.17530398364597, 121.531541859215),        // Shanghai
            (22.543847, 113.912316, 22.540796131694766, 113.9171764808363),        // Shenzhen
            (39.911954, 116.377817, 39.91334545536069, 116.38404722455657),        // Beijing
            (39.915, 116.404, 39.91640428150164, 116.41024449916938),              // coordtransform
        ]
        for (lat, lon, elat, elon) in cases {
            let g = Datum.convert(Coordinate(latitude: lat, longitude: lon), from: .wgs84, to: .gcj02)
            #expect(close(g, elat, elon), "\(lat),\(lon) → \(g)")
        }
    }

    @Test func baiduVectors() {
        let p = Coordinate(latitude: 39.915, longitude: 116.404)
        #expect(close(Datum.convert(p, from: .bd09, to: .gcj02), 39.90865673957631, 116.39762729119315))
        #expect(close(Datum.convert(p, from: .gcj02, to: .bd09), 39.92133699351021, 116.41036949371029))
    }

    @Test func gcjInverseIsWithinHalfAMetre() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let w = Coordinate(latitude: 18 + rng.unitInterval() * 35, longitude: 75 + rng.unitInterval() * 60)
            let back = Datum.convert(Datum.convert(w, from: .wgs84, to: .gcj02), from: .gcj02, to: .wgs84)
            #expect(w.distance(to: back) < 0.005)
            let bd = Datum.convert(w, from: .wgs84, to: .bd09)
            #expect(w.distance(to: Datum.convert(bd, from: .bd09, to: .wgs84)) < 0.5)
        }
    }

    /// The shared-sine offset against the formula exactly as published, over China's whole rectangle:
    /// the offsets agree to far below a coordinate's rounding, and the shifted points almost always to the bit.
    @Test func fastOffsetMatchesThePublishedFormula() {
        var rng = SplitMix64(seed: 21)
        var identical = 0
        let n = 200_000
        for _ in 0..<n {
            let c = Coordinate(latitude: 0.83 + rng.unitInterval() * 55, longitude: 72.01 + rng.unitInterval() * 65.8)
            let (a, b) = DatumTransform.offset(c), (ra, rb) = DatumTransform.referenceOffset(c)
            #expect(abs(a - ra) < 1e-16 && abs(b - rb) < 1e-16, "\(c): \(a - ra), \(b - rb)")
            if c.latitude + a == c.latitude + ra && c.longitude + b == c.longitude + rb { identical += 1 }
        }
        #expect(identical > n * 99 / 100, "\(identical) of \(n) identical")
    }

    @Test func outsideChinaIsIdentity() {
        let berlin = Coordinate(latitude: 52.52, longitude: 13.405)
        #expect(Datum.convert(berlin, from: .wgs84, to: .gcj02) == berlin)
        #expect(Datum.convert(berlin, from: .gcj02, to: .wgs84) == berlin)
    }

    /// Baidu's offset shifts a point some 0.006°: within that of ±180° or a pole the published formula
    /// gives an invalid coordinate, which no dataset answered. Every valid point stays valid, across the
    /// antimeridian on the other side, past a pole at the pole.
    @Test func baiduNearTheAntimeridianAndThePoles() {
        let west = Datum.convert(Coordinate(latitude: 0, longitude: -179.999), from: .bd09, to: .gcj02)
        #expect(west.isValid && west.longitude > 179.99, "\(west)")
        let east = Datum.convert(Coordinate(latitude: 0, longitude: 179.999), from: .gcj02, to: .bd09)
        #expect(east.isValid && east.longitude < -179.99, "\(east)")
        let south = Datum.convert(Coordinate(latitude: -89.999, longitude: 0), from: .bd09, to: .wgs84)
        #expect(south.isValid && south.latitude == -90, "\(south)")
        let north = Datum.convert(Coordinate(latitude: 89.999, longitude: 0), from: .gcj02, to: .bd09)
        #expect(north.isValid && north.latitude == 90, "\(north)")
        var rng = SplitMix64(seed: 9)
        for _ in 0..<10_000 {
            let c = Coordinate(latitude: -90 + rng.unitInterval() * 180, longitude: -180 + rng.unitInterval() * 360)
            for (from, to) in [(Datum.bd09, Datum.wgs84), (.bd09, .gcj02), (.wgs84, .bd09), (.gcj02, .bd09)] {
                #expect(Datum.convert(c, from: from, to: to).isValid, "\(c) \(from) -> \(to)")
            }
        }
    }

    /// The engine answers such a point (it answered nothing): the time zone at the antimeridian, and
    /// Antarctica at the pole, by containment (without the coast fallback, which found Antarctica from
    /// past the pole too).
    @Test func baiduPointsAtTheEdgesAreAnswered() throws {
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        let g = try BundledData.geocoder(datasets: ["world", "timezones"], options: options)
        #expect(try g.placemark(latitude: 0, longitude: -179.999, datum: .bd09)?.timeZone != nil)
        #expect(try g.placemark(latitude: -89.999, longitude: 0, datum: .bd09)?.isoCountryCode == "AQ")
    }

    @Test func datumNames() {
        #expect(Datum(name: "WGS-84") == .wgs84)
        #expect(Datum(name: "GCJ-02") == .gcj02)
        #expect(Datum(name: "bd09") == .bd09)
        #expect(Datum(name: "nad27") == nil)
    }
}
