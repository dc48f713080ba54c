import CGEOS
import Foundation
import Testing
@testable import ReverseGeocoder

/// The indexed engine must answer exactly what a brute-force GEOS scan answers, for every point.
///
/// The oracle is independent of the loader: it parses each unit from WKT with its own GEOS context and
/// applies the documented rule with plain (unprepared) predicates: the first unit in file order whose
/// interior contains the point (GEOSContains), else the first whose closure holds it (GEOSIntersects).
struct ExactnessTests {
    final class BruteForce {
        let ctx = GEOS_init_r()!
        var geometries: [OpaquePointer] = []
        var boxes: [(Double, Double, Double, Double)] = []

        init(_ coverage: SyntheticCoverage) {
            let reader = GEOSWKTReader_create_r(ctx)!
            for k in coverage.units.indices {
                let g = GEOSWKTReader_read_r(ctx, reader, coverage.wkt(k))!
                geometries.append(g)
                var a = 0.0, b = 0.0, c = 0.0, d = 0.0
                GEOSGeom_getXMin_r(ctx, g, &a); GEOSGeom_getYMin_r(ctx, g, &b)
                GEOSGeom_getXMax_r(ctx, g, &c); GEOSGeom_getYMax_r(ctx, g, &d)
                boxes.append((a, b, c, d))
            }
            GEOSWKTReader_destroy_r(ctx, reader)
        }

        deinit {
            for g in geometries { GEOSGeom_destroy_r(ctx, g) }
            GEOS_finish_r(ctx)
        }

        /// The unit index by the rule, scanning every unit (a box test first is exact and only saves time).
        func unit(x: Double, y: Double) -> Int? {
            let p = GEOSGeom_createPointFromXY_r(ctx, x, y)!
            defer { GEOSGeom_destroy_r(ctx, p) }
            let candidates = boxes.indices.filter { boxes[$0].0 <= x && x <= boxes[$0].2 && boxes[$0].1 <= y && y <= boxes[$0].3 }
            if let k = candidates.first(where: { GEOSContains_r(ctx, geometries[$0], p) == 1 }) { return k }
            return candidates.first { GEOSIntersects_r(ctx, geometries[$0], p) == 1 }
        }
    }

    func engine(_ coverage: SyntheticCoverage, cellSize: Double? = 0.05, _ name: String = #function) throws -> ReverseGeocoder {
        let shp = coverage.write(to: TestShapefile.directory(name).appendingPathComponent("cov"))
        // Containment against GEOS: "in no unit" must stay nil, so without the coast fallback.
        var options = ReverseGeocoder.Options(cellSize: cellSize)
        options.maxDistance = 0
        return try ReverseGeocoder(manifests: [(TestShapefile.manifest("cov", file: shp), nil)], options: options)
    }

    /// Both query paths: R-tree only (nil), and the cell quadtree at a fine and a coarse resolution.
    static let cellSizes: [Double?] = [nil, 0.02, 0.3]

    @Test(arguments: cellSizes)
    func hundredThousandRandomPointsMatchBruteForce(cellSize: Double?) async throws {
        try await offPool { try hundredThousandRandomPoints(cellSize: cellSize) }
    }

    /// The random points and GEOS's unit for each, asked once for the three cell sizes (the brute force
    /// was the test's largest cost, three times over).
    static let randomPoints: [(x: Double, y: Double, unit: Int?)] = {
        let coverage = SyntheticCoverage(n: 12, seed: 42)
        let oracle = BruteForce(coverage)
        var rng = SplitMix64(seed: 2024)
        return (0..<100_000).map { _ in
            // A margin around the coverage so "in no unit" is exercised too.
            let x = coverage.minX - 0.5 + rng.unitInterval() * (coverage.maxX - coverage.minX + 1)
            let y = coverage.minY - 0.5 + rng.unitInterval() * (coverage.maxY - coverage.minY + 1)
            return (x, y, oracle.unit(x: x, y: y))
        }
    }()

    func hundredThousandRandomPoints(cellSize: Double?) throws {
        let coverage = SyntheticCoverage(n: 12, seed: 42)
        let g = try engine(coverage, cellSize: cellSize)
        var found = 0, outside = 0
        for (x, y, expected) in Self.randomPoints {
            let got = try g.placemark(latitude: y, longitude: x)?.administrativeAreaCode.flatMap { Int($0) }
            if got != expected { Issue.record("(\(y), \(x)): engine \(String(describing: got)), GEOS \(String(describing: expected))") }
            if expected == nil { outside += 1 } else { found += 1 }
        }
        #expect(found > 80_000 && outside > 5_000)  // both outcomes well exercised
    }

    @Test(arguments: cellSizes)
    func borderPointsResolveToExactlyTheOracleUnit(cellSize: Double?) async throws {
        try await offPool { try borderPoints(cellSize: cellSize) }
    }

    func borderPoints(cellSize: Double?) throws {
        let coverage = SyntheticCoverage(n: 12, seed: 42)
        let g = try engine(coverage, cellSize: cellSize)
        let oracle = BruteForce(coverage)
        var rng = SplitMix64(seed: 5)
        var points = coverage.borderPoints
        // Points on straight segments between border vertices too (the arithmetic puts some on either side).
        for _ in 0..<5000 {
            let a = coverage.borderPoints[Int(rng.next() % UInt64(coverage.borderPoints.count))]
            let b = coverage.borderPoints[Int(rng.next() % UInt64(coverage.borderPoints.count))]
            points.append(((a.0 + b.0) / 2, (a.1 + b.1) / 2))
        }
        var mismatches = 0, interiorBorder = 0
        for (x, y) in points {
            let expected = oracle.unit(x: x, y: y)
            let got = try g.placemark(latitude: y, longitude: x)?.administrativeAreaCode.flatMap { Int($0) }
            if got != expected { mismatches += 1; Issue.record("border (\(y), \(x)): engine \(String(describing: got)), GEOS \(String(describing: expected))") }
            // Every border vertex strictly inside the frame belongs to some unit: never to none.
            if x > coverage.minX && x < coverage.maxX && y > coverage.minY && y < coverage.maxY && coverage.borderPoints.contains(where: { $0 == (x, y) }) {
                interiorBorder += 1
                #expect(got != nil)
            }
        }
        #expect(mismatches == 0)
        #expect(interiorBorder > 500)
    }

    @Test func concurrentQueriesEqualSingleThreadedAnswers() async throws {
        let coverage = SyntheticCoverage(n: 10, seed: 7)
        let g = try engine(coverage, cellSize: nil)  // the GEOS path: prepared geometries built concurrently
        var rng = SplitMix64(seed: 77)
        let points = (0..<20_000).map { _ in
            Coordinate(latitude: coverage.minY + rng.unitInterval() * 10, longitude: coverage.minX + rng.unitInterval() * 10)
        }
        let expected = try points.map { try g.placemark(for: $0) }
        // Eight threads (not pool tasks: on 2 cores those would starve other suites' async tests), each
        // walking the points in its own order so several threads prepare the same polygons at once.
        let counts = ManagedCounter()
        try await offPool {
            DispatchQueue.concurrentPerform(iterations: 8) { t in
                for i in 0..<points.count {
                    let k = (i * (2 * t + 1) + t * 977) % points.count
                    if try! g.placemark(for: points[k]) != expected[k] { counts.add() }
                }
            }
        }
        let results = [counts.value]
        #expect(results == [0])
        // And from raw threads, which the cooperative pool might not use.
        let wrong = ManagedCounter()
        try await offPool {
            DispatchQueue.concurrentPerform(iterations: 4) { t in
                for k in stride(from: t, to: points.count, by: 4) where try! g.placemark(for: points[k]) != expected[k] { wrong.add() }
            }
        }
        #expect(wrong.value == 0)
    }
}

final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
