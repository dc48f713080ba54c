import Foundation
import Testing
@testable import ReverseGeocoder

/// The empty mask may only say "no unit" where GEOS agrees: checked on the bundled data against the
/// engine without cells (R-tree + GEOS only), on random points and on points on and beside the mask's
/// own cell edges, where rounding decides which bit a point reads.
struct EmptyMaskTests {
    @Test func maskNeverHidesAUnit() async throws {
        try await offPool { try Self.check() }
    }

    static func check() throws {
        let fast = try BundledDataTests.geocoder.get()
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
        let oracle = try ReverseGeocoder(directory: data, options: .init(cellSize: nil))
        let context = try QueryContext(partCount: oracle.loaded.flatMap(\.layers).reduce(0) { $0 + $1.store.count })
        var rng = SplitMix64(seed: 4242)
        for (d, set) in fast.loaded.enumerated() {
            let mask = try #require(set.emptyMask, "\(set.manifest.name) has no empty mask")
            let layers = oracle.loaded[d].layers
            #expect(layers.allSatisfy { $0.cells == nil })
            var masked = 0, probes = 0
            func probe(_ x: Double, _ y: Double) throws {
                probes += 1
                guard mask.isEmpty(x: x, y: y) else { return }
                masked += 1
                for layer in layers {
                    if let unit = try layer.locate(x: x, y: y, in: context) {
                        Issue.record("\(set.manifest.name): mask says empty at (\(x), \(y)), GEOS finds unit \(unit) of \(layer.file)")
                    }
                }
            }
            let r = set.reach
            for _ in 0..<100_000 {
                try probe(r.minX + rng.unitInterval() * (r.maxX - r.minX), r.minY + rng.unitInterval() * (r.maxY - r.minY))
            }
            let randomShare = Double(masked) / Double(probes)
            // On the mask's cell edges, as the build computed them, and one ulp either side.
            for _ in 0..<20_000 {
                let column = Int(rng.unitInterval() * Double(EmptyMask.side)), row = Int(rng.unitInterval() * Double(EmptyMask.side))
                let x = mask.originX + Double(column) / mask.scaleX, y = mask.originY + Double(row) / mask.scaleY
                for (px, py) in [(x, y), (x.nextUp, y), (x.nextDown, y), (x, y.nextUp), (x, y.nextDown),
                                 (x, mask.originY + (Double(row) + rng.unitInterval()) / mask.scaleY)] {
                    try probe(px, py)
                }
            }
            // The mask must also be worth having: most of a country's box is sea or abroad.
            // (Not for an overlay: the time zones cover the whole globe, so their mask is rightly empty.)
            if set.manifest.role == .admin {
                #expect(randomShare > 0.4, "\(set.manifest.name): mask covers only \(randomShare) of random points")
            }
        }
    }
}
