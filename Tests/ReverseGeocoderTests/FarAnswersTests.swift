import Foundation
import GeoModel
import TestSupport
import Testing
@testable import ReverseGeocoder

/// ``FarAnswers`` changes no answer: on points of far cells it answers, in every datum, each overlay's
/// slot is the one the query path's `overlaySlot` finds, and the placemark is the one `withOverlays`
/// makes for "no admin unit". Checked where a wrong entry would show first (answered cells beside cells
/// without an entry: coasts, zone borders) and on random answered cells. The whole-answer A/B on the
/// benchmark's 200,000 points of each set is in Benchmarks/results/placemark-speed.md (session 11).
@Suite(.serialized)
struct FarAnswersTests: Sendable {
    @Test func farCellsAnswerAsTheQueryPath() async throws {
        try await offPool { try Self.body() }
    }

    static func body() throws {
        let g = try OverlaySpeedPathTests.geocoder.get()
        let far = try #require(g.farAnswers?.built(), "the bundled data has a far mask and the time zones")
        let mask = try #require(g.farMask?.built())
        let start = ContinuousClock.now
        let again = FarAnswers.build(mask: mask, overlays: g.farOverlayInputs)
        print("FarAnswers: \(far.answeredCells) of \(mask.farCells) far cells answered, \(far.combinationCount) combinations, \(far.detailedBlocks) detailed blocks; "
              + "built again in \(ContinuousClock.now - start)")
        #expect(again.answeredCells == far.answeredCells && again.combinationCount == far.combinationCount)
        // The time zones cover the sea: nearly every far cell has one zone throughout.
        #expect(far.answeredCells > mask.farCells * 9 / 10, "answered \(far.answeredCells) of \(mask.farCells)")
        #expect(far.combinationCount <= FarAnswers.maxCombinations)
        #expect(far.overlays == 1)

        let context = try g.contexts.currentUnmanaged()
        let columns = FarAnswers.columns, rows = FarAnswers.rows
        let w = 360.0 / Double(columns), h = 180.0 / Double(rows)
        func entry(_ c: Int, _ r: Int) -> Int { far.combination(x: -180 + (Double(c) + 0.5) * w, y: -90 + (Double(r) + 0.5) * h) }
        // Every far cell has an entry (a combination or "far only"), every other cell none.
        var entries = 0
        for r in 0..<rows { for c in 0..<columns where entry(c, r) != 0 { entries += 1 } }
        #expect(entries == mask.farCells)
        var edge: [(Int, Int)] = [], inner: [(Int, Int)] = []
        for r in 1..<(rows - 1) {
            for c in 0..<columns where entry(c, r) != 0 {
                let k = entry(c, r)
                let around = [entry((c + 1) % columns, r), entry((c + columns - 1) % columns, r), entry(c, r + 1), entry(c, r - 1)]
                if around.contains(where: { $0 != k }) { edge.append((c, r)) } else { inner.append((c, r)) }
            }
        }
        #expect(edge.count > 1000 && inner.count > 1000)
        var rng = SplitMix64(seed: 16_711)
        var cells = stride(from: 0, to: edge.count, by: max(1, edge.count / 600)).map { edge[$0] }
        for _ in 0..<200 { cells.append(inner[Int(rng.unitInterval() * Double(inner.count)) % inner.count]) }
        var checked = 0
        for (c, r) in cells {
            // Two corners (nearest the neighbours) and a random point of the cell.
            for (fx, fy) in [(0.0, 0.0), (1.0, 1.0), (rng.unitInterval(), rng.unitInterval())] {
                let x = min(180, -180 + (Double(c) + fx) * w), y = min(90, -90 + (Double(r) + fy) * h)
                let k = far.combination(x: x, y: y)
                #expect((k != 0) == mask.isFar(x: x, y: y))
                guard k != 0 else { continue }
                let p = Coordinate(latitude: y, longitude: x)
                for datum in [Datum.wgs84, .gcj02, .bd09] {
                    for o in 0..<far.overlays where k != FarAnswers.farOnly {
                        let want = try g.overlaySlot(o, p, datum: datum, context: context)
                        #expect(far.slot(k, overlay: o) == want, "\(y), \(x) (\(datum)), overlay \(o)")
                    }
                    let got = try g.placemark(for: p, datum: datum)
                    let want = try g.withOverlays(admin: nil, query: p, datum: datum, context: context)
                    #expect(got == want && got?.storageIdentity == want?.storageIdentity, "\(y), \(x) (\(datum))")
                    checked += 1
                }
            }
        }
        #expect(checked > 2000)
    }
}
