import Foundation
import Synchronization
import LocationSources
import Testing
@testable import LocationKit

/// A consumer of `updates` slower than the source holds the source back: the manager never runs more
/// than about one stream buffer (``EventChannel/limit`` events) ahead of it, and nothing is dropped or
/// reordered. (The `.unbounded` stream this replaced let a 1 M-point replay queue every event.)
@Suite struct BackpressureTests {
    static let count = 3_000
    /// Distinct fixes, 1 s apart; RegionProvider gives each a placemark.
    static let fixes = (0..<count).map { fix(39.5 + Double($0) * 1e-5, t: Double($0)) }

    /// Which of `fixes` an event is about.
    static func index(_ l: Location) -> Int { Int(((l.coordinate.latitude - 39.5) / 1e-5).rounded()) }

    /// Some CPU work per event (no clock: a consumer that is slow however busy the machine is, since
    /// the manager's own work per fix is far less).
    static func work() {
        var x: UInt64 = 1
        for k in 0..<50_000 { x = x &* 6364136223846793005 &+ UInt64(k) }
        sink.withLock { $0 ^= x }
    }
    static let sink = Mutex<UInt64>(0)

    @Test func aSlowStreamHoldsTheSourceBackAndLosesNothing() async {
        let manager = LocationManager(source: ScriptedSource(locations: Self.fixes), geocoder: RegionProvider())
        let updates = manager.updates
        manager.startUpdatingLocation()
        var locations: [Int] = []
        var placemarks = 0
        var worstLead = 0
        for await event in updates {
            switch event {
            case .location(let l):
                let i = Self.index(l)
                locations.append(i)
                // How far the manager's work is ahead of this consumer, in fixes.
                if let latest = manager.location { worstLead = max(worstLead, Self.index(latest) - i) }
                Self.work()  // a consumer slower than the manager
            case .placemark: placemarks += 1
            default: break
            }
        }
        #expect(locations == Array(0..<Self.count))
        #expect(placemarks == Self.count)
        // 256 events waiting = 128 fixes (a location and a placemark each), plus the fix in hand.
        #expect(worstLead <= EventChannel.limit / 2 + 2, "the manager ran \(worstLead) fixes ahead of its consumer")
    }

    /// `updates` and `updateBatches` of one run see the same events in the same order; a batch is never
    /// more than a buffer.
    @Test func batchesCarryTheSameEvents() async {
        let manager = LocationManager(source: ScriptedSource(locations: Self.fixes), geocoder: RegionProvider())
        let single = manager.updates, batches = manager.updateBatches
        async let one = single.reduce(into: [LocationEvent]()) { $0.append($1) }
        async let many = batches.reduce(into: [[LocationEvent]]()) { $0.append($1) }
        manager.startUpdatingLocation()
        let (events, grouped) = await (one, many)
        #expect(events.count == 2 * Self.count + 1)
        #expect(grouped.flatMap { $0 } == events)
        #expect(grouped.allSatisfy { !$0.isEmpty && $0.count <= EventChannel.limit })
        #expect(events.last == .stopped(.sourceFinished))
    }

    /// Releasing the manager while its run waits for a stream that is behind still stops the source
    /// and finishes the stream (the wait holds no reference to the manager).
    @Test func releasingTheManagerEndsAStalledRun() async {
        let source = ScriptedSource(locations: Self.fixes, finishes: false)
        var manager: LocationManager? = LocationManager(source: source, geocoder: RegionProvider())
        let updates = manager!.updates
        manager!.startUpdatingLocation()
        // Unread, the stream fills up: once the manager is a buffer's worth of fixes in, it waits.
        while (manager!.location.map(Self.index) ?? 0) < EventChannel.limit / 2 - 1 { await Task.yield() }
        manager = nil
        await source.waitForStops(1)
        #expect(source.stops == 1)
        var n = 0
        for await _ in updates { n += 1 }  // what was buffered, then the end
        #expect(n <= EventChannel.limit + 3)
    }

    /// A stream that is released unread does not hold the run back (its buffer is dropped with it).
    @Test func aReleasedStreamDoesNotStallTheRun() async {
        let manager = LocationManager(source: ScriptedSource(locations: Self.fixes), geocoder: RegionProvider())
        do { _ = manager.updates }  // taken and dropped at once
        let updates = manager.updates
        manager.startUpdatingLocation()
        var n = 0
        for await event in updates { if case .location = event { n += 1 } }
        #expect(n == Self.count)
    }
}
