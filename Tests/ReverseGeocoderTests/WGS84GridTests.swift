import Foundation
import Testing
@testable import ReverseGeocoder

/// WGS-84 queries against a GCJ-02 dataset: the grid that answers them without converting must give
/// exactly what converting and looking up gives. Oracle: the same data loaded without cells (no grid;
/// every query converted, R-tree, GEOS).
struct WGS84GridTests {
    @Test func offsetBoundsHoldTheComputedOffset() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<20_000 {
            let w = [0.001, 0.05, 0.3, 2.0][Int(rng.next() % 4)]
            let lon0 = 73 + rng.unitInterval() * 60, lat0 = 1 + rng.unitInterval() * 52
            let b = OffsetBounds.offset(longitudes: lon0...(lon0 + w), latitudes: lat0...(lat0 + w))
            for _ in 0..<5 {
                let c = Coordinate(latitude: lat0 + rng.unitInterval() * w, longitude: lon0 + rng.unitInterval() * w)
                let (dLat, dLon) = DatumTransform.offset(c)
                #expect(dLat >= b.lat.lo && dLat <= b.lat.hi && dLon >= b.lon.lo && dLon <= b.lon.hi, "\(c) in \(lon0), \(lat0) +\(w)")
            }
            // Tight enough to be useful: a 0.05° cell's bounds span well under a metre-scale 1e-3°.
            if w == 0.05 { #expect(b.lat.hi - b.lat.lo < 1e-3 && b.lon.hi - b.lon.lo < 1e-3) }
        }
    }

    @Test func gridAnswersEqualConvertingAnswers() async throws {
        try await offPool {
            // A coverage in GCJ-02 inside China's rectangle, with units small enough that cells straddle borders.
            let coverage = SyntheticCoverage(n: 14, seed: 9, origin: (112, 28), size: 3)
            let shp = coverage.write(to: TestShapefile.directory().appendingPathComponent("cov"))
            let manifest = TestShapefile.manifest("cov", file: shp, datum: .gcj02)
            let fast = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: 0.02))
            let grid = try #require(fast.loaded[0].wgsGrid)
            let known = grid.entries.filter { WGS84GridEntry(rawValue: $0).isUnit }.count
            #expect(known > grid.entries.count / 4, "\(known) of \(grid.entries.count) cells known")
            let slow = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
            #expect(slow.loaded[0].wgsGrid == nil)
            var rng = SplitMix64(seed: 77)
            var points: [(Double, Double)] = []
            for _ in 0..<60_000 {
                points.append((coverage.minX - 0.2 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.4),
                               coverage.minY - 0.2 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.4)))
            }
            // On and next to the grid's own cell edges, where rounding picks the cell.
            for _ in 0..<20_000 {
                let i = Double(Int(rng.next() % UInt64(grid.columns))), j = Double(Int(rng.next() % UInt64(grid.rows)))
                let x = grid.originX + i * grid.cell, y = grid.originY + j * grid.cell + rng.unitInterval() * grid.cell
                for dx in [-1e-12, 0, 1e-12] { points.append((x + dx, y)) }
            }
            // WGS-84 points whose GCJ-02 image is a border vertex of the data.
            for v in coverage.borderPoints {
                points.append((v.0 - DatumTransform.offset(Coordinate(latitude: v.1, longitude: v.0)).1,
                               v.1 - DatumTransform.offset(Coordinate(latitude: v.1, longitude: v.0)).0))
            }
            var differ = 0, found = 0
            for (x, y) in points {
                let a = try fast.placemark(latitude: y, longitude: x), b = try slow.placemark(latitude: y, longitude: x)
                if a != nil { found += 1 }
                if a != b {
                    differ += 1
                    if differ < 10 { Issue.record("(\(y), \(x)): grid \(a?.administrativeAreaCode ?? "none"), converting \(b?.administrativeAreaCode ?? "none")") }
                }
            }
            #expect(differ == 0)
            #expect(found > points.count / 2)
        }
    }

    /// Every entry is its own cell's answer, asked the slow way (the cell's image by its own offset
    /// bounds, then each layer's box answer): the build asks a whole block's box first and goes cell by
    /// cell only where that is mixed, which must change no entry. Two cell sizes, so blocks straddle the
    /// coverage's borders differently.
    @Test(arguments: [0.02, 0.05])
    func eachEntryIsItsCellsOwnAnswer(cellSize: Double) async throws {
        try await offPool {
            let coverage = SyntheticCoverage(n: 14, seed: 9, origin: (112, 28), size: 3)
            let shp = coverage.write(to: TestShapefile.directory().appendingPathComponent("cov"))
            let g = try ReverseGeocoder(manifests: [(TestShapefile.manifest("cov", file: shp, datum: .gcj02), nil)],
                                        options: .init(cellSize: cellSize))
            let grid = try #require(g.loaded[0].wgsGrid)
            let indexes = g.loaded[0].layers.compactMap(\.cells)
            let slack = 1e-9
            var differ = 0, units = 0, mixed = 0
            for j in 0..<grid.rows {
                for i in 0..<grid.columns {
                    let lon0 = grid.originX + Double(i) * grid.cell - slack, lon1 = grid.originX + Double(i + 1) * grid.cell + slack
                    let lat0 = grid.originY + Double(j) * grid.cell - slack, lat1 = grid.originY + Double(j + 1) * grid.cell + slack
                    let off = OffsetBounds.offset(longitudes: lon0...lon1, latitudes: lat0...lat1)
                    let image = Box(minX: lon0 + off.lon.lo - slack, minY: lat0 + off.lat.lo - slack,
                                    maxX: lon1 + off.lon.hi + slack, maxY: lat1 + off.lat.hi + slack)
                    var expected = WGS84GridEntry.none
                    for (l, index) in indexes.enumerated() {
                        let a = index.boxAnswer(x0: image.minX, y0: image.minY, x1: image.maxX, y1: image.maxY)
                        if a == .empty { continue }
                        if case .unit(let u) = a, let known = WGS84GridEntry(layer: l, unit: u) { expected = known } else { expected = .unknown }
                        break
                    }
                    if expected.isUnit { units += 1 } else if expected == .unknown { mixed += 1 }
                    let got = WGS84GridEntry(rawValue: grid.entries[j * grid.columns + i])
                    if got != expected {
                        differ += 1
                        if differ <= 10 { Issue.record("cell (\(i), \(j)): grid \(got), its own answer \(expected)") }
                    }
                }
            }
            #expect(differ == 0)
            #expect(units > grid.entries.count / 4 && mixed > 100, "\(units) unit cells, \(mixed) mixed, of \(grid.entries.count)")
        }
    }

    @Test func theGridSurvivesTheCache() async throws {
        try await offPool {
            let coverage = SyntheticCoverage(n: 6, seed: 10, origin: (100, 30), size: 2)
            let dir = TestShapefile.directory()
            let shp = coverage.write(to: dir.appendingPathComponent("cov"))
            let manifest = TestShapefile.manifest("cov", file: shp, datum: .gcj02)
            let options = ReverseGeocoder.Options(cellSize: 0.05, cacheDirectory: dir.appendingPathComponent("cache"))
            let built = try ReverseGeocoder(manifests: [(manifest, nil)], options: options)
            let cached = try ReverseGeocoder(manifests: [(manifest, nil)], options: options)
            #expect(cached.datasets[0].cacheStatus == "loaded")
            let a = try #require(built.loaded[0].wgsGrid), b = try #require(cached.loaded[0].wgsGrid)
            #expect(Array(a.entries) == Array(b.entries) && a.columns == b.columns && a.originX == b.originX)
        }
    }

    /// The grid's (and the empty and far masks') question, a box's common answer, against brute force:
    /// every finest cell the box overlaps asked through the point lookup at its centre (a border cell or
    /// two different answers make it mixed; cells past the root square say empty). Boxes from one cell
    /// to a few dozen across, anywhere over and around a coverage whose cells straddle borders.
    @Test func boxAnswersEqualBruteForce() throws {
        let coverage = SyntheticCoverage(n: 10, seed: 12, origin: (112, 28), size: 2)
        let shp = coverage.write(to: TestShapefile.directory().appendingPathComponent("cov"))
        let geocoder = try ReverseGeocoder(manifests: [(TestShapefile.manifest("cov", file: shp, datum: .gcj02), nil)],
                                           options: .init(cellSize: 0.05))
        let index = try #require(geocoder.loaded[0].layers[0].cells)
        let side = index.size / Double(1 << index.depth), last = (1 << index.depth) - 1
        var rng = SplitMix64(seed: 31)
        var seen: [String: Int] = [:]
        for _ in 0..<3_000 {
            let w = side * [0.3, 1, 3, 12, 40][Int(rng.next() % 5)], h = side * [0.3, 1, 3, 12, 40][Int(rng.next() % 5)]
            let x0 = coverage.minX - 0.1 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.2)
            let y0 = coverage.minY - 0.1 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.2)
            let got = index.boxAnswer(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h)
            // The cells the box grown by the margin overlaps, as boxAnswer numbers them.
            let m = CellIndex.margin
            let fx0 = (x0 - m - index.originX) / side, fy0 = (y0 - m - index.originY) / side
            let fx1 = (x0 + w + m - index.originX) / side, fy1 = (y0 + h + m - index.originY) / side
            var answers: Set<String> = []
            let cells = Double(last + 1)
            if fx0 < 0 || fy0 < 0 || fx1 > cells || fy1 > cells { answers.insert("empty") }
            if !(fx1 < 0 || fy1 < 0 || fx0 > cells || fy0 > cells) {
                for iy in max(0, min(last, Int(fy0)))...max(0, min(last, Int(fy1))) {
                    for ix in max(0, min(last, Int(fx0)))...max(0, min(last, Int(fx1))) {
                        switch index.answer(x: index.originX + (Double(ix) + 0.5) * side, y: index.originY + (Double(iy) + 0.5) * side) {
                        case .empty: answers.insert("empty")
                        case .unit(let u): answers.insert("unit \(u)")
                        case .candidates: answers.insert("mixed")
                        }
                    }
                }
            }
            let expected: CellIndex.BoxAnswer
            if answers.count == 1, let only = answers.first, only != "mixed" {
                expected = only == "empty" ? .empty : .unit(Int(only.dropFirst(5))!)
            } else {
                expected = answers.isEmpty ? .empty : .mixed
            }
            #expect(got == expected, "box \(x0), \(y0) +\(w) x \(h)")
            seen["\(expected)".prefix(4).description, default: 0] += 1
        }
        // All three answers exercised.
        #expect(seen["empt", default: 0] > 100 && seen["unit", default: 0] > 100 && seen["mixe", default: 0] > 100, "\(seen)")
    }
}
