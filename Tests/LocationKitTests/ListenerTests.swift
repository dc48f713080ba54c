import Dispatch
import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The three ways to listen (delegate, closures, `updates`) get the same events in the same order.
@Suite struct ListenerTests {
    /// A run with every kind of event: errors, dropped and accepted fixes, placemarks (incl. none),
    /// a city change, a warning (unreadable file) and the stop.
    @Test func allStylesSeeTheSameOrderedEvents() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("current.json")
        try Data("{not json".utf8).write(to: file)
        var unreadableReason = ""
        do throws(PlacemarkStore.Failure) { _ = try PlacemarkStore(url: file).load() } catch {
            unreadableReason = error.description
        }
        #expect(unreadableReason.hasPrefix("corrupt: "))

        let script: [ScriptedSource.Step] = [
            .event(.error(.sourceUnavailable("/dev/ttyUSB0: no such device"))),
            .event(.location(fix(39.50, quality: .none))),      // invalid: dropped
            .event(.location(fix(39.50, t: 1))),                // Beijing (adopted, no change)
            .event(.error(.parse("line 7: bad checksum"))),
            .event(.location(fix(39.45, 116.4, t: 2))),         // Beijing, another district
            .event(.location(fix(39.30, t: 3))),                // Tianjin x3: change (hysteresis .off below)
            .event(.location(fix(39.30, 121.0, t: 4))),         // sea: no placemark
            .event(.error(.deviceDisconnected("/dev/ttyUSB0: EIO"))),
        ]
        let manager = LocationManager(source: ScriptedSource(script), geocoder: RegionProvider(),
                                      currentPlacemarkFile: file)
        manager.cityChangeHysteresis = .off
        let recording = await record(manager) { $0.startUpdatingLocation() }

        let l1 = fix(39.50, t: 1), l2 = fix(39.45, 116.4, t: 2), l3 = fix(39.30, t: 3), l4 = fix(39.30, 121.0, t: 4)
        let expected: [LocationEvent] = [
            .warning(.currentPlacemarkUnreadable(path: file.path, reason: unreadableReason)),
            .error(.sourceUnavailable("/dev/ttyUSB0: no such device")),
            .location(l1), .placemark(.chaoyang, for: l1),
            .error(.parse("line 7: bad checksum")),
            .location(l2), .placemark(.haidian, for: l2),
            .location(l3), .placemark(.hexi, for: l3), .cityChanged(from: .haidian, to: .hexi, at: l3),
            .location(l4), .placemark(nil, for: l4),
            .error(.deviceDisconnected("/dev/ttyUSB0: EIO")),
            .stopped(.sourceFinished),
        ]
        #expect(recording.stream == expected)
        #expect(recording.delegate == expected)
        #expect(recording.closures == expected)
    }

    @Test func callbacksRunOnTheGivenQueueOneAtATime() async {
        let queue = DispatchQueue(label: "test.delegate")
        let key = DispatchSpecificKey<UInt8>()
        queue.setSpecific(key: key, value: 1)
        let manager = LocationManager(source: ScriptedSource(locations: track([39.5, 39.49, 39.48, 39.47])),
                                      geocoder: RegionProvider(), delegateQueue: queue)
        let delegate = DelegateRecorder(expecting: (queue, key))
        manager.delegate = delegate
        let closureOnQueue = Recorder<Bool>()
        manager.onLocation = { _ in closureOnQueue.append(DispatchQueue.getSpecific(key: key) != nil) }
        manager.startUpdatingLocation()
        await delegate.waitForStop()
        #expect(delegate.recorded.last.map(isStop) == true)
        #expect(!delegate.calledOnWrongQueue)
        // The closure of the last fix ran before the delegate's `.stopped` on the same serial queue.
        #expect(closureOnQueue.values == [true, true, true, true])
        #expect(delegate.recorded.locations.count == 4)
    }

    @Test func defaultDelegateQueueIsPrivateAndSerial() async {
        let manager = LocationManager(source: ScriptedSource(locations: []), geocoder: RegionProvider())
        #expect(manager.delegateQueue !== DispatchQueue.main)
        #expect(manager.delegateQueue.label == "LocationKit.LocationManager.delegate")
    }

    /// A delegate that only implements one method still compiles and works (defaults are empty).
    @Test func delegateMethodsHaveDefaults() async {
        final class OnlyStops: LocationManagerDelegate {
            let stops = Recorder<LocationManager.StopReason>()
            func locationManager(_ manager: LocationManager, didStopWith reason: LocationManager.StopReason) {
                stops.append(reason)
            }
        }
        let delegate = OnlyStops()
        let manager = LocationManager(source: ScriptedSource(locations: track([39.5])), geocoder: RegionProvider())
        manager.delegate = delegate
        manager.startUpdatingLocation()
        await delegate.stops.wait(count: 1)
        #expect(delegate.stops.values == [.sourceFinished])
    }

    /// Stopping from inside a callback (on the delegate queue) does not deadlock, and nothing of the
    /// run arrives after its `.stopped`.
    @Test func stopFromACallback() async {
        let locations = (0..<200).map { fix(39.5 + Double($0) * 0.001, t: Double($0)) }
        let manager = LocationManager(source: ScriptedSource(locations: locations, finishes: false),
                                      geocoder: RegionProvider())
        let delegate = DelegateRecorder()
        manager.delegate = delegate
        manager.onLocation = { [weak manager] _ in manager?.stopUpdatingLocation() }
        let updates = manager.updates
        manager.startUpdatingLocation()
        var streamed: [LocationEvent] = []
        for await event in updates { streamed.append(event) }
        #expect(streamed.last == .stopped(.requested))
        await delegate.waitForStop()
        #expect(delegate.recorded.last.map(isStop) == true)
        // Some fixes may have been processed before the callback's stop reached the work queue, but the
        // stop is last and there is exactly one.
        #expect(delegate.recorded == streamed)
        #expect(streamed.filter(isStop).count == 1)
        #expect(!manager.isUpdatingLocation)
    }

    /// `updates` ends after the run's `.stopped`; a stream taken while idle waits for the next run.
    @Test func updatesStreamLifetime() async {
        let manager = LocationManager(source: ScriptedSource(locations: track([39.5, 39.6])),
                                      geocoder: RegionProvider())
        let first = manager.updates
        manager.startUpdatingLocation()
        var a: [LocationEvent] = []
        for await e in first { a.append(e) }
        #expect(a.locations.count == 2)
        #expect(a.last == .stopped(.sourceFinished))

        let second = manager.updates  // idle now: waits for the next run
        manager.startUpdatingLocation()
        var b: [LocationEvent] = []
        for await e in second { b.append(e) }
        #expect(b == a)
    }

    /// Two subscribers both get everything.
    @Test func severalStreams() async {
        let manager = LocationManager(source: ScriptedSource(locations: track([39.5, 39.6, 39.3])),
                                      geocoder: RegionProvider())
        let s1 = manager.updates, s2 = manager.updates
        async let c1 = s1.reduce(into: [LocationEvent]()) { $0.append($1) }
        async let c2 = s2.reduce(into: [LocationEvent]()) { $0.append($1) }
        manager.startUpdatingLocation()
        let (e1, e2) = await (c1, c2)
        #expect(e1 == e2)
        #expect(e1.count == 7)
    }

    /// Releasing the manager stops the source and finishes its streams.
    @Test func deinitStopsEverything() async {
        let source = ScriptedSource(locations: track([39.5]), finishes: false)
        var manager: LocationManager? = LocationManager(source: source, geocoder: RegionProvider())
        let updates = manager!.updates
        manager!.startUpdatingLocation()
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() != nil)  // the location
        #expect(await iterator.next() != nil)  // its placemark
        manager = nil
        await source.waitForStops(1)
        #expect(source.stops == 1)
        #expect(await iterator.next() == nil)
    }
}
