import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The coast fallback (`Options.maxDistance`): real data, real GEOS, distances against shapely in an
/// azimuthal equidistant projection (`Fixtures/coast-oracle`, made by `Data/make_coast_oracle.py`).
@Suite(.serialized)
struct NearestUnitTests: Sendable {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
    /// The bundled data with the default options (the fallback on, at its default reach).
    static let geocoder: Result<ReverseGeocoder, Error> = Result { try BundledData.geocoder() }
    /// The same without the time zones' border refinement, which moves a few of the shapely oracle's inside
    /// points on purpose (BorderRefinementTests): the oracle is the polygons'.
    static let polygons: Result<ReverseGeocoder, Error> = Result {
        var options = ReverseGeocoder.Options()
        options.refinesBordersByTimeZone = false
        return try BundledData.geocoder(options: options)
    }

    struct CoastPoint: Decodable {
        var label: String, lat: Double, lon: Double, datum: String
        var unit: String, isoCountryCode: String
        var sphereMetres: Double, wgs84Metres: Double
    }

    static func coastPoints() throws -> [CoastPoint] {
        struct File: Decodable { var points: [CoastPoint] }
        let url = try #require(Bundle.module.url(forResource: "Fixtures/coast-oracle/coast_points", withExtension: "json"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).points
    }

    /// Every level the placemark has is `nearestUnit` (a province-level city keeps saying
    /// `provinceFallback`), all with one distance; that distance.
    static func nearestDistance(_ p: Placemark) -> Double? {
        var d: Double?
        for level in AdminLevel.allCases {
            // A province-level city repeats its province; a locality built from places has its own distance.
            guard let provenance = p.provenance(at: level), provenance != .provinceFallback,
                  provenance.kind != .nearestPlace else { continue }
            guard case .nearestUnit(let m) = provenance, d == nil || d == m else { return nil }
            d = m
        }
        return d
    }

    /// Sea points off Venice, Miami Beach, Tromsø, Split (and GCJ-02 points off Shanghai): the unit
    /// shapely finds nearest, at shapely's spherical distance. Tolerance: never below it by more than
    /// 0.5 m (the distance is to a real point of the polygon), above it by at most 0.1 % + 1 m (the local
    /// frame's distortion); within 0.6 % + 1 m of the WGS-84 geodesic (the sphere's own error).
    @Test func seaPointsGetTheNearestUnitAtShapelysDistance() async throws {
        try await offPool { try Self.seaPointsBody() }
    }

    static func seaPointsBody() throws {
        // The oracle is shapely's nearest China district / Natural Earth province: without the localities
        // (which answer first, with GeoNames' admin-1: Veneto where Natural Earth says Venezia).
        let g = try BundledData.geocoder(datasets: ["china", "world", "timezones"])
        let points = try coastPoints()
        #expect(points.count >= 14)
        #expect(Set(points.map { $0.label.split(separator: " ").first! }).count >= 6)
        for p in points {
            let datum = try #require(Datum(name: p.datum))
            let c = Coordinate(latitude: p.lat, longitude: p.lon)
            let got = try #require(try g.placemark(for: c, datum: datum), "\(p.label)")
            // World: the province by name (some, like Troms, have no ISO code); China: the district's adcode.
            let unit = datum == .wgs84 ? got.administrativeArea : got.subLocalityCode
            #expect(unit == p.unit, "\(p.label)")
            #expect(got.isoCountryCode == p.isoCountryCode, "\(p.label)")
            let m = try #require(nearestDistance(got), "\(p.label): \(got)")
            #expect(m >= p.sphereMetres - 0.5, "\(p.label): \(m) m, shapely \(p.sphereMetres) m")
            #expect(m <= p.sphereMetres * 1.001 + 1, "\(p.label): \(m) m, shapely \(p.sphereMetres) m")
            #expect(abs(m - p.wgs84Metres) <= p.wgs84Metres * 0.006 + 1, "\(p.label): \(m) m, WGS-84 \(p.wgs84Metres) m")
            if datum == .gcj02 {
                // The same place asked in WGS-84: converted to GCJ-02 as the inside path converts, the
                // same district at the same distance (the round trip of the formula is within centimetres).
                let wgs = Datum.convert(c, from: .gcj02, to: .wgs84)
                let again = try #require(try g.placemark(for: wgs, datum: .wgs84), "\(p.label) as WGS-84")
                #expect(again.subLocalityCode == p.unit, "\(p.label) as WGS-84")
                #expect(abs((nearestDistance(again) ?? -1) - m) <= 3, "\(p.label) as WGS-84")
            }
        }
    }

    /// maxDistance 0 is today's engine: the same sea points answer nil; so does a reach shorter than
    /// every unit's distance.
    @Test func maxDistanceZeroTurnsTheFallbackOff() async throws {
        try await offPool {
            var options = ReverseGeocoder.Options(cellSize: nil)
            options.maxDistance = 0
            let off = try ReverseGeocoder(directory: Self.data, options: options)
            options.maxDistance = 250
            let short = try ReverseGeocoder(directory: Self.data, options: options)
            for p in try Self.coastPoints() {
                let c = Coordinate(latitude: p.lat, longitude: p.lon)
                let datum = try #require(Datum(name: p.datum))
                // No administrative unit (the time zones still answer at sea).
                #expect(try off.placemark(for: c, datum: datum)?.hasAdministrativeUnit != true, "\(p.label)")
                #expect(try short.placemark(for: c, datum: datum)?.hasAdministrativeUnit != true, "\(p.label)")
            }
        }
    }

    /// On the existing shapely oracles: every point inside a polygon gets exactly the answer it got
    /// before; a point in none gets nil or a placemark whose every level is a nearest unit within reach.
    @Test func insideAnswersNeverChange() async throws {
        try await offPool { try Self.insideAnswersNeverChangeBody() }
    }

    static func insideAnswersNeverChangeBody() throws {
        let g = try polygons.get()
        var fallbacks = 0, inside = 0
        for name in ["random_points", "spot_checks"] {
            for p in try BundledDataTests.fixture(name) {
                let datum = try #require(Datum(name: p.datum))
                // A zone-only answer (the time-zone overlay at sea) has no administrative unit.
                let got = try g.placemark(for: Coordinate(latitude: p.lat, longitude: p.lon), datum: datum)
                    .flatMap { $0.hasAdministrativeUnit ? $0 : nil }
                if let expect = p.expect {
                    inside += 1
                    #expect(got.map(BundledDataTests.Expected.init) == expect, "(\(p.lat), \(p.lon))")
                    // Inside answers are never "nearest unit" (a place cell's nearest-place distance is its own).
                    if let got { #expect(AdminLevel.allCases.allSatisfy { got.provenance(at: $0)?.kind != .nearestUnit }) }
                } else if let got {
                    fallbacks += 1
                    let m = nearestDistance(got)
                    #expect(m != nil && m! > 0 && m! <= ReverseGeocoder.Options.defaultMaxDistance, "(\(p.lat), \(p.lon)): \(got)")
                }
            }
        }
        #expect(inside >= 1500)
        #expect(fallbacks >= 5)  // the test has teeth: some sea points of the oracle are near a coast
    }

    /// The box bound never exceeds the distance to any point of the box: boxes anywhere, across 180°
    /// (stored east of it) and up to the poles; points anywhere.
    @Test func boxBoundIsALowerBound() {
        var rng = SplitMix64(seed: 7)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        var checked = 0
        for _ in 0..<3000 {
            let minX = -180 + unit() * 370, w = unit() * unit() * 60
            let minY = -90 + unit() * 170, h = min(90 - minY, unit() * unit() * 40)
            let box = Box(minX: minX, minY: minY, maxX: minX + w, maxY: minY + h)
            let x = -180 + unit() * 360, y = -90 + unit() * 180
            let bound = SphereBound(x: x, y: y).metres(to: box)
            for i in 0...8 {
                for j in 0...8 {
                    let px = box.minX + w * Double(i) / 8, py = box.minY + h * Double(j) / 8
                    let d = SphereBound.metres(x1: x, y1: y, x2: px, y2: py)
                    #expect(bound <= d + 1e-6, "box \(box) point (\(x), \(y)): bound \(bound) > \(d)")
                    checked += 1
                }
            }
        }
        #expect(checked == 3000 * 81)
        // Across the antimeridian a box stored east of 180° is next to a point just west of -180°.
        let fiji = Box(minX: 179.5, minY: -17, maxX: 180.5, maxY: -16)
        #expect(SphereBound(x: -179.6, y: -16.5).metres(to: fiji) == 0)
        #expect(SphereBound.shift(-179.6, toward: fiji) == 360)
    }

    /// The edge filter never drops an edge with a point within reach: random edges (some across 180°,
    /// some near the poles) and points; where it says "out of reach", every sampled point of the edge is
    /// farther than the reach.
    @Test func edgeFilterNeverDropsAnEdgeWithinReach() {
        var rng = SplitMix64(seed: 11)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        var dropped = 0
        for _ in 0..<20_000 {
            let y0 = -89.9 + unit() * 179.8, x0 = -180 + unit() * 360
            let metres = [500.0, 10_000, 50_000][Int(rng.next() % 3)]
            let spread = unit() < 0.5 ? 1.0 : 0.2
            let ax = x0 + (unit() - 0.5) * spread * 4, ay = max(-90, min(90, y0 + (unit() - 0.5) * spread))
            let bx = ax + (unit() - 0.5) * spread, by = max(-90, min(90, ay + (unit() - 0.5) * spread))
            let reach = EdgeReach(metres: metres, latitude: y0)
            // The edge may be stored a turn east (a unit across 180°).
            let turn = unit() < 0.2 ? 360.0 : 0
            if reach.mayReach(x0: x0, y0: y0, ax: ax + turn, ay: ay, bx: bx + turn, by: by) { continue }
            dropped += 1
            for i in 0...64 {
                let t = Double(i) / 64
                let d = SphereBound.metres(x1: x0, y1: y0, x2: ax + (bx - ax) * t, y2: ay + (by - ay) * t)
                #expect(d > metres, "edge (\(ax), \(ay))–(\(bx), \(by)) dropped for (\(x0), \(y0)) at \(metres) m: \(d) m")
            }
        }
        #expect(dropped > 1000)
    }

    /// A negative or NaN reach is an error of its own, not "off".
    @Test func invalidMaxDistanceIsAnError() {
        for bad in [-1.0, -.infinity, .nan] {
            var options = ReverseGeocoder.Options()
            options.maxDistance = bad
            #expect(throws: GeocoderError.self) { try ReverseGeocoder(manifests: [], options: options) }
            do {
                _ = try ReverseGeocoder(manifests: [], options: options)
            } catch let error as GeocoderError {
                guard case .invalidOption(let name, _) = error else { Issue.record("\(error)"); continue }
                #expect(name == "maxDistance")
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
