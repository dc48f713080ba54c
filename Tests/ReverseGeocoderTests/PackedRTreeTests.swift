import Testing
@testable import ReverseGeocoder

/// The packed R-tree must return exactly what a linear scan over all boxes returns.
struct PackedRTreeTests: Sendable {
    func randomBoxes(_ n: Int, _ rng: inout SplitMix64) -> [(Double, Double, Double, Double)] {
        (0..<n).map { _ in
            let x = rng.unitInterval() * 360 - 180, y = rng.unitInterval() * 180 - 90
            let w = rng.unitInterval() * rng.unitInterval() * 20, h = rng.unitInterval() * rng.unitInterval() * 20
            return (x, y, x + w, y + h)
        }
    }

    @Test(arguments: [0, 1, 2, 15, 16, 17, 255, 256, 257, 5000])
    func pointQueriesMatchBruteForce(count: Int) async throws {
        try await offPool { pointQueries(count: count) }
    }

    func pointQueries(count: Int) {
        var rng = SplitMix64(seed: UInt64(count) + 1)
        let boxes = randomBoxes(count, &rng)
        var b = PackedRTree.Builder()
        for (x0, y0, x1, y1) in boxes { b.add(Box(minX: x0, minY: y0, maxX: x1, maxY: y1)) }
        let tree = b.finish()
        var hits: [Int32] = [], checked = 0
        for i in 0..<2000 {
            // Every fourth query is exactly on a box corner, to test inclusive borders.
            let (x, y) = (i % 4 == 0 && count > 0) ? (boxes[i % count].0, boxes[i % count].3)
                                                   : (rng.unitInterval() * 380 - 190, rng.unitInterval() * 190 - 95)
            hits.removeAll()
            tree.search(x: x, y: y, into: &hits)
            let expected = boxes.indices.filter { boxes[$0].0 <= x && x <= boxes[$0].2 && boxes[$0].1 <= y && y <= boxes[$0].3 }
            #expect(hits.map(Int.init).sorted() == expected)
            checked += expected.count
        }
        if count >= 256 { #expect(checked > 100) }  // the queries really hit boxes
    }

    @Test func boxQueriesMatchBruteForce() {
        var rng = SplitMix64(seed: 99)
        let boxes = randomBoxes(3000, &rng)
        var b = PackedRTree.Builder(nodeSize: 4)
        for (x0, y0, x1, y1) in boxes { b.add(Box(minX: x0, minY: y0, maxX: x1, maxY: y1)) }
        let tree = b.finish()
        for _ in 0..<500 {
            let x = rng.unitInterval() * 360 - 180, y = rng.unitInterval() * 180 - 90, w = rng.unitInterval() * 30, h = rng.unitInterval() * 30
            var hits: [Int32] = []
            tree.search(Box(minX: x, minY: y, maxX: x + w, maxY: y + h), into: &hits)
            let expected = boxes.indices.filter { !(boxes[$0].0 > x + w || boxes[$0].2 < x || boxes[$0].1 > y + h || boxes[$0].3 < y) }
            #expect(hits.map(Int.init).sorted() == expected)
        }
    }

    @Test func hilbertIsABijectionOnTheGrid() {
        var seen = Set<UInt32>()
        for x in stride(from: UInt32(0), to: 65536, by: 257) {
            for y in stride(from: UInt32(0), to: 65536, by: 263) { seen.insert(PackedRTree.hilbert(x, y)) }
        }
        #expect(seen.count == 256 * 250)
        // Neighbouring curve positions are neighbouring cells: walk the first 4096 positions of an 64×64 corner.
        var position: [UInt32: (Int, Int)] = [:]
        for x in 0..<64 { for y in 0..<64 { position[PackedRTree.hilbert(UInt32(x), UInt32(y))] = (x, y) } }
        let ordered = position.keys.sorted()
        var adjacent = 0
        for (a, b) in zip(ordered, ordered.dropFirst()) where b == a + 1 {
            let (p, q) = (position[a]!, position[b]!)
            if abs(p.0 - q.0) + abs(p.1 - q.1) == 1 { adjacent += 1 }
        }
        #expect(adjacent >= 4000)
    }
}
