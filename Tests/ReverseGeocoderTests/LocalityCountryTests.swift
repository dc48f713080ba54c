import Foundation
import GeoModel
import TestSupport
import Testing
@testable import ReverseGeocoder

/// A locality cell answers with its place's country (GeoNames), and is clipped to a Natural Earth
/// province: a border town that the simplified borders put in the neighbour's province once labelled a
/// strip of the neighbour with the town's country (Bolivia's Pando as Brazil, Ciudad Juárez as the
/// United States: 90 places, some 100 square degrees). Checked against Natural Earth's own countries
/// (the world dataset, another source) on the points QA found and on random land points.
@Suite(.serialized)
struct LocalityCountryTests: Sendable {
    /// Containment only, each dataset alone: every answer is that dataset's own.
    static func engine(_ dataset: String) throws -> ReverseGeocoder {
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        return try BundledData.geocoder(dataset, options: options)
    }

    static let localities = Result { try engine("localities") }
    static let world = Result { try engine("world") }

    /// Points a few to a hundred kilometres inside one country, next to a border town of the other that
    /// Natural Earth's simplified border put on this side, with the country they are in.
    static let borderPoints: [(lat: Double, lon: Double, country: String, town: String)] = [
        (-11.07439, -67.34503, "BO", "Plácido de Castro (BR)"),
        (3.98726, 39.22273, "ET", "Moyale (KE)"),
        (20.29881, 99.15923, "MM", "Mae Sai (TH)"),
        (-22.31029, -62.70049, "AR", "Yacuiba (BO)"),
        (39.38157, 72.16710, "KG", "Quvasoy (UZ)"),
        (12.70487, 14.77082, "TD", "Blangwa (CM)"),
        (31.6904, -106.4245, "MX", "El Paso (US)"),
    ]

    @Test func pointsBesideBorderTownsAnswerTheirOwnCountry() async throws {
        try await offPool { try Self.pointsBesideBorderTownsBody() }
    }

    static func pointsBesideBorderTownsBody() throws {
        let localities = try Self.localities.get(), world = try Self.world.get()
        for p in borderPoints {
            let c = Coordinate(latitude: p.lat, longitude: p.lon)
            // The oracle agrees first, or the point would prove nothing.
            #expect(try world.placemark(for: c)?.isoCountryCode == p.country, "world dataset at \(p)")
            let answer = try localities.placemark(for: c)
            #expect(answer?.isoCountryCode == p.country,
                    "(\(p.lat), \(p.lon)) beside \(p.town): \(answer?.locality ?? "nil"), \(answer?.isoCountryCode ?? "nil")")
        }
    }

    /// Countries that GeoNames and Natural Earth write the same land under: areas disputed or
    /// administered by another state, where the localities keep GeoNames' country on purpose (an
    /// ISO 3166 worldview). Each pair is (localities' country, Natural Earth's).
    static let disputed: Set<String> = ["UA/RU", "EH/MA", "SS/SD"]

    @Test func randomLandPointsAgreeWithNaturalEarth() async throws {
        try await offPool { try Self.randomLandPointsBody() }
    }

    static func randomLandPointsBody() throws {
        let localities = try Self.localities.get(), world = try Self.world.get()
        var rng = SplitMix64(seed: 2312)
        var compared = 0
        var disagreements: [String: [String]] = [:]
        for _ in 0..<40_000 {
            let c = Coordinate(latitude: -56 + rng.unitInterval() * 130, longitude: -180 + rng.unitInterval() * 360)
            guard let a = try localities.placemark(for: c), a.hasAdministrativeUnit,
                  let w = try world.placemark(for: c), w.hasAdministrativeUnit,
                  let ac = a.isoCountryCode, let wc = w.isoCountryCode else { continue }
            compared += 1
            if ac != wc { disagreements["\(ac)/\(wc)", default: []].append("(\(c.latitude), \(c.longitude)) \(a.locality ?? "nil")") }
        }
        // Over land the two sources must both answer: a few thousand points, or the check checks little.
        #expect(compared > 8_000, "only \(compared) points answered by both datasets")
        let unexplained = disagreements.filter { !disputed.contains($0.key) }
        // Where the two borders are drawn at different precisions, a point a few hundred metres from
        // the border can fall on either side: at most a handful of points, never a block.
        let count = unexplained.values.reduce(0) { $0 + $1.count }
        #expect(count <= compared / 2_000, "localities and Natural Earth disagree on \(count) of \(compared) points: \(unexplained)")
    }
}
