import Foundation
import GeoModel
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The shortcuts of the full-placemark query path (Benchmarks/results/overlay-speed.md) change no answer:
///
/// * ``FarMask``: a point whose cell says "far" gets nothing from the nearest-unit search, checked on
///   points of the far cells that border near ones (where a wrong bit would show first), in every datum;
/// * ``InverseOffsetBox``: a GCJ-02 query's time zone is the zone the overlay gives the point converted
///   to WGS-84, as the converting path does, on random points of China's box.
@Suite(.serialized)
struct OverlaySpeedPathTests: Sendable {
    /// The bundled data with the default options (the fallback on at its default reach).
    static let geocoder: Result<ReverseGeocoder, Error> = Result { try BundledData.geocoder() }

    @Test func farCellsHaveNoUnitWithinReach() async throws {
        try await offPool { try Self.farCellsBody() }
    }

    static func farCellsBody() throws {
        let g = try geocoder.get()
        let mask = try #require(g.farMask?.built(), "the bundled data has cells on every admin layer")
        let context = try g.contexts.currentUnmanaged()
        let columns = FarMask.columns, rows = FarMask.rows
        let w = 360.0 / Double(columns), h = 180.0 / Double(rows)
        func far(_ c: Int, _ r: Int) -> Bool { mask.isFar(x: -180 + (Double(c) + 0.5) * w, y: -90 + (Double(r) + 0.5) * h) }
        // Most of the sea is far (else the mask would not be worth its bits); the coasts are not.
        #expect(mask.farCells > columns * rows / 3, "far cells: \(mask.farCells)")
        // The build skips the blocks inside a unit; splitting them as well must give the same bits. Both
        // timed for Benchmarks/results/placemark-speed.md (two cores, shared).
        let layers = g.loaded.filter { $0.manifest.role == .admin }.flatMap(\.layers)
        let start = ContinuousClock.now
        let again = try #require(FarMask.build(layers: layers, metres: g.maxDistance))
        let middle = ContinuousClock.now
        let reference = try #require(FarMask.build(layers: layers, metres: g.maxDistance, skipInside: false))
        print("FarMask \(columns) x \(rows): \(mask.farCells) far cells of \(columns * rows); built in \(middle - start), "
              + "\(ContinuousClock.now - middle) splitting the blocks inside a unit too")
        #expect(again.sameBits(as: mask))
        #expect(reference.sameBits(as: mask), "skipping the blocks inside a unit changed bits")
        var edge: [(Int, Int)] = []
        for r in 1..<(rows - 1) {
            for c in 0..<columns where far(c, r) {
                if !far((c + 1) % columns, r) || !far((c + columns - 1) % columns, r) || !far(c, r + 1) || !far(c, r - 1) {
                    edge.append((c, r))
                }
            }
        }
        #expect(edge.count > 1000)
        var rng = SplitMix64(seed: 16_007)
        let datums: [Datum] = [.wgs84, .gcj02, .bd09]
        var checked = 0
        // About 250 cells (each near-coast search takes milliseconds: the whole test stays under a minute).
        for i in stride(from: 0, to: edge.count, by: max(1, edge.count / 250)) {
            let (c, r) = edge[i]
            // A corner of the cell and a random point in it: the corners are nearest the near neighbours.
            for (fx, fy) in [rng.unitInterval() < 0.5 ? (0.0, 0.0) : (1.0, 1.0), (rng.unitInterval(), rng.unitInterval())] {
                let x = min(180, -180 + (Double(c) + fx) * w), y = min(90, -90 + (Double(r) + fy) * h)
                let p = Coordinate(latitude: y, longitude: x)
                guard mask.isFar(x: x, y: y) else { continue }
                for datum in datums {
                    var found: String?
                    switch try g.nearestUnit(p, datum: datum, context: context) {
                    case .none: found = nil
                    case .found(let near): found = near.country ?? "?"
                    case .damaged(let damage, _): found = "damage: \(damage.reason)"
                    }
                    #expect(found == nil, "far point \(y), \(x) (\(datum)) has \(found ?? "") within reach")
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }

    @Test func gcj02TimeZoneIsTheConvertedPointsZone() async throws {
        try await offPool { try Self.gcj02Body() }
    }

    static func gcj02Body() throws {
        let full = try BundledData.geocoder(datasets: ["china", "timezones"])
        let zones = try BundledData.geocoder("timezones")
        var rng = SplitMix64(seed: 16_016)
        var answered = 0
        for _ in 0..<20_000 {
            // China's box in GCJ-02 numbers, as the benchmark's points, and a band around Xinjiang's
            // Urumqi/Shanghai border, where the zone changes inside the box.
            let c = rng.unitInterval() < 0.7
                ? Coordinate(latitude: 3.84 + rng.unitInterval() * 49.73, longitude: 73.5 + rng.unitInterval() * 61.6)
                : Coordinate(latitude: 35 + rng.unitInterval() * 15, longitude: 85 + rng.unitInterval() * 15)
            let got = try full.placemark(for: c, datum: .gcj02)?.timeZone
            let wgs = Datum.convert(c, from: .gcj02, to: .wgs84)
            let want = try zones.placemark(for: wgs, datum: .wgs84)?.timeZone
            #expect(got == want, "\(c.latitude), \(c.longitude): \(got ?? "nil") vs \(want ?? "nil")")
            if got != nil { answered += 1 }
        }
        #expect(answered == 20_000)
    }
}
