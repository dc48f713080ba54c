import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The coast fallback's search over edge chunks (``EdgeChunks``) against brute force (every chunk of every
/// polygon, no tree: `EdgeChunks.nearestByScan`, in the engine so that it runs optimized); against the whole-polygon search it replaced on the query path
/// (still what answers until a layer's chunks are built) and its tree-less scan of the boxes (a layer checked on
/// first use, before its whole check); and the plain-Swift edge measure against GEOS's
/// nearest points (``NearestPoint``, what the fallback measured with before), on the bundled data.
@Suite(.serialized)
struct EdgeChunksTests: Sendable {
    /// Points near coasts all over the world (within ~30 km of a random vertex of a layer), across the
    /// antimeridian (Fiji, Chukotka: units stored east of 180°), near the poles, and a few fixed ones.
    static func points(near layer: LayerIndex, count: Int, seed: UInt64) -> [(x: Double, y: Double)] {
        var rng = SplitMix64(seed: seed)
        var points: [(x: Double, y: Double)] = [(-179.95, 65.5), (179.9, -16.6), (-179.7, -17.1), (179.99, 71.2), (-180, -16.8),
                                                (180, 65.9), (-60, -75.0), (20, 80.5), (-40, 83.4), (0.01, 0.01), (0, -89.9)]
        for _ in 0..<count {
            let v = Int(rng.next() % UInt64(layer.store.vertexCount))
            let x = layer.store.vertices[2 * v] + (Double(rng.next() % 1000) / 1000 - 0.5) * 0.6
            let y = layer.store.vertices[2 * v + 1] + (Double(rng.next() % 1000) / 1000 - 0.5) * 0.4
            points.append((x > 180 ? x - 360 : x, max(-90, min(90, y))))
        }
        return points
    }

    static func world() throws -> [LayerIndex] {
        let g = try NearestUnitTests.geocoder.get()
        return try #require(g.loaded.first { $0.manifest.name == "world" }).layers
    }

    /// Chunk search, whole-polygon search and brute force agree exactly (unit and metres, ==) on every
    /// layer of the bundled world, at reaches from 500 m to unlimited.
    @Test func chunkSearchIsBruteForce() async throws {
        try await offPool {
            var hits = 0, compared = 0
            var heap = MinHeap()
            for layer in try Self.world() {
                let clock = ContinuousClock(), start = clock.now
                let chunks = EdgeChunks.build(store: layer.store, partUnit: layer.partUnit)
                let took = clock.now - start
                #expect(chunks.first.count >= layer.store.vertexCount / EdgeChunks.edgesPerChunk)
                // For Benchmarks/results/coast-speed.md (the engine is built -O in debug builds too).
                print("EdgeChunksTests: \(layer.file): \(layer.store.vertexCount) vertices, \(chunks.first.count) chunks, "
                      + "\(chunks.bytes) bytes, built in \(took)")
                // Unlimited reach is brute force over all chunks per point: fewer points there.
                for (reach, count) in [(500.0, 40), (10_000, 60), (50_000, 40), (.infinity, 6)] {
                    for p in Self.points(near: layer, count: count, seed: 16 + UInt64(count)) {
                        let expect = chunks.nearestByScan(x: p.x, y: p.y, maxMetres: reach, vertices: layer.store.vertices)
                        let got = chunks.nearest(x: p.x, y: p.y, maxMetres: reach, vertices: layer.store.vertices, heap: &heap)
                        let whole = NearestUnit.wholePolygons(layer, x: p.x, y: p.y, maxMetres: reach, heap: &heap)
                        let scanned = NearestUnit.scanningBoxes(layer, envelopes: layer.store.envelopes, x: p.x, y: p.y,
                                                                maxMetres: reach, heap: &heap) { _ in }
                        #expect(got == expect, "\(layer.file) (\(p.y), \(p.x)) at \(reach) m")
                        #expect(whole == expect, "\(layer.file) (\(p.y), \(p.x)) at \(reach) m, whole polygons")
                        #expect(scanned == expect, "\(layer.file) (\(p.y), \(p.x)) at \(reach) m, scanning the boxes")
                        if reach == .infinity { #expect(got != nil) }
                        if got != nil { hits += 1 }
                        compared += 1
                    }
                }
            }
            #expect(compared >= 2 * 150)  // the world's two layers
            #expect(hits >= compared / 3)  // the test has teeth: most points have a unit within reach
        }
    }

    /// maxDistance 0 finds nothing, on either path; the query path (`search`) answers as the chunks do
    /// once they are built, and as the whole polygons do before.
    @Test func zeroReachAndTheQueryPath() async throws {
        try await offPool {
            var heap = MinHeap()
            let layer = try #require(try Self.world().last)
            for p in Self.points(near: layer, count: 30, seed: 3) {
                #expect(NearestUnit.search(layer, x: p.x, y: p.y, maxMetres: 0, heap: &heap) == nil)
                #expect(NearestUnit.wholePolygons(layer, x: p.x, y: p.y, maxMetres: 0, heap: &heap) == nil)
            }
            let chunks = layer.edgeChunks.wait(store: layer.store, partUnit: layer.partUnit)
            #expect(layer.edgeChunks.ready() != nil)
            for p in Self.points(near: layer, count: 30, seed: 4) {
                let got = NearestUnit.search(layer, x: p.x, y: p.y, maxMetres: 10_000, heap: &heap)
                #expect(got == chunks.nearest(x: p.x, y: p.y, maxMetres: 10_000, vertices: layer.store.vertices, heap: &heap))
                #expect(got == NearestUnit.wholePolygons(layer, x: p.x, y: p.y, maxMetres: 10_000, heap: &heap))
            }
        }
    }

    /// Equal distances go to the lower-numbered unit, whichever polygon comes first in the store, and a
    /// unit stored east of 180° (a wrapped polygon) is found from a point west of -180°'s meridian.
    @Test func tieRuleAndWrappedPolygons() throws {
        let context = try GEOSContext()
        // Two squares sharing the edge x = 1 (units 1 and 0, the higher unit stored first), a point west of
        // both... and a square across 180° stored as 179.5...180.5.
        let wkts = ["POLYGON((1 0, 2 0, 2 1, 1 1, 1 0))", "POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))",
                    "POLYGON((179.5 10, 180.5 10, 180.5 11, 179.5 11, 179.5 10))"]
        let store = PolygonStore(polygons: try wkts.map { try Geometry.wkt($0, context: context) })
        let partUnit: [Int32] = [1, 0, 2]
        let layer = LayerIndex(level: nil, file: "synthetic", placemarks: (0..<3).map { _ in Placemark(dataset: "synthetic") }, store: store,
                               partUnit: partUnit, partOffset: 0, cells: nil)
        var heap = MinHeap()
        let chunks = EdgeChunks.build(store: store, partUnit: layer.partUnit)
        // On the shared edge's line above both squares: equally far from both (the shared corner (1, 1)).
        for search in [{ (x: Double, y: Double) in chunks.nearest(x: x, y: y, maxMetres: 1e6, vertices: store.vertices, heap: &heap) },
                       { (x: Double, y: Double) in NearestUnit.wholePolygons(layer, x: x, y: y, maxMetres: 1e6, heap: &heap) },
                       { (x: Double, y: Double) in
                           NearestUnit.scanningBoxes(layer, envelopes: store.envelopes, x: x, y: y, maxMetres: 1e6, heap: &heap) { _ in } }] {
            let tie = try #require(search(1, 1.05))
            #expect(tie.unit == 0)
            #expect(abs(tie.metres - SphereBound.metres(x1: 1, y1: 1.05, x2: 1, y2: 1)) < 1e-6)
            #expect(search(2.05, 0.5)?.unit == 1)
            // West of the antimeridian, 0.2° from the square's east edge at 180.5 (= -179.5).
            let wrapped = try #require(search(-179.3, 10.5))
            #expect(wrapped.unit == 2)
            #expect(abs(wrapped.metres - SphereBound.metres(x1: -179.3, y1: 10.5, x2: -179.5, y2: 10.5)) < 1e-6)
            #expect(search(-179.3, 10.5 + 0.001) != nil)
        }
        #expect(chunks.nearest(x: 1, y: 1.05, maxMetres: 1000, vertices: store.vertices, heap: &heap) == nil)  // 5.6 km away
    }

    /// The plain edge measure against GEOS (`GEOSNearestPoints_r` over a polygon's edges in the same frame,
    /// what the fallback measured with before): on every layer, for points near coasts, the same unit and
    /// the same metres. A polygon's GEOS distance is to its edge nearest in the frame; ours is the least
    /// over its edges on the sphere, so ours is never farther, and differs only where two edges of one
    /// polygon are within the frame's distortion of each other: counted, and bounded by it.
    @Test func edgeMeasureMatchesGEOS() async throws {
        try await offPool {
            let context = try GEOSContext()
            var heap = MinHeap()
            var compared = 0, sameMetres = 0, sameUnit = 0
            for layer in try Self.world() {
                for p in Self.points(near: layer, count: 150, seed: 99) {
                    let reach = 10_000.0
                    let ours = NearestUnit.wholePolygons(layer, x: p.x, y: p.y, maxMetres: reach, heap: &heap)
                    var geos: NearestUnit?
                    let bound = SphereBound(x: p.x, y: p.y)
                    for part in 0..<layer.store.count where bound.metres(to: layer.store.envelope(part)) <= reach {
                        let shift = SphereBound.shift(p.x, toward: layer.store.envelope(part))
                        guard let q = try NearestPoint.onRings(part, of: layer.store, x: p.x, y: p.y, shift: shift,
                                                               reach: EdgeReach(metres: reach, latitude: p.y), context: context) else { continue }
                        let d = SphereBound.metres(x1: p.x + shift, y1: p.y, x2: q.x, y2: q.y)
                        let unit = Int(layer.partUnit[part])
                        if d <= reach, geos.map({ d < $0.metres || (d == $0.metres && unit < $0.unit) }) ?? true {
                            geos = NearestUnit(unit: unit, metres: d)
                        }
                    }
                    #expect((ours == nil) == (geos == nil) || abs((ours ?? geos)!.metres - reach) < 1, "\(layer.file) (\(p.y), \(p.x))")
                    guard let ours, let geos else { continue }
                    compared += 1
                    if ours.unit == geos.unit { sameUnit += 1 }
                    if abs(ours.metres - geos.metres) <= 1e-6 * geos.metres { sameMetres += 1 }
                    #expect(ours.metres <= geos.metres * (1 + 1e-9), "\(layer.file) (\(p.y), \(p.x)): \(ours) vs GEOS \(geos)")
                    // The frame's distortion over 10 km: under 0.5 % away from the poles (near them the
                    // frame's x is stretched most, and GEOS's edge nearest in it can be far from nearest).
                    if abs(p.y) < 80 {
                        #expect(ours.metres >= geos.metres * 0.995, "\(layer.file) (\(p.y), \(p.x)): \(ours) vs GEOS \(geos)")
                    }
                }
            }
            print("EdgeChunksTests.edgeMeasureMatchesGEOS: \(compared) points with a unit within 10 km, same unit \(sameUnit), same metres (1e-6) \(sameMetres)")
            #expect(compared >= 200)
            #expect(sameUnit >= compared * 99 / 100, "\(sameUnit) of \(compared)")
            #expect(sameMetres >= compared * 98 / 100, "\(sameMetres) of \(compared)")
        }
    }
}
