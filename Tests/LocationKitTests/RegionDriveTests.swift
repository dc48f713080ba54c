import Foundation
import LocationSources
import ReverseGeocoder
import Synchronization
import Testing
@testable import LocationKit

/// End to end with real parts: the example regions file, the Beijing → Tianjin GPX, the manager and the
/// engine on the bundled Data/. Expected events come from shapely's city of every fix
/// (beijing-tianjin.expected.json, computed outside the engine) run through the plain brute-force
/// reference of the region rules.
@Suite(.serialized)
struct RegionDriveTests {
    @Test(.timeLimit(.minutes(30)))
    func exampleRegionsOnTheBeijingTianjinDrive() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let gpx = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin", withExtension: "gpx"))
        let oracleURL = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin.expected", withExtension: "json"))
        let regionsURL = try #require(Bundle.module.url(forResource: "Fixtures/regions-example", withExtension: "json"))
        let oracle = try JSONDecoder().decode(DriveTests.Expected.self, from: Data(contentsOf: oracleURL))
        let file = try RegionFile.load(contentsOf: regionsURL)

        let source = GPXPlaybackSource(contentsOf: gpx, configuration: .init(pacing: .asFastAsPossible))
        let provider = CountingProvider(geocoder)
        let manager = LocationManager(source: source, geocoder: provider)
        var monitor: RegionMonitor? = try RegionMonitor.load(contentsOf: regionsURL)
        let stream = monitor!.events
        let collector = Task {
            var seen: [RegionEvent] = []
            for await event in stream { seen.append(event) }
            return seen
        }
        monitor!.attach(to: manager)
        let managerEvents = await drive(manager)
        let fixes = managerEvents.locations
        try #require(fixes.count == oracle.cities.count)
        await monitor!.waitUntilIdle()
        let statistics = monitor!.statistics
        monitor = nil  // finishes the stream after the events already in it
        let events = await collector.value

        // The reference: every region on every fix, with the placemark shapely's city implies (China's
        // adcodes: the province is the city code's first two digits).
        var reference = BruteForceRegions(hysteresis: file.hysteresis)
        var expected: [RegionEvent] = []
        let checked = file.regions.filter { $0.identifier != "dongcheng" }  // districts are not in the oracle
        // Regions given to `init` send no `.unknown` events (no one can be listening yet).
        for region in checked { _ = reference.add(region) }
        for (location, city) in zip(fixes, oracle.cities) {
            let placemark = Placemark(isoCountryCode: "CN", administrativeAreaCode: String(city.prefix(2)) + "0000",
                                      localityCode: city, dataset: "oracle")
            expected += reference.observe(location, placemark: placemark)
        }
        // The manager delivered the same events in its own stream, each right after its fix's events.
        #expect(managerEvents.regionEvents == events)
        #expect(managerEvents.regionEventsOutOfOrder.isEmpty, "\(managerEvents.regionEventsOutOfOrder.prefix(5))")
        let actual = events.filter { $0.region.identifier != "dongcheng" }
        #expect(actual.map(\.description) == expected.map(\.description))
        #expect(actual == expected)

        // The story in words: Tiananmen left on the 4th fix (the 3rd is 497 m out, > 300 + 25 m, and the
        // 5 s dwell needs one more fix 10 s later); Beijing left and Langfang entered once, Langfang left
        // and Tianjin entered once, each one fix after shapely's crossing; the destination entered near the
        // end. Never a flap.
        let transitions = actual.transitions
        #expect(transitions == ["-tiananmen", "-beijing", "+langfang", "-langfang", "+tianjin", "+tianjin-depot"])
        let crossing = try #require(oracle.cities.firstIndex(of: "131000"))
        #expect(events.contains(.exited(file.regions[2], at: fixes[crossing + 1])))
        // Dongcheng (by name, district level) is where the drive starts.
        #expect(events.contains(.stateDetermined(file.regions[5], .inside, at: fixes[0])))
        // No engine calls of its own: one lookup per fix, as the manager makes anyway.
        #expect(provider.lookups == fixes.count)
        #expect(statistics.fixes == fixes.count)
        #expect(statistics.maximumFixEvaluations == file.regions.count)
    }
}

/// The engine, counting how often it is asked.
final class CountingProvider: PlacemarkProvider {
    let base: any PlacemarkProvider
    private let count = Mutex(0)
    init(_ base: any PlacemarkProvider) { self.base = base }
    var lookups: Int { count.withLock { $0 } }
    func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        count.withLock { $0 += 1 }
        return try base.placemark(for: coordinate, datum: datum)
    }
    func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws(GeocoderError) -> Placemark? {
        count.withLock { $0 += 1 }
        return try base.placemark(for: coordinate, previous: previous)
    }
}
