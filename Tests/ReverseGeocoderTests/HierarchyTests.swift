import Foundation
import Testing
@testable import ReverseGeocoder

/// Administrative hierarchy, municipality fallback, dataset stacking and datums.
struct HierarchyTests {
    typealias R = TestShapefile.Record
    func box(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [(Double, Double)] { TestShapefile.box(a, b, c, d) }

    /// A small "China" in GCJ-02: a district layer carrying province and city fields, and a province layer.
    func china(_ dir: URL) -> DatasetManifest {
        let fields = ["NAME", "CODE", "CITY", "CITY_CODE", "PROV", "PROV_CODE"]
        let districts = TestShapefile.write(dir.appendingPathComponent("district"), fields: fields, records: [
            // Beijing: a municipality, the district's record has no city.
            R(rings: [box(116.0, 39.5, 116.5, 40.0)], ["NAME": "东城区", "CODE": "110101", "PROV": "北京市", "PROV_CODE": "110000"]),
            R(rings: [box(116.5, 39.5, 117.0, 40.0)], ["NAME": "西城区", "CODE": "110102", "PROV": "北京市", "PROV_CODE": "110000"]),
            // Shanghai: the record names the province as its city.
            R(rings: [box(121.0, 31.0, 121.5, 31.5)], ["NAME": "黄浦区", "CODE": "310101", "CITY": "上海市", "CITY_CODE": "310000",
                                                       "PROV": "上海市", "PROV_CODE": "310000"]),
            // Guangzhou: an ordinary city.
            R(rings: [box(113.0, 23.0, 113.5, 23.5)], ["NAME": "天河区", "CODE": "440106", "CITY": "广州市", "CITY_CODE": "440100",
                                                       "PROV": "广东省", "PROV_CODE": "440000"]),
        ])
        let provinces = TestShapefile.write(dir.appendingPathComponent("province"), fields: ["NAME", "CODE"], records: [
            R(rings: [box(115.5, 39.0, 117.5, 41.0)], ["NAME": "北京市", "CODE": "110000"]),
            R(rings: [box(110.0, 20.0, 116.0, 25.0)], ["NAME": "广东省", "CODE": "440000"]),
        ])
        return DatasetManifest(name: "china", datum: .gcj02, priority: 10, constants: [.country: .init(name: "中国", code: "CN")],
                               layers: [
                                   .init(file: districts.path, level: .district, fields: [
                                       .district: .init(name: ["NAME"], code: ["CODE"]),
                                       .city: .init(name: ["CITY"], code: ["CITY_CODE"]),
                                       .province: .init(name: ["PROV"], code: ["PROV_CODE"]),
                                   ]),
                                   .init(file: provinces.path, level: .province, fields: [.province: .init(name: ["NAME"], code: ["CODE"])]),
                               ])
    }

    /// A small "world" in WGS-84 at province level with country fields.
    func world(_ dir: URL) -> DatasetManifest {
        let shp = TestShapefile.write(dir.appendingPathComponent("world"), fields: ["name", "iso_3166_2", "admin", "iso_a2"], records: [
            R(rings: [box(73, 22, 135, 53)], ["name": "Somewhere in China", "iso_3166_2": "CN-XX", "admin": "China", "iso_a2": "CN"]),
            R(rings: [box(105, 20, 106, 21)], ["name": "Hanoi", "iso_3166_2": "VN-HN", "admin": "Vietnam", "iso_a2": "VN"]),
            R(rings: [box(13, 52, 14, 53)], ["name": "Berlin", "iso_3166_2": "DE-BE", "admin": "Germany", "iso_a2": "DE"]),
        ])
        return .naturalEarth(admin1: shp.path, name: "world")
    }

    func geocoder(_ name: String = #function, maxDistance: Double = ReverseGeocoder.Options.defaultMaxDistance) throws -> ReverseGeocoder {
        let dir = TestShapefile.directory(name)
        var options = ReverseGeocoder.Options()
        options.maxDistance = maxDistance
        return try ReverseGeocoder(manifests: [(world(dir), nil), (china(dir), nil)], options: options)
    }

    /// WGS-84 coordinates of a GCJ-02 point (the engine's inputs are GPS fixes).
    func wgs(_ lat: Double, _ lon: Double) -> Coordinate {
        Datum.convert(Coordinate(latitude: lat, longitude: lon), from: .gcj02, to: .wgs84)
    }

    @Test func municipalityWithoutCityFallsBackToProvince() throws {
        let p = try #require(try geocoder().placemark(for: wgs(39.7, 116.2)))
        #expect(p.country == "中国" && p.isoCountryCode == "CN")
        #expect(p.administrativeArea == "北京市" && p.administrativeAreaCode == "110000")
        #expect(p.locality == "北京市" && p.localityCode == "110000" && p.localityIsProvinceFallback)
        #expect(p.subLocality == "东城区" && p.subLocalityCode == "110101")
        #expect(p.dataset == "china")
    }

    @Test func municipalityNamingItselfAsCityIsAFallbackToo() throws {
        let p = try #require(try geocoder().placemark(for: wgs(31.2, 121.2)))
        #expect(p.locality == "上海市" && p.localityIsProvinceFallback)
        #expect(p.subLocality == "黄浦区")
    }

    @Test func ordinaryCityIsNotAFallback() throws {
        let p = try #require(try geocoder().placemark(for: wgs(23.2, 113.2)))
        #expect(p.locality == "广州市" && p.localityCode == "440100" && !p.localityIsProvinceFallback)
        #expect(p.administrativeArea == "广东省" && p.subLocality == "天河区")
    }

    @Test func coarserLayerAnswersWhereNoDistrictCovers() throws {
        // Inside the Guangdong province polygon, outside every district: province answers, no city invented.
        let p = try #require(try geocoder().placemark(for: wgs(21.0, 111.0)))
        #expect(p.administrativeArea == "广东省" && p.locality == nil && !p.localityIsProvinceFallback && p.subLocality == nil)
        #expect(p.country == "中国")
    }

    @Test func provinceLevelDatasetUsesMunicipalityCodes() throws {
        // Natural Earth has no city level: Beijing (listed) gets a fallback locality, Guangdong does not.
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("ne"), fields: ["name", "iso_3166_2", "admin", "iso_a2"], records: [
            R(rings: [box(115, 39, 118, 41)], ["name": "Beijing", "iso_3166_2": "CN-BJ", "admin": "China", "iso_a2": "CN"]),
            R(rings: [box(110, 20, 116, 25)], ["name": "Guangdong", "iso_3166_2": "CN-GD", "admin": "China", "iso_a2": "CN"]),
        ])
        let g = try ReverseGeocoder(manifests: [(.naturalEarth(admin1: shp.path), nil)])
        let bj = try #require(try g.placemark(latitude: 40, longitude: 116.4))
        #expect(bj.locality == "Beijing" && bj.localityIsProvinceFallback && bj.isoCountryCode == "CN")
        let gd = try #require(try g.placemark(latitude: 23, longitude: 113))
        #expect(gd.locality == nil && !gd.localityIsProvinceFallback)
    }

    @Test func higherPriorityDatasetAnswersFirst() throws {
        let g = try geocoder()
        #expect(g.datasets.map(\.name) == ["china", "world"])
        // Inside the China dataset → china; in the world's China polygon but outside the China data → world.
        #expect(try g.placemark(for: wgs(39.7, 116.2))?.dataset == "china")
        let far = try #require(try g.placemark(latitude: 45, longitude: 90))
        #expect(far.dataset == "world" && far.country == "China" && far.isoCountryCode == "CN")
        #expect(try g.placemark(latitude: 52.5, longitude: 13.4)?.administrativeAreaCode == "DE-BE")
        #expect(try g.placemark(latitude: 0, longitude: -150) == nil)  // Pacific
    }

    @Test func wgsInputMeetsGCJPolygonsAcrossABorder() throws {
        // The GCJ-02 border between 东城区 and 西城区 is longitude 116.5. A GPS point just west of it in
        // WGS-84 is east of it in GCJ-02 (the offset here is ~+0.006°), so it is in 西城区.
        let g = try geocoder()
        let gps = Coordinate(latitude: 39.7, longitude: 116.497)
        let gcj = Datum.convert(gps, from: .wgs84, to: .gcj02)
        try #require(gcj.longitude > 116.5)
        #expect(try g.placemark(for: gps)?.subLocality == "西城区")
        // The same numbers given as GCJ-02 are west of the border.
        #expect(try g.placemark(for: gps, datum: .gcj02)?.subLocality == "东城区")
        // And as BD-09: converted to GCJ-02 first (Baidu's offset is ~+0.0065° east).
        let bd = Datum.convert(Coordinate(latitude: 39.7, longitude: 116.49), from: .gcj02, to: .bd09)
        #expect(try g.placemark(for: bd, datum: .bd09)?.subLocality == "东城区")
    }

    @Test func gcjInputOutsideChinaDataIsNotShifted() throws {
        // A GCJ-02 point in Vietnam, 0.002° east of the Hanoi box edge. Outside China GCJ-02 is WGS-84,
        // so it is outside Hanoi; the formula's rectangle (which includes Hanoi) would shift it inside.
        // Containment: without the coast fallback, which would answer Hanoi as the unit 200 m away.
        let g = try geocoder(maxDistance: 0)
        let p = Coordinate(latitude: 20.5, longitude: 106.002)
        let naive = Datum.convert(p, from: .gcj02, to: .wgs84)
        try #require(naive.longitude < 106)  // the naive conversion would land inside
        #expect(try g.placemark(for: p, datum: .gcj02)?.administrativeArea != "Hanoi")
        // With it, Hanoi is the nearest unit, measured unshifted (about 0.002° of longitude at 20.5° N).
        let near = try #require(try geocoder().placemark(for: p, datum: .gcj02))
        #expect(near.administrativeArea == "Hanoi")
        let m = try #require(near.provenance(at: .province)?.distance)
        #expect(abs(m - 0.002 * 111_195 * cos(20.5 * .pi / 180)) < 2)
        #expect(try g.placemark(for: Coordinate(latitude: 20.5, longitude: 105.99), datum: .gcj02)?.administrativeArea == "Hanoi")
    }

    /// An invalid coordinate is an error, never the nil that means "no place here" (the sea below).
    @Test func invalidCoordinatesThrowAndTheSeaIsNil() throws {
        let g = try geocoder()
        for (lat, lon) in [(Double.nan, 116.0), (95, 116), (40, 181), (-90.0001, 0), (0, -.infinity)] {
            do {
                let p = try g.placemark(latitude: lat, longitude: lon)
                Issue.record("(\(lat), \(lon)) answered \(String(describing: p)) instead of throwing")
            } catch {
                guard case .invalidCoordinate(let c) = error else { Issue.record("wrong error \(error)"); continue }
                #expect(c.latitude.bitPattern == lat.bitPattern && c.longitude.bitPattern == lon.bitPattern)
            }
        }
        // Valid extremes are questions, not errors: the poles and the antimeridian answer (nil: no unit).
        #expect(try g.placemark(latitude: 90, longitude: 180) == nil)
        #expect(try g.placemark(latitude: 0, longitude: -150) == nil)   // Pacific: no place, not invalid
        // Through the one protocol, as LocationKit and the CLI ask.
        let provider: any PlacemarkProvider = g
        #expect(throws: GeocoderError.invalidCoordinate(Coordinate(latitude: 95, longitude: 116))) {
            try provider.placemark(for: Coordinate(latitude: 95, longitude: 116), datum: .gcj02)
        }
    }

    @Test func parentFromCoarserLayerByLocationWhenRecordLacksIt() throws {
        // A district layer with no province fields: the province comes from the province layer's unit
        // containing the district (PointOnSurface), and the country from the constants.
        let dir = TestShapefile.directory()
        let d = TestShapefile.write(dir.appendingPathComponent("d"), fields: ["NAME", "CODE"], records: [
            R(rings: [box(1, 1, 2, 2)], ["NAME": "Inner", "CODE": "D1"]),
        ])
        let p = TestShapefile.write(dir.appendingPathComponent("p"), fields: ["NAME", "CODE"], records: [
            R(rings: [box(10, 10, 20, 20)], ["NAME": "Other", "CODE": "P2"]),
            R(rings: [box(0, 0, 5, 5)], ["NAME": "Outer", "CODE": "P1"]),
        ])
        let m = DatasetManifest(name: "x", constants: [.country: .init(name: "Xland", code: "XL")], layers: [
            .init(file: d.path, level: .district, fields: [.district: .init(name: ["NAME"], code: ["CODE"])]),
            .init(file: p.path, level: .province, fields: [.province: .init(name: ["NAME"], code: ["CODE"])]),
        ])
        let pm = try #require(try ReverseGeocoder(manifests: [(m, nil)]).placemark(latitude: 1.5, longitude: 1.5))
        #expect(pm.subLocality == "Inner" && pm.administrativeArea == "Outer" && pm.administrativeAreaCode == "P1")
        #expect(pm.country == "Xland" && pm.isoCountryCode == "XL")
    }
}
