import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// Which fixes are accepted: validity, desiredAccuracy, discard-first, distanceFilter; and when the
/// provider is asked.
@Suite struct FilterTests {
    func manager(_ locations: [Location], provider: RegionProvider = RegionProvider()) -> LocationManager {
        LocationManager(source: ScriptedSource(locations: locations), geocoder: provider)
    }

    @Test func invalidFixesAreDropped() async {
        let good = fix(39.5, t: 9)
        let m = manager([
            fix(39.5, accuracy: .infinity, t: 1),          // accuracy no number of metres
            fix(39.5, t: 2, quality: .none),               // receiver says no fix
            fix(.nan, t: 3),                               // not a coordinate
            fix(91, t: 4),                                 // out of range
            fix(39.5, 181, t: 5),
            fix(39.5, accuracy: .nan, t: 6),
            good,
        ])
        let events = await drive(m)
        #expect(events.locations == [good])
        #expect(m.location == good)
    }

    @Test func desiredAccuracyDropsWorseFixes() async {
        let fixes = [fix(39.5, accuracy: 3, t: 0), fix(39.5, accuracy: 10, t: 1), fix(39.5, accuracy: 10.5, t: 2),
                     fix(39.5, accuracy: 500, t: 3), fix(39.5, accuracy: 0, t: 4)]
        let m = manager(fixes)
        m.desiredAccuracy = 10
        let events = await drive(m)
        #expect(events.locations == [fixes[0], fixes[1], fixes[4]])
    }

    @Test func defaultAcceptsAnyAccuracy() async {
        let fixes = [fix(39.5, accuracy: 0), fix(39.5, accuracy: 1e9, t: 1)]
        let m = manager(fixes)
        #expect(m.desiredAccuracy == LocationManager.accuracyAny)
        #expect(m.distanceFilter == LocationManager.distanceFilterNone)
        #expect(await drive(m).locations == fixes)
    }

    /// The filter measures from the last *delivered* fix, so slow creep is delivered every ≥ 10 m.
    @Test func distanceFilterMeasuresFromLastDeliveredFix() async {
        // 0.00005° of latitude ≈ 5.56 m.
        let step = 0.00005
        let fixes = (0..<8).map { fix(39.5 + Double($0) * step, t: Double($0)) }
        let m = manager(fixes)
        m.distanceFilter = 10
        let delivered = await drive(m).locations
        // 0 m delivered; 5.6 dropped; 11.1 delivered; 16.7 (5.6 from last) dropped; 22.2 delivered ...
        #expect(delivered == [fixes[0], fixes[2], fixes[4], fixes[6]])
        for (a, b) in zip(delivered, delivered.dropFirst()) {
            #expect(a.coordinate.distance(to: b.coordinate) >= 10)
        }
    }

    @Test func distanceFilterNoneDeliversIdenticalFixes() async {
        let fixes = (0..<5).map { fix(39.5, t: Double($0)) }
        let m = manager(fixes)
        m.distanceFilter = 0
        #expect(await drive(m).locations == fixes)
    }

    /// The first fix of each run passes the distance filter (it is measured within a run).
    @Test func distanceFilterRestartsWithEachRun() async {
        let fixes = [fix(39.5)]
        let m = manager(fixes)
        m.distanceFilter = 1000
        #expect(await drive(m).locations == fixes)
        #expect(await drive(m).locations == fixes)
    }

    @Test func discardFirstFixDropsTheFirstValidFixOfEachRun() async {
        let fixes = [fix(39.5, t: 0, quality: .none), fix(39.51, t: 1), fix(39.52, t: 2), fix(39.53, t: 3)]
        let m = manager(fixes)
        m.discardsFirstFix = true
        // The invalid fix does not count as "the first fix"; the first valid one is dropped.
        #expect(await drive(m).locations == [fixes[2], fixes[3]])
        #expect(await drive(m).locations == [fixes[2], fixes[3]])
        m.discardsFirstFix = false
        #expect(await drive(m).locations == [fixes[1], fixes[2], fixes[3]])
    }

    /// The discarded fix is the first valid one even if desiredAccuracy would have dropped it anyway.
    @Test func discardFirstFixCountsInaccurateFixes() async {
        let fixes = [fix(39.5, accuracy: 100, t: 0), fix(39.51, t: 1), fix(39.52, t: 2)]
        let m = manager(fixes)
        m.discardsFirstFix = true
        m.desiredAccuracy = 50
        #expect(await drive(m).locations == [fixes[1], fixes[2]])
    }

    @Test func everyAcceptedFixGetsItsPlacemark() async {
        let fixes = [fix(39.5, 116.4), fix(39.5, 116.6, t: 1), fix(39.3, 116.4, t: 2), fix(39.3, 121, t: 3)]
        let events = await drive(manager(fixes))
        #expect(events.placemarks == [.haidian, .chaoyang, .wuqing, nil])
        // Each placemark event directly follows its location event.
        for (i, event) in events.enumerated() {
            if case .placemark(_, let location) = event { #expect(events[i - 1] == .location(location)) }
        }
    }

    /// A parked receiver (identical coordinates) is looked up once; the provider gets the previous
    /// answer as a hint for its "still in the same polygon?" shortcut.
    @Test func lookupsAreSkippedForIdenticalCoordinates() async {
        let provider = RegionProvider()
        let fixes = [fix(39.5, t: 0), fix(39.5, t: 1), fix(39.5, t: 2), fix(39.6, t: 3), fix(39.6, t: 4)]
        let events = await drive(manager(fixes, provider: provider))
        #expect(events.placemarks.count == 5)
        #expect(provider.lookups == 2)
        #expect(provider.hints == [nil, PlacemarkLookup(coordinate: fixes[0].coordinate, placemark: .chaoyang)])
    }

    @Test func placemarkReuseDistance() async {
        let provider = RegionProvider()
        // 0.0001° latitude ≈ 11 m.
        let fixes = (0..<6).map { fix(39.5 + Double($0) * 0.0001, t: Double($0)) }
        let m = manager(fixes, provider: provider)
        m.placemarkReuseDistance = 25
        let events = await drive(m)
        #expect(events.placemarks.count == 6)
        // Looked up at 0, reused at 11 and 22 m, looked up at 33 m, reused at 44 and 55 m.
        #expect(provider.lookups == 2)
    }
}
