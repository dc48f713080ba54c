import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// The admin-1 ISO 3166-2 codes of the countries the build's last pass codes (generic terms such as Atoll,
/// Atholhu, Muhafazat, and the Maldives' atolls by hand; Data/README.md, step 4), through the engine on the
/// localities dataset alone, against GeoNames' own attributes of real places and iso-codes
/// (`Fixtures/locality-oracle/admin1-iso.json`, made by `Data/make_locality_oracle.py` by rules of its own,
/// never from the build: the iso-codes name standing whole in GeoNames' name, and for the Maldives the
/// atolls' letter names against their geographic names).
@Suite(.serialized)
struct Admin1IsoCodeTests {
    /// A place with GeoNames' own attributes, as in `islands.json`.
    typealias Place = IslandCellsTests.Place

    struct About: Decodable {
        var ownCell: Int
        var ownCellByCountry: [String: Int]
        var isoNames: [String: String]
    }

    static let fixture: Result<(About, [Place]), Error> = Result { try IslandCellsTests.places("admin1-iso") }

    /// The fixture's places that the engine answers with their own cell (the place is the locality, or for a
    /// section of a city, Kyiv's, the subLocality), with the answer.
    static func ownCells() throws -> [(Place, Placemark)] {
        // the localities dataset alone, containment only: each place is asked at its own point
        let g = try IslandCellsTests.geocoder.get()
        return try fixture.get().1.compactMap { place in
            guard let p = try g.placemark(latitude: place.lat, longitude: place.lon),
                  (p.subLocalityCode ?? p.localityCode) == place.geonameid else {
                return nil
            }
            return (place, p)
        }
    }

    /// Every place answered by its own cell carries the ISO 3166-2 code of the iso-codes subdivision GeoNames
    /// files it under, wherever the oracle names one (`Ailuk Atoll` → MH-ALK, `Baa Atholhu` → MV-20,
    /// `Muhafazat al Fayyum` → EG-FYM); in each country as many answer their own cell as shapely finds. On
    /// the build before the last pass, MV and MH answered no code at all.
    @Test func placesAnswerTheCodeOfTheirGeoNamesUnit() async throws {
        try await offPool {
            let (about, _) = try Self.fixture.get()
            let own = try Self.ownCells()
            var checked = 0
            for (place, p) in own {
                guard let iso = place.geonamesAdmin1Iso else { continue }
                #expect(p.administrativeAreaCode == iso,
                        "\(place.name) (\(place.geonamesAdmin1Code ?? "-") \(place.geonamesAdmin1 ?? "-")): \(p.administrativeAreaCode ?? "nil"), iso-codes \(iso) \(about.isoNames[iso] ?? "")")
                checked += 1
            }
            let byCountry = Dictionary(grouping: own, by: { $0.0.geonamesCountry }).mapValues(\.count)
            #expect(byCountry == about.ownCellByCountry, "own cells \(byCountry.sorted { $0.key < $1.key }), shapely \(about.ownCellByCountry)")
            #expect(own.count == about.ownCell && checked >= about.ownCell - (about.ownCellByCountry["MV"] ?? 0) - (about.ownCellByCountry["MH"] ?? 0),
                    "\(checked) places checked of \(own.count)")
        }
    }

    struct CapitalsAbout: Decodable {
        var ownCell: Int
        var ownCellByCountry: [String: Int]
        var isoNames: [String: String]
        var units: [String: String]
        /// `admin1-exonyms.json` only: code → language → iso-codes' own gettext translation of the code's ISO
        /// name (`RU-MOW` → de `Moskau`).
        var translations: [String: [String: String]]?
    }

    /// `Fixtures/locality-oracle/admin1-capitals.json`: places of the units the build codes by transliteration
    /// (`code_by_transliteration`: `Cherkasy` → UA-71 `Cherkaska oblast`, `Nam Dinh` → VN-67 `Nam Định`),
    /// each unit found by the oracle through the GeoNames admin-1 unit of the subdivision's capital (a table of
    /// facts in `make_locality_oracle.py`, `ADMIN1_CAPITALS`), not through any name rule.
    static let capitals: Result<(CapitalsAbout, [Place]), Error> = Result { try IslandCellsTests.places("admin1-capitals") }

    /// `Fixtures/locality-oracle/admin1-exonyms.json`: places of the units the build codes by their places'
    /// GeoNames names and the Natural Earth vote without other units' codes (Moscow, Bangkok, ...), and of
    /// those the build's hand tables code by their seats (Lesser Poland, Altai Krai, Crimea, Morocco, ...),
    /// each unit found by the oracle through the GeoNames admin-1 unit of the subdivision's administrative
    /// centre (`ADMIN1_EXONYM_CAPITALS`, a table of facts), with the code's German and French names as
    /// iso-codes' catalogues translate them.
    static let exonyms: Result<(CapitalsAbout, [Place]), Error> = Result { try IslandCellsTests.places("admin1-exonyms") }

    /// What a capitals fixture promises: every place in the GeoNames unit of a subdivision's centre that the
    /// engine answers with its own cell carries that subdivision's code and the GeoNames country, and in each
    /// language of `about.translations` the province name iso-codes' catalogue gives the code; each code of
    /// the oracle is answered, for one GeoNames unit; in each country as many places answer their own cell as
    /// shapely finds. Returns how many places answered their own cell and how many translated names were checked.
    private static func checkUnitsOfCentres(_ about: CapitalsAbout, _ places: [Place]) throws -> (own: Int, translated: Int) {
        let g = try IslandCellsTests.geocoder.get()
        var own: [(Place, Placemark)] = []
        for place in places {
            if let p = try g.placemark(latitude: place.lat, longitude: place.lon),
               (p.subLocalityCode ?? p.localityCode) == place.geonameid {
                own.append((place, p))
            }
        }
        var unitsOfCode: [String: Set<String>] = [:]
        var translated = 0
        for (place, p) in own {
            let iso = try #require(place.geonamesAdmin1Iso)
            #expect(p.administrativeAreaCode == iso,
                    "\(place.name) (\(place.geonamesAdmin1Code ?? "-")): \(p.administrativeAreaCode ?? "nil"), centre's \(iso) \(about.isoNames[iso] ?? "")")
            #expect(p.isoCountryCode == place.geonamesCountry, "\(place.name): \(p.isoCountryCode ?? "nil")")
            for (language, name) in about.translations?[iso] ?? [:] {
                let shown = p.localized(to: [language]).administrativeArea
                #expect(shown == name, "\(place.name) in \(language): \(shown ?? "nil"), iso-codes \(name) (\(iso))")
                translated += 1
            }
            if let code = p.administrativeAreaCode { unitsOfCode[code, default: []].insert(place.geonamesAdmin1Code ?? "-") }
        }
        #expect(Set(unitsOfCode.keys) == Set(about.isoNames.keys),
                "codes answered \(unitsOfCode.count) of \(about.isoNames.count); missing \(Set(about.isoNames.keys).subtracting(unitsOfCode.keys).sorted())")
        for (code, units) in unitsOfCode {
            #expect(units == [about.units[code] ?? "?"], "\(code) answers \(units.sorted()), oracle \(about.units[code] ?? "?")")
        }
        let byCountry = Dictionary(grouping: own, by: { $0.0.geonamesCountry }).mapValues(\.count)
        #expect(byCountry == about.ownCellByCountry && own.count == about.ownCell,
                "own cells \(byCountry.sorted { $0.key < $1.key }), shapely \(about.ownCellByCountry)")
        return (own.count, translated)
    }

    /// The transliterated units' places answer their capital's code (Lutsk's unit `Volyn` → UA-07, Bila
    /// Tserkva's `Kiev` → UA-32, Kyiv's oblast; Matola's `Maputo` → MZ-L, the province, not the city MZ-MPM):
    /// ``checkUnitsOfCentres(_:_:)``. On the build before the transliteration rules these units had no code at all.
    @Test func placesOfTransliteratedUnitsAnswerTheirCapitalsCode() async throws {
        try await offPool {
            let (about, places) = try Self.capitals.get()
            _ = try Self.checkUnitsOfCentres(about, places)
        }
    }

    /// The units named in English answer their centre's code (Moscow's RU.48 → RU-MOW, Kraków's `Lesser
    /// Poland Voivodeship` → PL-12, Simferopol's `Crimea` → UA-43) and, in German and French, the province
    /// name iso-codes' catalogue gives the code (de `Moskau`, fr `Moscou`, de `Kleinpolen`, fr
    /// `Petite-Pologne`): ``checkUnitsOfCentres(_:_:)``. On the build before session 31 the units had no code,
    /// and so no translated name.
    @Test func placesOfUnitsNamedInEnglishAnswerTheirCapitalsCodeAndItsTranslation() async throws {
        try await offPool {
            let (about, places) = try Self.exonyms.get()
            let checked = try Self.checkUnitsOfCentres(about, places)
            #expect(checked.translated >= checked.own, "\(checked.translated) translated names checked for \(checked.own) places")
        }
    }

    /// Every place of the Maldives and the Marshall Islands answered by its own cell has an admin-1 code, one
    /// GeoNames unit one code, and ISO's atolls lie where their names say: of two codes iso-codes names
    /// "North X" and "South X", every place answering the North one lies north of every place answering the
    /// South one (North and South Miladhunmadulu, Maalhosmadulu, Nilandhe, Huvadhu), which also checks the
    /// units whose GeoNames name says nothing (MV.33, MV.35). Thiladhunmathi is the build's check alone:
    /// Dhihdhoo, Haa Alifu's one place, lies in another place's cell.
    @Test func atollsHaveCodesAndNorthLiesNorthOfSouth() async throws {
        try await offPool {
            let about = try Self.fixture.get().0
            let own = try Self.ownCells().filter { ["MV", "MH"].contains($0.0.geonamesCountry) }
            #expect(own.count == (about.ownCellByCountry["MV"] ?? 0) + (about.ownCellByCountry["MH"] ?? 0) && own.count >= 30,
                    "\(own.count) places of MV and MH answer their own cell")
            var codeOfUnit: [String: String] = [:]
            var unitsOfCode: [String: Set<String>] = [:]
            var latitudes: [String: [Double]] = [:]
            for (place, p) in own {
                let code = try #require(p.administrativeAreaCode, "\(place.name) (\(place.geonamesAdmin1Code ?? "-")) has no admin-1 code")
                let unit = try #require(place.geonamesAdmin1Code)
                #expect(code.hasPrefix(place.geonamesCountry + "-"), "\(place.name): \(code)")
                #expect(codeOfUnit[unit, default: code] == code, "\(unit): \(codeOfUnit[unit] ?? "") and \(code)")
                codeOfUnit[unit] = code
                unitsOfCode[code, default: []].insert(unit)
                latitudes[code, default: []].append(place.lat)
            }
            for (code, units) in unitsOfCode { #expect(units.count == 1, "\(code) answers \(units.sorted())") }
            // iso-codes' names of the answered codes, from the fixture (the oracle reads iso_3166-2.json)
            let names = about.isoNames
            var pairs: [String] = []
            for (north, name) in names where name.hasPrefix("North ") {
                guard let south = names.first(where: { $0.value == "South " + name.dropFirst("North ".count) })?.key,
                      let n = latitudes[north], let s = latitudes[south] else { continue }
                pairs.append(name)
                #expect(n.min()! > s.max()!, "\(north) \(name) at \(n), \(south) at \(s)")
            }
            #expect(pairs.count >= 4, "North/South pairs answered: \(pairs.sorted()); codes answered: \(latitudes.keys.sorted())")
        }
    }
}
