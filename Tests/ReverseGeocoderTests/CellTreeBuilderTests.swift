import Foundation
import Synchronization
import Testing
@testable import ReverseGeocoder

/// The cell tree builder's shortcuts must change nothing: the tree (and so the index cache) must be the
/// one its definition gives.
///
/// - An end of a segment inside a cell means the line test says "may touch": the builder skips the
///   test then. Oracle: the full test (`segmentMayTouch`) on random segments and boxes, from 10⁻⁶° to
///   360° wide, around the origin and at ±180°.
/// - The four children are tested at once, as lanes; oracle: the same tests on each child.
/// - The tree itself, leaf by leaf, against ``ReferenceCellTree``: the plain recursion (every segment of
///   every reaching part tested against every child, GEOS asked for every reaching part of every
///   edgeless cell), on a synthetic coverage with holes, islands and multipart units, on 1 and 3 workers.
struct CellTreeBuilderTests {
    @Test func anEndInsideTheCellMeansTheLineTestSaysTouch() {
        var rng = SplitMix64(seed: 91)
        var inside = 0, touching = 0
        for i in 0..<400_000 {
            let size = pow(10, -6 + rng.unitInterval() * 8.6)  // 1e-6 ... ~400
            let cx = (rng.unitInterval() - 0.5) * 360, cy = (rng.unitInterval() - 0.5) * 180
            let centre = i % 3 == 0 ? (cx, cy) : i % 3 == 1 ? (0.0, 0.0) : (180.0, -90.0)
            let box = Box(minX: centre.0 - size * rng.unitInterval(), minY: centre.1 - size * rng.unitInterval(),
                          maxX: centre.0 + size * rng.unitInterval(), maxY: centre.1 + size * rng.unitInterval())
            // Ends near the box, from a hair to many box sizes away, some exactly on its sides.
            func end() -> (Double, Double) {
                let spread = size * pow(10, -3 + rng.unitInterval() * 5)
                var x = box.minX + (rng.unitInterval() * 1.2 - 0.1) * (box.maxX - box.minX) + (rng.unitInterval() - 0.5) * spread
                var y = box.minY + (rng.unitInterval() * 1.2 - 0.1) * (box.maxY - box.minY) + (rng.unitInterval() - 0.5) * spread
                if rng.next() % 8 == 0 { x = rng.next() % 2 == 0 ? box.minX : box.maxX }
                if rng.next() % 8 == 0 { y = rng.next() % 2 == 0 ? box.minY : box.maxY }
                return (x, y)
            }
            let a = end(), b = rng.next() % 16 == 0 ? a : end()
            let s = BuildSegment(x1: a.0, y1: a.1, x2: b.0, y2: b.1)
            let full = CellTreeBuilder.segmentMayTouch(s, box)
            if full { touching += 1 }
            if CellTreeBuilder.endInside(s, box) {
                inside += 1
                if !full { Issue.record("segment \(s) with an end in \(box), but the line test says clear") }
            }
        }
        #expect(inside > 100_000 && touching > inside, "ends inside \(inside), touching \(touching)")
    }

    /// The builder tests a part's box and its segments against the four children at once, as lanes
    /// (``ChildCells``). Oracle: the scalar tests on each child's cell, `Box.isDisjoint` and
    /// `segmentMayTouch`, on random cells from 10⁻⁶° to 360° wide (around the origin and at ±180°), boxes
    /// and segments around and across the mid lines, some ends exactly on a side.
    @Test func theChildLanesAnswerAsTheTestsOnEachChild() {
        var rng = SplitMix64(seed: 23)
        var touched = 0, reached = 0, unsure = 0
        for i in 0..<200_000 {
            let side = pow(10, -6 + rng.unitInterval() * 8.6)
            let cx = (rng.unitInterval() - 0.5) * 360, cy = (rng.unitInterval() - 0.5) * 180
            let corner = i % 3 == 0 ? (cx, cy) : i % 3 == 1 ? (-side / 2, -side / 2) : (180.0 - side, -90.0)
            let children = ChildCells(x0: corner.0, y0: corner.1, half: side / 2, margin: CellIndex.margin)
            func point() -> (Double, Double) {
                let spread = side * pow(10, -4 + rng.unitInterval() * 4.5)
                var x = corner.0 + side * (rng.unitInterval() * 1.4 - 0.2) + (rng.unitInterval() - 0.5) * spread
                var y = corner.1 + side * (rng.unitInterval() * 1.4 - 0.2) + (rng.unitInterval() - 0.5) * spread
                let c = Int(rng.next() % 4)
                if rng.next() % 8 == 0 { x = rng.next() % 2 == 0 ? children.cell(c).minX : children.cell(c).maxX }
                if rng.next() % 8 == 0 { y = rng.next() % 2 == 0 ? children.cell(c).minY : children.cell(c).maxY }
                return (x, y)
            }
            let a = point(), b = rng.next() % 16 == 0 ? a : point(), u = point(), v = point()
            let box = Box(minX: min(u.0, v.0), minY: min(u.1, v.1), maxX: max(u.0, v.0), maxY: max(u.1, v.1))
            let s = BuildSegment(x1: a.0, y1: a.1, x2: b.0, y2: b.1)
            let reaching = children.reached(by: box)
            // Any subset of the children may be the ones the segment's part reaches.
            let among: ChildCells.Lanes = [rng.next() % 4 != 0, rng.next() % 4 != 0, rng.next() % 4 != 0, rng.next() % 4 != 0]
            let got = children.touched(by: s, among: among)
            for c in 0..<4 {
                let cell = children.cell(c)
                let expectReached = !box.isDisjoint(from: cell), expectTouched = among[c] && CellTreeBuilder.segmentMayTouch(s, cell)
                if reaching[c] != expectReached { Issue.record("box \(box), child \(c) \(cell): lanes \(reaching[c]), scalar \(expectReached)") }
                if got[c] != expectTouched { Issue.record("segment \(s), child \(c) \(cell): lanes \(got[c]), scalar \(expectTouched)") }
                if expectReached { reached += 1 }
                if expectTouched {
                    touched += 1
                    if !CellTreeBuilder.endInside(s, cell) { unsure += 1 }
                }
            }
        }
        // Every path is taken: touched with an end inside, touched across (the cross products), and not.
        #expect(reached > 100_000 && touched > 100_000 && unsure > 10_000 && touched < 700_000,
                "reached \(reached), touched \(touched), touched with no end inside \(unsure)")
    }

    /// Above its home level a segment is filed into one child by its home's bits, without the tests
    /// (``SegmentHome``). Oracle: the lane tests themselves, on the builder's own cell arithmetic (sides
    /// halved, corners summed, from the root down), for segments in random cells at levels 0 to 20 of
    /// squares from 10⁻³° to 360° wide, many of them within a hair of a grid line or ending on one.
    @Test func aSegmentsHomeNamesTheOneChildItTouches() {
        var rng = SplitMix64(seed: 57)
        let all: ChildCells.Lanes = [true, true, true, true]
        var fast = 0, nearLine = 0, deep = 0
        for i in 0..<100_000 {
            let side = pow(10, -3 + rng.unitInterval() * 5.556)  // 1e-3 ... 360
            let originX = i % 4 == 0 ? -180 : (rng.unitInterval() - 0.5) * 300, originY = i % 4 == 0 ? -90 : (rng.unitInterval() - 0.5) * 150
            let level = Int(rng.next() % 21), cell = side / Double(1 << level)
            let column = Double(rng.next() % (1 << UInt64(level))), row = Double(rng.next() % (1 << UInt64(level)))
            func point() -> (Double, Double) {
                var x = originX + (column + rng.unitInterval()) * cell, y = originY + (row + rng.unitInterval()) * cell
                // A hair from the cell's own lines or its children's, or exactly on one.
                if rng.next() % 4 == 0 {
                    let line = originX + (column + Double(rng.next() % 5) / 4) * cell
                    x = line + (rng.next() % 3 == 0 ? 0 : (rng.unitInterval() - 0.5) * pow(10, -16 + rng.unitInterval() * 10) * side)
                }
                if rng.next() % 4 == 0 {
                    let line = originY + (row + Double(rng.next() % 5) / 4) * cell
                    y = line + (rng.next() % 3 == 0 ? 0 : (rng.unitInterval() - 0.5) * pow(10, -16 + rng.unitInterval() * 10) * side)
                }
                return (x, y)
            }
            let a = point(), b = rng.next() % 8 == 0 ? a : point()
            let s = BuildSegment(x1: a.0, y1: a.1, x2: b.0, y2: b.1)
            let one = UnsafeMutableBufferPointer<BuildSegment>.allocate(capacity: 1)
            defer { one.deallocate() }
            one[0] = s
            let homes = SegmentHome.homes(of: one, originX: originX, originY: originY, side: side, margin: CellIndex.margin, maxLevel: 21)
            let home = homes[0]
            LargeAllocation.free(homes)
            if home.level < level { nearLine += 1 }
            if home.level >= 10 { deep += 1 }
            // Down the builder's own cells: every split above the home touches exactly the named child.
            var x0 = originX, y0 = originY, size = side
            for l in 0..<Int(home.level) {
                let half = size / 2
                let touched = ChildCells(x0: x0, y0: y0, half: half, margin: CellIndex.margin).touched(by: s, among: all)
                let c = home.child(splitting: l)
                let expected: ChildCells.Lanes = [c == 0, c == 1, c == 2, c == 3]
                if touched != expected {
                    Issue.record("segment \(s) in (\(originX), \(originY), \(side)): level \(l) touches \(touched), home \(home) says child \(c)")
                    break
                }
                fast += 1
                x0 += c & 1 == 1 ? half : 0; y0 += c & 2 == 2 ? half : 0
                size = half
            }
        }
        // Most splits take the shortcut; segments on or a hair from a line stop above it.
        #expect(fast > 500_000 && nearLine > 10_000 && deep > 30_000, "splits by home \(fast), homes above the cell \(nearLine), 10 deep or more \(deep)")
    }

    /// The edgeless cells' centre test without GEOS: GEOS's answer, or nil (then the builder asks GEOS).
    /// Oracle: GEOS prepared containsProperly on every part, at random points (never nil there) and at the
    /// coverage's vertices and edge midpoints, exactly and within 1e-13 (on the boundary: nil or "not
    /// interior", never a wrong "interior").
    @Test func bandsAnswerAsGEOSOrAbstain() async throws {
        try await offPool {
            let coverage = SyntheticCoverage(n: 8, seed: 12)
            let (manifest, _) = coverage.written("part-bands")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
            let store = g.loaded[0].layers[0].store
            let inputs = CellBuildInputs(store: store, unitOf: Array(g.loaded[0].layers[0].partUnit), baseDepth: 4, maxDepth: 4, maxEdges: 32)
            let geos = try InteriorTest(store: store)
            var rng = SplitMix64(seed: 4)
            var points: [(Double, Double, random: Bool)] = (0..<4_000).map { _ in
                (coverage.minX - 0.3 + rng.unitInterval() * 10.6, coverage.minY - 0.3 + rng.unitInterval() * 10.6, true)
            }
            for (i, v) in coverage.borderPoints.enumerated() {
                let w = coverage.borderPoints[(i + 1) % coverage.borderPoints.count]
                points += [(v.0, v.1, false), (v.0 + 1e-13, v.1, false), (v.0, v.1 - 1e-13, false), ((v.0 + w.0) / 2, (v.1 + w.1) / 2, false)]
            }
            var decided = 0, interior = 0, abstained = 0
            for (x, y, random) in points {
                for p in 0..<store.count {
                    let expected = geos.containsProperly(p, x, y)
                    guard let got = inputs.bands.interior(p, x, y, segments: inputs.segments) else {
                        abstained += 1
                        if random { Issue.record("random point (\(x), \(y)) part \(p): no answer") }
                        continue
                    }
                    decided += 1
                    if got { interior += 1 }
                    if got != expected { Issue.record("(\(x), \(y)) part \(p): bands \(got), GEOS \(expected)") }
                }
            }
            #expect(geos.failure == nil)
            #expect(interior > 3_000 && decided > interior && abstained > 1_000, "decided \(decided), interior \(interior), abstained \(abstained)")
        }
    }

    /// With `overlap`, one more unit, a rectangle over the middle of the coverage: there its parts' edges
    /// split cells the rectangle holds without an edge of its own, whose answer is then passed down
    /// (``CellTreeBuilder/Frame/known``) to where the coverage's parts do not hold.
    @Test(arguments: [(0.05, 3, false), (0.3, 32, false), (0.05, 3, true)])
    func theTreeIsTheOneItsDefinitionGives(cellSize: Double, maxEdges: Int, overlap: Bool) async throws {
        try await offPool {
            var coverage = SyntheticCoverage(n: 12, seed: 5)
            if overlap {
                let (x0, y0, x1, y1) = (coverage.minX + 2.3, coverage.minY + 2.1, coverage.minX + 7.7, coverage.minY + 6.9)
                coverage.units.append([[[(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)]]])  // clockwise: an outer ring
            }
            let (manifest, _) = coverage.written("tree-reference-\(cellSize)-\(overlap)")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
            let layer = g.loaded[0].layers[0]
            let store = layer.store, unitOf = Array(layer.partUnit)
            let base = Int((log2(11 / cellSize)).rounded(.up))
            let inputs = CellBuildInputs(store: store, unitOf: unitOf, baseDepth: base, maxDepth: base + (20 - base) / 2 * 2,
                                         maxEdges: maxEdges)
            let (originX, originY, side) = (coverage.minX - 0.4, coverage.minY - 0.7, 11.0)

            let referenceTest = try InteriorTest(store: store)
            var referenceCalls = 0
            let expected = ReferenceCellTree.leaves(inputs: inputs, originX: originX, originY: originY, side: side) { p, x, y in
                referenceCalls += 1
                return referenceTest.containsProperly(p, x, y)
            }
            let borders = expected.filter { if case .border = $0 { return true } else { return false } }.count
            let units = expected.filter { if case .unit = $0 { return true } else { return false } }.count
            #expect(borders > 500 && units > 200, "a real tree: \(borders) border cells, \(units) unit cells")

            for threads in [1, 3] {
                let tests = try (0..<threads).map { _ in try InteriorTest(store: store) }
                let calls = Mutex(0)
                let tree = CellTreeBuilder.build(inputs: inputs, threads: threads, originX: originX, originY: originY, side: side) {
                    worker, p, x, y in
                    calls.withLock { $0 += 1 }
                    return tests[worker].containsProperly(p, x, y)
                }
                let got = ReferenceCellTree.leaves(of: tree)
                #expect(got.count == expected.count, "\(threads) workers: \(got.count) leaves, reference \(expected.count)")
                if let k = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                    Issue.record("\(threads) workers: leaf \(k) is \(got[k]), the reference's \(expected[k])")
                }
                #expect(tree.unitCells == units && tree.mixedCells.count == borders)
                // Siblings share GEOS's answers: fewer calls than one per part and edgeless cell.
                let made = calls.withLock { $0 }
                #expect(made < referenceCalls, "\(threads) workers: \(made) GEOS calls, the plain recursion \(referenceCalls)")
            }
            #expect(referenceTest.failure == nil)
        }
    }
}
