import Foundation
import Testing
@testable import ReverseGeocoder

/// The cell quadtree's adaptive depth: border cells that hold many edges are split below the base level
/// (the cell size) until they hold few. A tree made very deep that way (densified borders, at most two
/// edges per border cell) must answer exactly what a brute-force GEOS scan answers, at random points and
/// at points on and within 1e-13…1e-6 of the edges, and must survive the index cache: written, mapped
/// back, the same answers; damaged, found before it is used.
///
/// Oracle: ``ExactnessTests/BruteForce`` (every unit parsed from WKT with its own GEOS context, plain
/// unprepared predicates, the documented lowest-unit rule).
struct AdaptiveDepthTests {
    /// 6 × 6 units over 4°, each side drawn with 150 vertices (a dense border, wiggling by up to a
    /// quarter of the vertex spacing, so rings stay simple and the oracle's unrepaired polygons are the
    /// loader's), so a 0.25° cell on a border holds about 40 edges.
    static let coverage = SyntheticCoverage(n: 6, seed: 31, size: 4, subdivisions: 150, wiggle: 0.5 / 150)
    static let cellSize = 0.25, maxEdges = 2

    static func options(cache: URL? = nil, firstUse: Bool = false) -> ReverseGeocoder.Options {
        var o = ReverseGeocoder.Options(cellSize: cellSize, cacheDirectory: cache, hugePages: !firstUse, verifyOnFirstUse: firstUse)
        o.cellMaxEdges = maxEdges
        o.maxDistance = 0  // containment against GEOS: "in no unit" stays nil
        return o
    }

    /// Random points over the coverage and beyond, every border vertex with tiny offsets, and points on
    /// the edges between consecutive vertices.
    static var points: [(Double, Double)] {
        coverage.oraclePoints(seed: 8, random: 15_000, margin: 0.3, offsets: [0, 1e-13, -1e-13, 1e-10, -1e-10, 1e-6, -1e-6], stride: 5)
    }

    static func answers(_ g: ReverseGeocoder, _ points: [(Double, Double)]) throws -> [Int?] { try SyntheticCoverage.units(g, points) }

    static func write(_ name: String) -> (DatasetManifest, URL) { coverage.written(name) }

    @Test func aDeepAdaptiveTreeAnswersAsGEOSBruteForce() async throws {
        try await offPool {
            let (manifest, _) = Self.write("adaptive-oracle")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options())
            let cells = try #require(g.loaded[0].layers[0].cells)
            // The cell size's level: cells of at most 0.25° over the 4° extent, 4 or 5 levels (the root
            // square is a hair wider than the extent); border cells at least the layer's border levels
            // below it (a densely drawn coverage: the rule goes deep); the extra levels even, to 20 at most.
            let levels = cells.borderCellLevels()
            let layer = g.loaded[0].layers[0]
            let cellLevel = Self.cellLevel(layer, cellSize: Self.cellSize)
            let rule = CellIndex.borderLevels(store: layer.store, cellSide: Self.cellSide(layer, cellSize: Self.cellSize))
            #expect(rule == CellIndex.deepBorderLevels)
            #expect((4...5).contains(cellLevel) && cells.depth == cellLevel + (20 - cellLevel) / 2 * 2 && levels.keys.min()! >= cellLevel + rule,
                    "\(cells.depth): \(levels.sorted { $0.key < $1.key })")
            // The tree really is adaptive: most border cells lie well below the cell size's level.
            let deep = levels.filter { $0.key >= cellLevel + 4 }.values.reduce(0, +)
            #expect(deep > levels.values.reduce(0, +) / 2, "\(levels.sorted { $0.key < $1.key })")
            let points = Self.points
            let oracle = ExactnessTests.BruteForce(Self.coverage)
            let got = try Self.answers(g, points)
            var mismatches = 0, found = 0
            for (k, p) in points.enumerated() {
                let expected = oracle.unit(x: p.0, y: p.1)
                if got[k] != expected {
                    mismatches += 1
                    if mismatches <= 10 { Issue.record("(\(p.1), \(p.0)): engine \(String(describing: got[k])), GEOS \(String(describing: expected))") }
                }
                if expected != nil { found += 1 }
            }
            #expect(mismatches == 0)
            #expect(found > 25_000 && found < points.count - 1_000)  // inside and outside both exercised
        }
    }

    /// The cell size's level of a layer built at `cellSize` (as ``LayerIndex/buildCells``: the extent's
    /// longer side, at least the cell size, halved until a cell is no wider than the cell size).
    static func cellLevel(_ layer: LayerIndex, cellSize: Double) -> Int {
        let extent = (0..<layer.store.count).reduce(Box.empty) { $0.union(layer.store.envelope($1)) }
        let side = max(extent.maxX - extent.minX, extent.maxY - extent.minY, cellSize)
        return Int(log2(side / cellSize).rounded(.up))
    }

    /// The side of that level's cells, which the border rule is given.
    static func cellSide(_ layer: LayerIndex, cellSize: Double) -> Double {
        let extent = (0..<layer.store.count).reduce(Box.empty) { $0.union(layer.store.envelope($1)) }
        let side = max(extent.maxX - extent.minX, extent.maxY - extent.minY, cellSize)
        return side / Double(1 << cellLevel(layer, cellSize: cellSize))
    }

    /// ``CellIndex/borderLevels(store:cellSide:)``, per layer: one lightly drawn coverage (40 vertices a
    /// side, the default edge limit, where the edge rule alone leaves border cells at the cell size) at
    /// two cell sizes. At 0.005° (0.015 edges a cell of its area) the rule leaves its border cells at the
    /// cell size; at 0.05° (3.9 edges a cell) it puts every one at least two levels below, most exactly
    /// there. The deep tree answers as GEOS (brute force) at random points, on and within 1e-13…1e-6 of
    /// the edges and vertices, and on the lines and corners of the split cells (where a point's cell is
    /// decided by rounding).
    @Test func borderCellsSitTheLayersBorderLevelsBelowTheCellSize() async throws {
        try await offPool {
            let (manifest, _) = BorderCellEntryTests.write("adaptive-border-levels")
            for (cellSize, expected) in [(BorderCellEntryTests.cellSize, 0), (0.05, CellIndex.deepBorderLevels)] {
                var options = BorderCellEntryTests.options()
                options.cellSize = cellSize
                let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: options)
                let layer = g.loaded[0].layers[0]
                let cells = try #require(layer.cells)
                let cellLevel = Self.cellLevel(layer, cellSize: cellSize), cellSide = Self.cellSide(layer, cellSize: cellSize)
                let density = CellIndex.edgesPerCell(store: layer.store, cellSide: cellSide)
                let rule = CellIndex.borderLevels(store: layer.store, cellSide: cellSide)
                #expect(rule == expected, "cell size \(cellSize): \(density) edges a cell")
                let levels = cells.borderCellLevels()
                #expect(levels.keys.min() == cellLevel + rule, "cell size level \(cellLevel): \(levels.sorted { $0.key < $1.key })")
                #expect(levels[cellLevel + rule, default: 0] > levels.values.reduce(0, +) / 2,
                        "most border cells stop at the first level the rule allows: \(levels.sorted { $0.key < $1.key })")
                guard rule > 0 else { continue }
                // The deep tree against GEOS: fewer random and vertex points than BorderCellEntryTests (the
                // same code answers them), and points on the split cells' lines and corners.
                var points = BorderCellEntryTests.coverage.oraclePoints(seed: 41, random: 1_000, margin: 0.2,
                                                                        offsets: [0, 1e-13, -1e-13, 1e-9, -1e-9, 1e-6, -1e-6], stride: 17)
                var rng = SplitMix64(seed: 43)
                let line = cells.size / Double(1 << (cellLevel + rule))
                let c = BorderCellEntryTests.coverage
                for _ in 0..<800 {
                    let i = Double(Int(rng.unitInterval() * Double(1 << (cellLevel + rule))))
                    let j = Double(Int(rng.unitInterval() * Double(1 << (cellLevel + rule))))
                    let x = cells.originX + i * line, y = cells.originY + j * line
                    let free = (c.minX + rng.unitInterval() * (c.maxX - c.minX), c.minY + rng.unitInterval() * (c.maxY - c.minY))
                    points += [(x, free.1), (free.0, y), (x, y)]
                }
                let oracle = ExactnessTests.BruteForce(BorderCellEntryTests.coverage)
                let got = try SyntheticCoverage.units(g, points)
                var mismatches = 0
                for (k, p) in points.enumerated() where got[k] != oracle.unit(x: p.0, y: p.1) {
                    mismatches += 1
                    if mismatches <= 10 { Issue.record("(\(p.1), \(p.0)): engine \(String(describing: got[k])), GEOS \(String(describing: oracle.unit(x: p.0, y: p.1)))") }
                }
                #expect(mismatches == 0, "of \(points.count) points")
            }
        }
    }

    /// The rule's measure on a polygon small enough to count by hand: a unit square less a centred
    /// square hole of side 1/2 (8 edges, area 3/4), and a 2 × 1 rectangle beside it (4 edges, area 2),
    /// at cells of side 1/2: 12 edges · 1/4 ÷ 2.75 = 12/11 edges a cell, from the threshold on deep.
    @Test func theRulesMeasureIsEdgesPerCellOfTheUnitsArea() throws {
        let context = try GEOSContext()
        let wkts = ["POLYGON((0 0, 1 0, 1 1, 0 1, 0 0), (0.25 0.25, 0.25 0.75, 0.75 0.75, 0.75 0.25, 0.25 0.25))",
                    "POLYGON((2 0, 4 0, 4 1, 2 1, 2 0))"]
        let store = PolygonStore(polygons: try wkts.map { try Geometry.wkt($0, context: context) })
        let density = CellIndex.edgesPerCell(store: store, cellSide: 0.5)
        #expect(abs(density - 12.0 / 11.0) < 1e-12, "\(density)")
        #expect(abs(CellIndex.edgesPerCell(store: store, cellSide: 0.05) - 12.0 / 1100.0) < 1e-12)
        #expect(CellIndex.borderLevels(store: store, cellSide: 0.5) == CellIndex.deepBorderLevels)
        #expect(CellIndex.borderLevels(store: store, cellSide: 0.05) == 0)
        #expect(CellIndex.borderLevels(edgesPerCell: CellIndex.deepBorderEdgesPerCell) == CellIndex.deepBorderLevels)
        #expect(CellIndex.borderLevels(edgesPerCell: CellIndex.deepBorderEdgesPerCell.nextDown) == 0)
    }

    @Test func theCacheRoundTripsADeepTreeAndFindsItDamaged() async throws {
        try await offPool {
            let (manifest, cache) = Self.write("adaptive-cache")
            let fresh = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options())
            let points = Self.points
            let expected = try Self.answers(fresh, points)
            let built = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options(cache: cache))
            #expect(built.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            let mapped = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options(cache: cache))
            #expect(mapped.datasets[0].cacheStatus == "loaded")
            let a = try #require(fresh.loaded[0].layers[0].cells), b = try #require(mapped.loaded[0].layers[0].cells)
            #expect(b.borderCellLevels() == a.borderCellLevels() && b.depth == a.depth)
            #expect(try Self.answers(mapped, points) == expected)

            let file = URL(fileURLWithPath: try #require(mapped.datasets[0].cacheFile))
            let template = [UInt8](try Data(contentsOf: file))
            let meta = try IndexCache.meta(ofFile: template)
            let cells = try #require(meta.layers[0].cells)
            // A byte of the deep nodes (the last block, where the deepest nodes are) and of the crossing
            // lists: the checksum finds it at load, and, with checks on first use, the query that reads it.
            for (section, name) in [(cells.nodes, "cell nodes"), (cells.borders, "crossing lists")] {
                for firstUse in [false, true] {
                    var bytes = template
                    bytes[section.offset + section.count * 4 - 3] ^= 0x20
                    try Data(bytes).write(to: file)
                    let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options(cache: cache, firstUse: firstUse))
                    #expect(try Self.answers(g, points) == expected, "\(name), first use \(firstUse)")
                    #expect(g.datasets[0].cacheStatus?.hasPrefix("rebuilt (damaged: checksum mismatch in layer 0 \(name)") == true,
                            "\(name), first use \(firstUse): \(g.datasets[0].cacheStatus ?? "")")
                }
            }
            // Past the checksums (resealed): a deep node pointing back up the tree is a structural fault.
            var bytes = template
            let last = cells.nodes.offset + (cells.nodes.count - 1) * 4
            let backwards = (CellIndex.tagNode << 30 | 0).littleEndian
            withUnsafeBytes(of: backwards) { for (k, x) in $0.enumerated() { bytes[last + k] = x } }
            try IndexCache.reseal(&bytes)
            try Data(bytes).write(to: file)
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options(cache: cache))
            #expect(g.datasets[0].cacheStatus?.hasPrefix("rebuilt (damaged: ") == true, "\(g.datasets[0].cacheStatus ?? "")")
            #expect(g.datasets[0].cacheStatus?.contains("cell tree") == true, "\(g.datasets[0].cacheStatus ?? "")")
            #expect(try Self.answers(g, points) == expected)
        }
    }
}
