import Dispatch
import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The monitor as apps use it: attached to a manager, heard through a delegate, closures and `events`;
/// and the regions file.
@Suite struct RegionMonitorTests {
    final class Delegate: RegionMonitorDelegate {
        let events = Recorder<RegionEvent>()
        func regionMonitor(_ monitor: RegionMonitor, didDetermineState state: RegionState, for region: MonitoredRegion,
                           at location: Location?) {
            events.append(.stateDetermined(region, state, at: location))
        }
        func regionMonitor(_ monitor: RegionMonitor, didEnterRegion region: MonitoredRegion, at location: Location) {
            events.append(.entered(region, at: location))
        }
        func regionMonitor(_ monitor: RegionMonitor, didExitRegion region: MonitoredRegion, at location: Location) {
            events.append(.exited(region, at: location))
        }
    }

    static let beijingCity = MonitoredRegion.administrative("beijing", .code("110000", level: .city))
    static let tianjinCity = MonitoredRegion.administrative("tianjin", .name("Tianjin", level: .city))
    static let depot = MonitoredRegion.circle("depot", center: Coordinate(latitude: 39.45, longitude: 116.9), radius: 2000)

    /// Beijing (39.5) south across the border (39.4) into Tianjin, past a depot circle near 39.45, then
    /// out to sea.
    static let route = track([39.50, 39.48, 39.46, 39.45, 39.44, 39.42, 39.40, 39.38, 39.36, 39.34, 39.32, 39.30])
        + [fix(39.30, 121.0, t: 12)]

    /// Attached to a manager: every accepted fix is judged with the placemark the manager resolved (the
    /// provider is asked exactly as often as without a monitor), and the three listening styles get the
    /// same events in the same order.
    @Test func attachedMonitorSeesEveryFixAndAllStylesAgree() async throws {
        let provider = RegionProvider()
        let manager = LocationManager(source: ScriptedSource(locations: Self.route), geocoder: provider)
        let monitor = try RegionMonitor(hysteresis: .off)
        let delegate = Delegate()
        let closures = Recorder<RegionEvent>()
        monitor.delegate = delegate
        monitor.onStateDetermined = { r, s, l in closures.append(.stateDetermined(r, s, at: l)) }
        monitor.onEnter = { r, l in closures.append(.entered(r, at: l)) }
        monitor.onExit = { r, l in closures.append(.exited(r, at: l)) }
        let stream = monitor.events
        try monitor.add(contentsOf: [Self.beijingCity, Self.tianjinCity, Self.depot])
        monitor.attach(to: manager)

        _ = await drive(manager)
        await monitor.waitUntilIdle()
        let d = Self.route
        let expected: [RegionEvent] = [
            .stateDetermined(Self.beijingCity, .unknown, at: nil),
            .stateDetermined(Self.tianjinCity, .unknown, at: nil),
            .stateDetermined(Self.depot, .unknown, at: nil),
            .stateDetermined(Self.beijingCity, .inside, at: d[0]),
            .stateDetermined(Self.tianjinCity, .outside, at: d[0]),
            .stateDetermined(Self.depot, .outside, at: d[0]),    // 5.6 km north of the depot
            .entered(Self.depot, at: d[2]),                      // 1.1 km
            .exited(Self.depot, at: d[5]),                       // 3.3 km
            .exited(Self.beijingCity, at: d[7]),                 // first fix south of 39.4
            .entered(Self.tianjinCity, at: d[7]),
            .exited(Self.tianjinCity, at: d[12]),                // at sea: no placemark
        ]
        var seen: [RegionEvent] = []
        for await event in stream {
            seen.append(event)
            if seen.count == expected.count { break }
        }
        #expect(seen == expected)
        await delegate.events.wait(count: expected.count)
        await closures.wait(count: expected.count)
        #expect(delegate.events.values == expected)
        #expect(closures.values == expected)
        // No extra engine work: one lookup per distinct accepted coordinate, as without a monitor.
        #expect(provider.lookups == Self.route.count)
        #expect(monitor.statistics.fixes == Self.route.count)
        #expect(monitor.state(for: "tianjin") == .outside && monitor.state(for: "nope") == nil)
    }

    /// The manager delivers an attached monitor's events itself, each right after the events of the fix
    /// that caused it (its `.location`, `.placemark` and any `.cityChanged`), to the stream, the
    /// delegate and the closures alike, and the same on every run. They used to reach a listener only
    /// from the monitor's own queue, so among the manager's events they fell anywhere (`geocode track`
    /// printed them in a different place on each run).
    @Test func theManagerDeliversRegionEventsRightAfterTheirFix() async throws {
        let d = Self.route
        let expected: [RegionEvent] = [
            .stateDetermined(Self.beijingCity, .inside, at: d[0]),
            .stateDetermined(Self.tianjinCity, .outside, at: d[0]),
            .stateDetermined(Self.depot, .outside, at: d[0]),
            .entered(Self.depot, at: d[2]),
            .exited(Self.depot, at: d[5]),
            .exited(Self.beijingCity, at: d[7]),
            .entered(Self.tianjinCity, at: d[7]),
            .exited(Self.tianjinCity, at: d[12]),
        ]
        var runs: [[LocationEvent]] = []
        for _ in 0..<3 {
            let manager = LocationManager(source: ScriptedSource(locations: Self.route), geocoder: RegionProvider())
            let monitor = try RegionMonitor(regions: [Self.beijingCity, Self.tianjinCity, Self.depot], hysteresis: .off)
            let own = monitor.events
            monitor.attach(to: manager)
            let events = await drive(manager)  // also: delegate and closures saw exactly the stream's events
            #expect(events.regionEvents == expected)
            #expect(events.regionEventsOutOfOrder.isEmpty, "\(events.regionEventsOutOfOrder)")
            // The monitor's own listeners still get the same events.
            var seen: [RegionEvent] = []
            for await event in own {
                seen.append(event)
                if seen.count == expected.count { break }
            }
            #expect(seen == expected)
            runs.append(events)
        }
        #expect(runs[1] == runs[0] && runs[2] == runs[0])
        // Entering Tianjin on d[7]: its location, its placemark, then the two region events, then d[8].
        let at7 = try #require(runs[0].firstIndex(of: .location(d[7])))
        #expect(Array(runs[0][at7...].prefix(5)) == [.location(d[7]), .placemark(.hexi, for: d[7]),
                                                     .region(.exited(Self.beijingCity, at: d[7])),
                                                     .region(.entered(Self.tianjinCity, at: d[7])), .location(d[8])])
    }

    /// A region added after fixes gets its initial state from the latest fix, before `add` returns.
    @Test func regionAddedLaterIsDeterminedFromTheLatestFix() async throws {
        let monitor = try RegionMonitor(hysteresis: .off)
        monitor.observe(fix(39.5, t: 0), placemark: .haidian)
        await monitor.waitUntilIdle()
        let events = monitor.events
        try monitor.add(Self.beijingCity)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .stateDetermined(Self.beijingCity, .inside, at: fix(39.5, t: 0)))
        #expect(monitor.statistics.evaluations == 1)
    }

    @Test func invalidRegionsAreRefusedAndBatchesAreAllOrNothing() throws {
        let monitor = try RegionMonitor()
        let bad: [(MonitoredRegion, String)] = [
            (.circle("r0", center: Coordinate(latitude: 0, longitude: 0), radius: 0), "radius 0.0"),
            (.circle("nan", center: Coordinate(latitude: 0, longitude: 0), radius: .nan), "radius nan"),
            (.circle("far", center: Coordinate(latitude: 91, longitude: 0), radius: 5), "not a valid coordinate"),
            (.circle("", center: Coordinate(latitude: 0, longitude: 0), radius: 5), "empty identifier"),
            (.administrative("blank", .name("  ")), "empty name"),
            (.administrative("nocode", .code("")), "empty code"),
        ]
        for (region, reason) in bad {
            #expect {
                try monitor.add(region)
            } throws: { error in
                "\(error)".contains(reason)
            }
        }
        #expect(throws: RegionMonitor.Failure.duplicateIdentifier("a")) {
            try monitor.add(contentsOf: [.administrative("a", .code("1")), .administrative("a", .code("2"))])
        }
        #expect(throws: RegionMonitor.Failure.self) {
            try monitor.add(contentsOf: [.administrative("ok", .code("1")), bad[0].0])
        }
        #expect(monitor.regions.isEmpty)
    }

    /// Releasing the monitor detaches it and finishes its streams; the manager carries on.
    @Test func releasingTheMonitorDetachesIt() async throws {
        let manager = LocationManager(source: ScriptedSource(locations: Self.route), geocoder: RegionProvider())
        var monitor: RegionMonitor? = try RegionMonitor(regions: [Self.beijingCity])
        let stream = monitor!.events
        monitor!.attach(to: manager)
        let finished = Task { for await _ in stream {}; return true }
        monitor = nil
        #expect(await finished.value)
        let events = await drive(manager)
        #expect(events.locations.count == Self.route.count)
    }

    @Test func detachStopsJudgingFixes() async throws {
        let manager = LocationManager(source: ScriptedSource(locations: Self.route), geocoder: RegionProvider())
        let monitor = try RegionMonitor(regions: [Self.beijingCity])
        monitor.attach(to: manager)
        monitor.detach()
        _ = await drive(manager)
        await monitor.waitUntilIdle()
        #expect(monitor.statistics.fixes == 0)
        #expect(monitor.state(for: "beijing") == .unknown)
    }

    // MARK: - Regions file

    @Test func exampleFileLoads() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/regions-example", withExtension: "json"))
        let file = try RegionFile.load(contentsOf: url)
        #expect(file.hysteresis == RegionHysteresis(margin: 25, minimumDwell: 5))
        #expect(file.regions.map(\.identifier) == ["tiananmen", "tianjin-depot", "beijing", "langfang", "tianjin",
                                                   "dongcheng", "shenzhen", "berlin"])
        #expect(file.regions[0] == .circle("tiananmen", center: Coordinate(latitude: 39.9087, longitude: 116.3975), radius: 300))
        #expect(file.regions[1].notifyOnExit == false && file.regions[1].notifyOnEntry)
        #expect(file.regions[4] == .administrative("tianjin", .code("120000", level: .city)))
        #expect(file.regions[5] == .administrative("dongcheng", .name("东城区", level: .district)))
        #expect(file.regions[7] == .administrative("berlin", .code("DE-BE", level: .province, isoCountryCode: "DE")))
        let monitor = try RegionMonitor.load(contentsOf: url)
        #expect(monitor.regions == file.regions && monitor.hysteresis == file.hysteresis)
        // What `encoded()` writes reads back the same.
        #expect(try RegionFile.decode(file.encoded()) == file)
    }

    @Test(arguments: [
        (#"{"regions":[{"id":"a","circle":{"latitude":1,"longitude":2,"raduis":3}}]}"#,
         "regions[0].circle.raduis: unknown key"),
        (#"{"regions":[{"id":"a","circle":{"latitude":1,"longitude":2}}]}"#, "regions[0].circle.radius: missing"),
        (#"{"regions":[{"id":"a","circle":{"latitude":1,"longitude":2,"radius":"big"}}]}"#,
         "regions[0].circle.radius: expected a number"),
        (#"{"regions":[{"id":"a","circle":{"latitude":1,"longitude":2,"radius":-1}}]}"#,
         "regions[0] (\"a\"): radius -1.0 is not a positive number"),
        (#"{"regions":[{"id":"a","area":{"level":"town","code":"1"}}]}"#, "regions[0].area.level: \"town\" is not one of"),
        (#"{"regions":[{"id":"a","area":{"code":"1","name":"x"}}]}"#, "regions[0].area: needs exactly one of"),
        (#"{"regions":[{"id":"a","area":"city 1","circle":{"latitude":1,"longitude":2,"radius":3}}]}"#,
         "regions[0] (\"a\"): needs exactly one of \"circle\" and \"area\""),
        (#"{"regions":[{"area":"city 1"}]}"#, "regions[0].id: missing"),
        (#"{"regions":[{"id":"a","area":"1"},{"id":"a","area":"2"}]}"#, "regions[1]: id \"a\" is used twice"),
        (#"{"format":"geojson","regions":[]}"#, "format: \"geojson\" is not \"offline-geocoder.regions\""),
        (#"{"version":2,"regions":[]}"#, "version: 2 is not supported"),
        (#"{"hysteresis":{"margin":-5},"regions":[]}"#, "hysteresis.margin: -5.0 is not ≥ 0 metres"),
        (#"{"regions":{}}"#, "regions: expected an array"),
        (#"{}"#, "regions: missing"),
        (#"{"regions":[], "extra":1}"#, "extra: unknown key"),
        ("[1,2", "not JSON"),
    ])
    func badFilesNameTheProblem(json: String, message: String) {
        #expect {
            _ = try RegionFile.decode(Data(json.utf8))
        } throws: { error in
            let text = (error as? RegionFile.DecodeError)?.message ?? "\(error)"
            if !text.hasPrefix(message) { Issue.record("got: \(text)") }
            return text.hasPrefix(message)
        }
    }

    @Test func loadErrorsNameTheFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("none.json")
        #expect(throws: RegionFile.Failure.self) { try RegionMonitor.load(contentsOf: missing) }
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"regions":[{"id":"a","area":"1","notifyOnExit":"no"}]}"#.utf8).write(to: bad)
        do {
            _ = try RegionMonitor.load(contentsOf: bad)
            Issue.record("loaded a bad file")
        } catch {
            #expect(error.description == "\(bad.path): regions[0].notifyOnExit: expected true or false")
        }
    }
}
