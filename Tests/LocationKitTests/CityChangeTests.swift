import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// cityDidChange: exactly when the city changes, with hysteresis against border jitter.
@Suite struct CityChangeTests {
    // A slow drive south across the Beijing/Tianjin border at latitude 39.4 (0.0001° ≈ 11.1 m), with
    // the fixes jittering back and forth over the line before settling in Tianjin.
    static let crossing: [Double] = [
        39.4100, 39.4050, 39.4010,                    // Beijing
        39.4002, 39.3999, 39.4001, 39.3998, 39.3999,  // B T B T T
        39.4001, 39.3997, 39.3996, 39.3995,           // B T T T (3 in a row, but only 22 m from 39.3997)
        39.3990,                                      // T: 4th in a row, 78 m from 39.3997
        39.3950, 39.3900,                             // Tianjin
    ]

    func manager(_ latitudes: [Double], hysteresis: CityChangeHysteresis, file: URL? = nil) -> LocationManager {
        let m = LocationManager(source: ScriptedSource(locations: track(latitudes)), geocoder: RegionProvider(),
                                currentPlacemarkFile: file)
        m.cityChangeHysteresis = hysteresis
        return m
    }

    @Test func crossingWithJitterChangesOnceWithHysteresis() async {
        let events = await drive(manager(Self.crossing, hysteresis: .default))
        #expect(events.cityChanges == [CityChangeSummary(from: "Beijing", to: "Tianjin", latitude: 39.3990)])
    }

    @Test func crossingWithJitterFlapsWithoutHysteresis() async {
        let events = await drive(manager(Self.crossing, hysteresis: .off))
        #expect(events.cityChanges == [
            .init(from: "Beijing", to: "Tianjin", latitude: 39.3999),
            .init(from: "Tianjin", to: "Beijing", latitude: 39.4001),
            .init(from: "Beijing", to: "Tianjin", latitude: 39.3998),
            .init(from: "Tianjin", to: "Beijing", latitude: 39.4001),
            .init(from: "Beijing", to: "Tianjin", latitude: 39.3997),
        ])
    }

    /// Consecutive fixes alone: the 3rd Tianjin fix in a row confirms.
    @Test func consecutiveFixesOnly() async {
        let events = await drive(manager(Self.crossing, hysteresis: .init(consecutiveFixes: 3, minimumDistance: 0)))
        #expect(events.cityChanges == [.init(from: "Beijing", to: "Tianjin", latitude: 39.3995)])
    }

    /// Distance alone: the first Tianjin fix ≥ 30 m from where its run began.
    @Test func distanceOnly() async {
        let events = await drive(manager(Self.crossing, hysteresis: .init(consecutiveFixes: 1, minimumDistance: 30)))
        #expect(events.cityChanges == [.init(from: "Beijing", to: "Tianjin", latitude: 39.3990)])
    }

    /// Driving along the border, the side changing every one or two fixes: never three in a row.
    @Test func trackAlongTheBorderDoesNotFlap() async {
        let sides = [1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1, 1, 1, -1, 1]
        let locations = sides.enumerated().map { i, side in
            fix(39.4 + Double(side) * 0.00004, 116.9 + Double(i) * 0.0003, t: Double(i))
        }
        func run(_ h: CityChangeHysteresis) async -> [CityChangeSummary] {
            let m = LocationManager(source: ScriptedSource(locations: locations), geocoder: RegionProvider())
            m.cityChangeHysteresis = h
            return await drive(m).cityChanges
        }
        #expect(await run(.default).isEmpty)
        let flaps = await run(.off)
        let sideChanges = zip(sides, sides.dropFirst()).filter { $0 != $1 }.count
        #expect(flaps.count == sideChanges)
    }

    /// The first placemark is adopted silently; a change in district only updates currentPlacemark.
    @Test func firstPlacemarkIsNotAChangeAndDistrictsAreNotCities() async {
        let locations = [fix(39.5, 116.4), fix(39.5, 116.6, t: 1), fix(39.5, 116.4, t: 2)]
        let m = LocationManager(source: ScriptedSource(locations: locations), geocoder: RegionProvider())
        #expect(m.currentPlacemark == nil)
        let events = await drive(m)
        #expect(events.cityChanges.isEmpty)
        #expect(events.placemarks == [.haidian, .chaoyang, .haidian])
        #expect(m.currentPlacemark == .haidian)
    }

    /// Fixes with no placemark (sea) neither count nor break a run, and never become "the city".
    @Test func fixesWithoutPlacemarkAreSkipped() async {
        let locations = [fix(39.5, t: 0), fix(39.3, t: 1), fix(39.3, 121, t: 2), fix(39.3, t: 3), fix(39.3, 121, t: 4),
                         fix(39.29, t: 5)]
        let m = LocationManager(source: ScriptedSource(locations: locations), geocoder: RegionProvider())
        m.cityChangeHysteresis = .init(consecutiveFixes: 3, minimumDistance: 0)
        let events = await drive(m)
        #expect(events.cityChanges == [.init(from: "Beijing", to: "Tianjin", latitude: 39.29)])
        #expect(m.currentPlacemark == .hexi)
    }

    @Test func noPlacemarkAtAllMeansNoCity() async {
        let m = LocationManager(source: ScriptedSource(locations: [fix(30, 121), fix(30, 122, t: 1)]),
                                geocoder: RegionProvider())
        let events = await drive(m)
        #expect(events.placemarks == [nil, nil])
        #expect(m.currentPlacemark == nil)
    }

    /// A persisted city that differs from where we start is changed after `consecutiveFixes` fixes,
    /// even when parked (the distance criterion is waived until a fix has seen the current city).
    @Test func persistedCityDiffersParked() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("current.json")
        try PlacemarkStore(url: file).save(.haidian)

        let parked = Array(repeating: 39.3, count: 5)
        let m = manager(parked, hysteresis: .default, file: file)
        let events = await drive(m)
        #expect(events.cityChanges == [.init(from: "Beijing", to: "Tianjin", latitude: 39.3)])
        // The change came on the 3rd fix.
        let changeIndex = events.firstIndex { if case .cityChanged = $0 { true } else { false } }!
        #expect(Array(events[..<changeIndex]).locations.count == 3)
        #expect(m.currentPlacemark == .hexi)
        #expect(try PlacemarkStore(url: file).load() == .hexi)
    }

    @Test func persistedCitySameIsNoChange() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("current.json")
        try PlacemarkStore(url: file).save(.haidian)

        let m = manager([39.5, 39.5], hysteresis: .off, file: file)
        let events = await drive(m)
        #expect(events.cityChanges.isEmpty)
        #expect(m.currentPlacemark == .chaoyang)
    }

    /// A second run of the same manager starts from the in-memory city, like a restored one.
    @Test func secondRunKeepsTheCity() async {
        let source = ScriptedSource(locations: track([39.5, 39.5]))
        let m = LocationManager(source: source, geocoder: RegionProvider())
        #expect(await drive(m).cityChanges.isEmpty)
        #expect(await drive(m).cityChanges.isEmpty)
        #expect(m.currentPlacemark == .chaoyang)
    }

    // MARK: The tracker alone

    @Test func trackerRules() {
        var t = CityTracker(hysteresis: .init(consecutiveFixes: 2, minimumDistance: 50))
        let b = Coordinate(latitude: 39.5, longitude: 116.9)
        func at(_ lat: Double) -> Coordinate { Coordinate(latitude: lat, longitude: 116.9) }

        #expect(t.observe(.chaoyang, at: b) == .init(currentChanged: true))       // adopted, no change
        #expect(t.observe(.chaoyang, at: b) == .init())                            // same placemark
        #expect(t.observe(.haidian, at: b) == .init(currentChanged: true))        // district only
        #expect(t.observe(.hexi, at: at(39.399)) == .init())                       // candidate, 1
        #expect(t.observe(nil, at: at(39.398)) == .init())                         // skipped
        #expect(t.observe(.hexi, at: at(39.3986)) == .init())                      // 2 in a row, 44 m
        #expect(t.observe(.hexi, at: at(39.3985)) == .init(currentChanged: true, cityChange: (.haidian, .hexi)))
        #expect(t.current == .hexi)
        // Back north once, then a third city: the run restarts with each new city.
        #expect(t.observe(.chaoyang, at: at(39.5)) == .init())
        let shanghai = Placemark(country: "China", isoCountryCode: "CN", administrativeArea: "Shanghai",
                                 administrativeAreaCode: "310000", locality: "Shanghai", localityCode: "310000",
                                 localityIsProvinceFallback: true, dataset: "t")
        #expect(t.observe(shanghai, at: at(31.2)) == .init())
        #expect(t.observe(.chaoyang, at: at(39.5)) == .init())  // restarted with Beijing: 1 in a row
        #expect(t.observe(.hexi, at: at(39.3)) == .init())      // back in the current city: cancels
        #expect(t.observe(.chaoyang, at: at(39.6)) == .init())  // 1 in a row again (else 2, and 11 km away)
        #expect(t.observe(.chaoyang, at: at(39.61)) == .init(currentChanged: true, cityChange: (.hexi, .chaoyang)))
    }

    @Test func hysteresisIsClamped() {
        #expect(CityChangeHysteresis(consecutiveFixes: 0, minimumDistance: -5) == .off)
        #expect(CityChangeHysteresis(consecutiveFixes: 2, minimumDistance: .nan).minimumDistance == 0)
    }

    // MARK: City identity

    @Test func cityIdentity() {
        // Code wins over name; the fallback flag does not matter.
        let a = Placemark(country: "China", isoCountryCode: "CN", locality: "Beijing", localityCode: "110000", dataset: "a")
        let b = Placemark(country: "China", isoCountryCode: "CN", locality: "北京市", localityCode: "110000", dataset: "b")
        #expect(CityIdentity(a) == CityIdentity(b))
        // Same code in another country is another city.
        let c = Placemark(country: "X", isoCountryCode: "XX", locality: "Beijing", localityCode: "110000", dataset: "a")
        #expect(CityIdentity(a) != CityIdentity(c))
        // Without codes, names with their province.
        let d1 = Placemark(country: "US", administrativeArea: "Illinois", locality: "Springfield", dataset: "n")
        let d2 = Placemark(country: "US", administrativeArea: "Missouri", locality: "Springfield", dataset: "n")
        #expect(CityIdentity(d1) != CityIdentity(d2))
        #expect(CityIdentity(d1) == CityIdentity(d1))
        // No city level: the province stands in.
        let p1 = Placemark(country: "DE", administrativeArea: "Berlin", administrativeAreaCode: "DE-BE",
                           subLocality: "Mitte", dataset: "n")
        let p2 = Placemark(country: "DE", administrativeArea: "Berlin", administrativeAreaCode: "DE-BE",
                           subLocality: "Pankow", dataset: "n")
        #expect(CityIdentity(p1) != nil)
        #expect(CityIdentity(p1) == CityIdentity(p2))
        // Nothing to go by.
        #expect(CityIdentity(Placemark(country: "China", dataset: "n")) == nil)
        #expect(CityIdentity(Placemark(locality: "", dataset: "n")) == nil)
    }
}
