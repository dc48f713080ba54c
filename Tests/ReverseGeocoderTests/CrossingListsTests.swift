import CGEOS
import Foundation
import Testing
@testable import ReverseGeocoder

/// The border cells' crossing lists must say exactly what GEOS says, or admit they are unsure.
///
/// Oracle: GEOS itself on the same polygon (prepared containsProperly → interior, intersects →
/// boundary, else exterior), for every candidate of every border cell a point falls in. The points are
/// random ones (which must never be "unsure": that would mean the fast path is not taken) and points
/// on and within 1e-13…1e-6 of the coverage's vertices and edge midpoints (where "unsure" is allowed,
/// and GEOS then decides in the engine). Each record's reach, too: GEOS must put it where the record says,
/// at the point's y (no edge meets the reach's vertical within the row).
struct CrossingListsTests {
    final class Oracle {
        let context = try! GEOSContext()
        var prepared: [Int: PreparedGeometry] = [:]
        func location(_ store: PolygonStore, part: Int, x: Double, y: Double) throws -> CrossingLists.Location {
            let p = try prepared[part] ?? PreparedGeometry(store.geometry(part, context: context), context: context)
            prepared[part] = p
            let point = GEOSGeom_createPointFromXY_r(context.handle, x, y)!
            defer { GEOSGeom_destroy_r(context.handle, point) }
            let r = GEOSPreparedContainsProperly_r(context.handle, p.pointer, point)
            if r == 1 { return .interior }
            let c = GEOSPreparedIntersects_r(context.handle, p.pointer, point)
            guard r == 0, c == 0 || c == 1 else { throw GEOSError(operation: "oracle", message: "GEOS raised") }
            return c == 1 ? .boundary : .exterior
        }
    }

    static let cellSizes: [Double] = [0.02, 0.07, 0.3]

    @Test(arguments: cellSizes)
    func listsAgreeWithGEOS(cellSize: Double) async throws {
        try await offPool { try Self.check(cellSize: cellSize) }
    }

    static func check(cellSize: Double) throws {
        let coverage = SyntheticCoverage(n: 10, seed: 7)
        let shp = coverage.write(to: TestShapefile.directory("crossing\(cellSize)").appendingPathComponent("cov"))
        let g = try ReverseGeocoder(manifests: [(TestShapefile.manifest("cov", file: shp), nil)], options: .init(cellSize: cellSize))
        let layer = g.loaded[0].layers[0]
        let cells = try #require(layer.cells)
        let oracle = Oracle()
        var compared = 0, unsureRandom = 0, unsureNear = 0, interior = 0, boundary = 0, reaches = 0, insideReaches = 0
        func probe(_ x: Double, _ y: Double, random: Bool) throws {
            guard case .candidates(let entries) = cells.answer(x: x, y: y) else { return }
            for r in cells.records(entries) {
                let part = cells.part(record: r)
                let got = cells.locate(record: r, x: x, y: y)
                if got == .uncertain {
                    if random { unsureRandom += 1 } else { unsureNear += 1 }
                    continue
                }
                let expected = try oracle.location(layer.store, part: part, x: x, y: y)
                compared += 1
                // The record's reach: no edge meets the vertical through it within the cell's row, so GEOS
                // must find it off the boundary, inside exactly when the record says so, at the point's y.
                if random, let (reach, inside) = cells.reach(record: r) {
                    let at = try oracle.location(layer.store, part: part, x: reach, y: y)
                    if at == .boundary || (at == .interior) != inside {
                        Issue.record("(\(x), \(y)) part \(part): reach \(reach) inside \(inside), GEOS \(at)")
                    }
                    reaches += 1
                    if inside { insideReaches += 1 }
                }
                if got == .interior { interior += 1 }
                if got == .boundary { boundary += 1 }
                if got != expected {
                    Issue.record("(\(x), \(y)) part \(part): lists say \(got), GEOS \(expected)")
                }
            }
        }
        var rng = SplitMix64(seed: 99)
        for _ in 0..<60_000 {
            try probe(coverage.minX - 0.2 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.4),
                  coverage.minY - 0.2 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.4), random: true)
        }
        let offsets = [0, 1e-13, -1e-13, 1e-10, -1e-10, 1e-6, -1e-6]
        for (i, v) in coverage.borderPoints.enumerated() {
            for dx in offsets { for dy in offsets where dx == 0 || dy == 0 || i % 7 == 0 { try probe(v.0 + dx, v.1 + dy, random: false) } }
            let w = coverage.borderPoints[(i + 1) % coverage.borderPoints.count]
            try probe((v.0 + w.0) / 2, (v.1 + w.1) / 2, random: false)
        }
        #expect(unsureRandom == 0, "random points must be decided by the lists")
        #expect(compared > 20_000 && interior > 5_000 && boundary > 500, "compared \(compared), boundary \(boundary)")
        #expect(reaches > 5_000 && insideReaches > 1_000 && insideReaches < reaches - 1_000, "reaches \(reaches), inside \(insideReaches)")
        // Being unsure is for points within rounding of an edge: a small share of the near-border probes.
        #expect(unsureNear < compared / 4, "unsure \(unsureNear) of \(compared)")
    }
}
