import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The monitor normalizes a placemark's names once per placemark, not per fix
/// (``NormalizedPlacemarkCache``): the events must be exactly those of normalizing on every fix, and a
/// placemark must never be judged by another's names.
@Suite(.serialized)
struct NormalizedPlacemarkCacheTests {
    /// Areas by name in several languages of the names tables (de, en, zh, uk) and levels, by code, a
    /// country condition that never holds, and a circle: the Beijing → Tianjin drive crosses them all.
    static let regions: [MonitoredRegion] = [
        .administrative("beijing-de", .name("Peking", level: .province)),
        .administrative("hebei-en", .name("Hebei")),
        .administrative("langfang-zh", .name("廊坊市", level: .city)),
        .administrative("tianjin-code", .code("120000", level: .province)),
        .administrative("tianjin-uk", .name("Тяньцзінь", isoCountryCode: "cn")),
        .administrative("dongcheng", .name("东城区", level: .district)),
        .administrative("beijing-in-de", .name("Beijing", isoCountryCode: "DE")),
        .circle("tiananmen", center: Coordinate(latitude: 39.9087, longitude: 116.3975), radius: 300),
    ]

    /// Real parts: the Beijing → Tianjin GPX, then the same points back to Beijing, through a manager and
    /// the engine on the bundled Data/. The attached monitor (with its cache) must send exactly the events
    /// of a book that normalizes every fix's names afresh and of the brute-force reference (every region
    /// on every fix, through the public predicate), over the placemarks the manager resolved; and it must
    /// have normalized each run of fixes sharing a placemark once.
    @Test(.timeLimit(.minutes(30)))
    func roundTripEventsAreTheSameWithAndWithoutTheCache() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let gpx = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin", withExtension: "gpx"))
        var there: [Location] = []
        for await event in GPXPlaybackSource(contentsOf: gpx, configuration: .init(pacing: .asFastAsPossible)).events() {
            if case .location(let location) = event { there.append(location) }
        }
        try #require(there.count > 400)
        let turn = try #require(there.last?.timestamp)
        let back = there.dropLast().reversed().enumerated().map { i, l in
            Location(coordinate: l.coordinate, horizontalAccuracy: l.horizontalAccuracy,
                     timestamp: turn.addingTimeInterval(Double(i + 1) * 10), quality: l.quality)
        }
        let manager = LocationManager(source: ScriptedSource(locations: there + back), geocoder: geocoder)
        let monitor = try RegionMonitor(regions: Self.regions, hysteresis: .default)
        monitor.attach(to: manager)
        let events = await drive(manager)
        await monitor.waitUntilIdle()
        let fixes: [Location] = events.locations
        let placemarks: [Placemark?] = events.placemarks
        try #require(fixes.count == placemarks.count && fixes.count > 800)

        var uncached = RegionBook(hysteresis: .default, cachedPlacemarks: 0)
        var reference = BruteForceRegions(hysteresis: .default)
        for region in Self.regions {
            _ = uncached.add(region)
            _ = reference.add(region)
        }
        var withoutCache: [RegionEvent] = [], expected: [RegionEvent] = []
        for (location, placemark) in zip(fixes, placemarks) {
            withoutCache += uncached.observe(location, placemark: placemark)
            expected += reference.observe(location, placemark: placemark)
        }
        let withCache: [RegionEvent] = events.regionEvents
        #expect(withCache.map(\.description) == withoutCache.map(\.description))
        #expect(withCache == withoutCache)
        #expect(withCache == expected)

        // The story: out of Beijing into Langfang (Hebei), out of it into Tianjin, and all the way back.
        let transitions = withCache.transitions
        // (One fix's events come in the order the regions were added: entering Hebei before leaving Tianjin.)
        #expect(transitions == ["-tiananmen", "-dongcheng", "-beijing-de", "+hebei-en", "+langfang-zh",
                                "-hebei-en", "-langfang-zh", "+tianjin-code", "+tianjin-uk",
                                "+hebei-en", "+langfang-zh", "-tianjin-code", "-tianjin-uk",
                                "+beijing-de", "-hebei-en", "-langfang-zh", "+dongcheng", "+tiananmen"],
                "\(transitions)")

        // The work: once per run of fixes in one unit (the placemarks have its names and codes, whichever
        // engine thread's copy of them a fix brings), where normalizing afresh did it for every fix.
        let found = placemarks.compactMap { $0 }
        var runs = 1
        for (a, b) in zip(found, found.dropFirst()) where !NormalizedPlacemark(a, names: false).hasSameNamesAndCodes(as: b) {
            runs += 1
        }
        let normalized = monitor.statistics.placemarksNormalized
        #expect(uncached.counters.placemarksNormalized == found.count)
        #expect(normalized <= runs, "\(normalized) normalizations, \(runs) runs")
        // (60 for 889 fixes: the drive crosses some 30 districts each way.)
        #expect(normalized * 10 < fixes.count, "\(normalized) normalizations for \(fixes.count) fixes")
    }

    /// Placemarks made and dropped one after another: a freed storage is typically given to the next
    /// allocation, so a cache keyed by the identity alone, without holding its placemark, would judge one
    /// placemark by another's names. Every fix's events are the reference's.
    @Test func aPlacemarkIsNeverJudgedByTheNamesOfOneThatHadItsStorage() {
        let regions: [MonitoredRegion] = [
            .administrative("even", .name("Even", level: .city)),
            .administrative("thirds", .name("DRITTEL")),
            .administrative("code-7", .code("7", level: .city)),
        ]
        var book = RegionBook(hysteresis: .off)
        var reference = BruteForceRegions(hysteresis: .off)
        for region in regions {
            _ = book.add(region)
            _ = reference.add(region)
        }
        for i in 0..<500 {
            let location = fix(39.5, t: Double(i))
            var placemark = Placemark.haidian
            placemark[.city] = Placemark.Unit(name: i.isMultiple(of: 2) ? "even" : "odd", code: String(i % 11),
                                              names: ["de": i.isMultiple(of: 3) ? "Drittel" : "Rest"])
            let events = book.observe(location, placemark: placemark)
            let expected = reference.observe(location, placemark: placemark)
            #expect(events == expected, "fix \(i)")
            if events != expected { break }
        }
        #expect(book.counters.placemarksNormalized == 500)
    }

    /// A placemark localized to another language is another placemark (its own storage): the region by
    /// the name it no longer shows is left, and entered again with the original.
    @Test func aPlacemarkInAnotherLanguageIsAnotherPlacemark() {
        var chinese = Placemark.haidian
        chinese.locality = "北京市"
        chinese[.city].language = "zh"
        chinese[.city].names = ["en": "Beijing"]
        let english = chinese.localized(to: ["en"])
        #expect(english.locality == "Beijing" && english.storageIdentity != chinese.storageIdentity)
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.administrative("zh", .name("北京市", level: .city)))
        _ = book.add(.administrative("en", .name("beijing", level: .city)))
        var out = RegionBookTests.summary(book.observe(fix(39.5, t: 0), placemark: chinese))
        #expect(out == ["zh inside@0", "en inside@0"])
        out = RegionBookTests.summary(book.observe(fix(39.5, t: 1), placemark: english))
        #expect(out == ["zh exited@1"])
        out = RegionBookTests.summary(book.observe(fix(39.5, t: 2), placemark: chinese))
        #expect(out == ["zh entered@2"])
        out = RegionBookTests.summary(book.observe(fix(39.5, t: 3), placemark: chinese))
        #expect(out.isEmpty)
        // Each placemark's names normalized once, the original's kept while the English one was judged.
        #expect(book.counters.placemarksNormalized == 2)
    }

    /// Each engine thread has its own copy of a unit's placemark (another storage, equal names): a copy
    /// takes the names normalized for another, and an entry of its own. A placemark that differs in one
    /// name in another language does not.
    @Test func anotherCopyOfTheSamePlacemarkIsNotNormalizedAgain() {
        let original = Placemark.haidian
        let copy = original.unshared()
        #expect(copy.storageIdentity != original.storageIdentity && copy == original)
        var other = original
        other[.district].names = ["de": "Haidian-Bezirk"]
        var book = RegionBook(hysteresis: .off)
        var reference = BruteForceRegions(hysteresis: .off)
        for region: MonitoredRegion in [.administrative("haidian", .name("haidian-bezirk", level: .district)),
                                        .administrative("beijing", .name("BEIJING"))] {
            _ = book.add(region)
            _ = reference.add(region)
        }
        for (i, placemark) in [original, copy, original, copy, other, copy, other].enumerated() {
            let location = fix(39.5, t: Double(i))
            #expect(book.observe(location, placemark: placemark) == reference.observe(location, placemark: placemark), "fix \(i)")
        }
        #expect(book.counters.placemarksNormalized == 2)
    }

    /// Without areas by name nothing is normalized; the first area by name normalizes the cached
    /// placemark's names when it is judged.
    @Test func namesAreNormalizedOnlyForAreasByName() {
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.administrative("bj", .code("110000", level: .city)))
        _ = book.observe(fix(39.5, t: 0), placemark: .haidian)
        _ = book.observe(fix(39.5, t: 1), placemark: .haidian)
        #expect(book.counters.placemarksNormalized == 0)
        #expect(book.add(.administrative("haidian", .name("HAIDIAN", level: .district)))
                    == .stateDetermined(.administrative("haidian", .name("HAIDIAN", level: .district)), .inside,
                                        at: fix(39.5, t: 1)))
        _ = book.observe(fix(39.5, t: 2), placemark: .haidian)
        #expect(book.counters.placemarksNormalized == 1)
    }
}
