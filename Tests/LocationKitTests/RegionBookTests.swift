import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The region state machine (margin, dwell, initial state, notify flags), administrative matching,
/// and the index: that it never misses a region (checked against brute force) and that per-fix work
/// stays small with 10k+ regions.
@Suite struct RegionBookTests {
    /// Metres per degree of latitude on the sphere `Coordinate.distance(to:)` uses.
    static let metresPerDegree = 6_371_008.8 * .pi / 180

    static let centre = Coordinate(latitude: 39.5, longitude: 116.9)

    /// A fix `metres` due north of `centre`, `t` seconds after `epoch`.
    static func north(_ metres: Double, t: Double, of centre: Coordinate = centre) -> Location {
        fix(centre.latitude + metres / metresPerDegree, centre.longitude, t: t)
    }

    static func summary(_ events: [RegionEvent]) -> [String] {
        events.map {
            switch $0 {
            case .stateDetermined(let r, let s, let l):
                return "\(r.identifier) \(s.rawValue)\(l.map { "@\(Int($0.timestamp.timeIntervalSince(epoch)))" } ?? "")"
            case .entered(let r, let l): return "\(r.identifier) entered@\(Int(l.timestamp.timeIntervalSince(epoch)))"
            case .exited(let r, let l): return "\(r.identifier) exited@\(Int(l.timestamp.timeIntervalSince(epoch)))"
            }
        }
    }

    /// Feeds distances north of the centre, one per second; returns the events' summaries.
    static func run(_ book: inout RegionBook, _ distances: [Double], from t0: Double = 0) -> [String] {
        var out: [String] = []
        for (i, d) in distances.enumerated() {
            out += summary(book.observe(north(d, t: t0 + Double(i)), placemark: nil))
        }
        return out
    }

    // MARK: - Circles: margin and dwell

    /// Names compare trimmed and lowercased, the trim by Foundation's `whitespacesAndNewlines`; the
    /// fast path that skips Foundation when neither end is white space must give the same string for
    /// every white-space character an end may hold, and leave inner ones alone.
    @Test func namesNormalizeAsFoundationTrims() {
        let spaces: [Character] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}",
                                   "\u{200A}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}"]
        for name in ["东城区", "Berlin", "ÄÖÜ Straße", "İstanbul", "New\u{3000}York", ""] {
            for space in spaces {
                for variant in [name, "\(space)\(name)", "\(name)\(space)", "\(space)\(name)\(space)"] {
                    #expect(AdministrativeArea.normalized(variant)
                            == variant.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), "\(variant.unicodeScalars.map(\.value))")
                }
            }
        }
        #expect(AdministrativeArea.normalized("\u{3000}东城区 ") == "东城区")
        #expect(AdministrativeArea.normalized("New\u{3000}York") == "new\u{3000}york")
    }

    @Test func marginKeepsBorderJitterFromFlapping() {
        var book = RegionBook(hysteresis: RegionHysteresis(margin: 25, minimumDwell: 0))
        #expect(Self.summary([book.add(.circle("c", center: Self.centre, radius: 100))]) == ["c unknown"])
        // 200 m: initial state outside. 99.9 enters. Jitter up to 125 m stays inside;
        // 125.5 leaves. Back at 101..124: still outside (entering needs ≤ 100).
        let events = Self.run(&book, [200, 99.9, 110, 124, 95, 124.9, 125.5, 101, 124, 120, 99.5])
        #expect(events == ["c outside@0", "c entered@1", "c exited@6", "c entered@10"])
    }

    @Test func withoutMarginTheSameJitterFlaps() {
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.circle("c", center: Self.centre, radius: 100))
        let events = Self.run(&book, [200, 99.9, 110, 99, 101])
        #expect(events == ["c outside@0", "c entered@1", "c exited@2", "c entered@3", "c exited@4"])
    }

    @Test func dwellNeedsTheNewSideToHoldAndOneFixBackCancels() {
        var book = RegionBook(hysteresis: RegionHysteresis(margin: 0, minimumDwell: 3))
        _ = book.add(.circle("c", center: Self.centre, radius: 100))
        // t0 outside; t1..t2 inside then t3 outside (cancels); t4..t7 inside: confirmed at t7 (4 - 7 = 3 s).
        // Then t8..t10 outside (only 2 s), t11 inside cancels; t12.. outside confirmed at t15.
        let distances: [Double] = [200, 50, 50, 150, 50, 50, 50, 50, 150, 150, 150, 50, 150, 150, 150, 150]
        #expect(Self.run(&book, distances) == ["c outside@0", "c entered@7", "c exited@15"])
    }

    @Test func dwellRestartsWhenTheReceiverClockGoesBack() {
        var book = RegionBook(hysteresis: RegionHysteresis(margin: 0, minimumDwell: 3))
        _ = book.add(.circle("c", center: Self.centre, radius: 100))
        var out = Self.summary(book.observe(Self.north(200, t: 100), placemark: nil))
        out += Self.summary(book.observe(Self.north(50, t: 101), placemark: nil))   // pending since 101
        out += Self.summary(book.observe(Self.north(50, t: 50), placemark: nil))    // clock back: since 50
        out += Self.summary(book.observe(Self.north(50, t: 52), placemark: nil))
        out += Self.summary(book.observe(Self.north(50, t: 53), placemark: nil))
        #expect(out == ["c outside@100", "c entered@53"])
    }

    @Test func notifyFlagsFilterEventsButNotState() {
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.circle("in-only", center: Self.centre, radius: 100, notifyOnExit: false))
        _ = book.add(.circle("out-only", center: Self.centre, radius: 100, notifyOnEntry: false))
        let events = Self.run(&book, [200, 50, 200, 50])
        #expect(events == ["in-only outside@0", "out-only outside@0", "in-only entered@1", "out-only exited@2",
                           "in-only entered@3"])
        #expect(book.state(of: "out-only") == .inside)
    }

    // MARK: - Initial state, replacing, removing

    @Test func initialStateComesFromTheLatestFixOrTheFirstOne() {
        var book = RegionBook(hysteresis: .default)
        #expect(Self.summary([book.add(.circle("early", center: Self.centre, radius: 100))]) == ["early unknown"])
        #expect(book.state(of: "early") == .unknown)
        // The first fix determines it (no entered event, even though it is inside).
        #expect(Self.run(&book, [10]) == ["early inside@0"])
        // Added after a fix: determined at once from that fix, at the exact radius (no margin).
        #expect(Self.summary([book.add(.circle("near", center: Self.centre, radius: 10.1))]) == ["near inside@0"])
        #expect(Self.summary([book.add(.circle("tight", center: Self.centre, radius: 9.9))]) == ["tight outside@0"])
    }

    @Test func replacingAndRemoving() {
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.circle("a", center: Self.centre, radius: 100))
        _ = Self.run(&book, [50])
        // Same identifier: replaced, no exit; new initial state from the latest fix.
        #expect(Self.summary([book.add(.circle("a", center: Self.centre, radius: 10))]) == ["a outside@0"])
        #expect(book.count == 1 && book.regions.map(\.identifier) == ["a"])
        #expect(book.remove("a") && !book.remove("a"))
        #expect(Self.run(&book, [5, 500], from: 1).isEmpty)
        #expect(book.count == 0)
    }

    // MARK: - Administrative areas

    @Test func administrativeAreasMatchCodesAndNamesAtTheirLevel() {
        var book = RegionBook(hysteresis: .off)
        let regions: [MonitoredRegion] = [
            .administrative("beijing-city", .code("110000", level: .city)),
            .administrative("beijing-any", .code("110000")),
            .administrative("haidian", .name("haidian", level: .district)),         // case ignored
            .administrative("tianjin-name", .name(" Tianjin ")),                     // trimmed, any level
            .administrative("beijing-in-DE", .code("110000", isoCountryCode: "DE")), // wrong country
            .administrative("wuqing-as-city", .code("120114", level: .city)),        // district code at city level
        ]
        for r in regions { _ = book.add(r) }
        let l0 = fix(39.5, t: 0), l1 = fix(39.5, t: 1), l2 = fix(39.3, t: 2), l3 = fix(39.3, t: 3)
        var out = Self.summary(book.observe(l0, placemark: .haidian))
        #expect(out == ["beijing-city inside@0", "beijing-any inside@0", "haidian inside@0", "tianjin-name outside@0",
                        "beijing-in-DE outside@0", "wuqing-as-city outside@0"])
        out = Self.summary(book.observe(l1, placemark: .chaoyang))
        #expect(out == ["haidian exited@1"])
        out = Self.summary(book.observe(l2, placemark: .wuqing))
        #expect(out == ["beijing-city exited@2", "beijing-any exited@2", "tianjin-name entered@2"])
        // No placemark (sea): outside everything.
        out = Self.summary(book.observe(l3, placemark: nil))
        #expect(out == ["tianjin-name exited@3"])
    }

    @Test func administrativeContainsIsThePredicateTheIndexServes() {
        let p = Placemark.wuqing
        #expect(AdministrativeArea.code("CN", level: .country).contains(p))
        #expect(AdministrativeArea.code("120000", level: .province).contains(p))
        #expect(!AdministrativeArea.code("120000", level: .district).contains(p))
        #expect(AdministrativeArea.name("WUQING").contains(p))
        #expect(AdministrativeArea.name("Tianjin", isoCountryCode: "cn").contains(p))
        #expect(!AdministrativeArea.name("Tianjin").contains(nil))
    }

    /// A name matches in any language the unit has one in (the datasets' names tables): a region file's
    /// `{"name": "Beijing"}` fires in 北京市, and the index serves it like the predicate says.
    @Test func namesMatchInEveryLanguageOfTheUnit() {
        var p = Placemark.haidian
        p.administrativeArea = "北京市"
        p.locality = "北京市"
        p[.province].names = ["en": "Beijing", "de": "Peking", "zh": "北京市"]
        p[.city].names = ["en": "Beijing"]
        #expect(AdministrativeArea.name("Beijing").contains(p))
        #expect(AdministrativeArea.name("peking", level: .province).contains(p))
        #expect(!AdministrativeArea.name("peking", level: .city).contains(p))
        #expect(!AdministrativeArea.name("Tianjin").contains(p))
        var book = RegionBook(hysteresis: .off)
        for r: MonitoredRegion in [.administrative("bj-en", .name("Beijing")), .administrative("bj-de", .name("PEKING", level: .province)),
                                   .administrative("bj-de-city", .name("Peking", level: .city)), .administrative("tj", .name("Tianjin"))] {
            _ = book.add(r)
        }
        let out = Self.summary(book.observe(fix(39.5, t: 0), placemark: p))
        #expect(out == ["bj-en inside@0", "bj-de inside@0", "bj-de-city outside@0", "tj outside@0"])
        // Without the other-language names only the shown name counts.
        var plain = p
        plain[.province].names = [:]
        plain[.city].names = [:]
        #expect(!AdministrativeArea.name("Beijing").contains(plain))
    }

    @Test func parsingTheShortForm() throws {
        #expect(try AdministrativeArea(parsing: "city 440300") == .code("440300", level: .city))
        #expect(try AdministrativeArea(parsing: "北京市") == .name("北京市"))
        #expect(try AdministrativeArea(parsing: "province name Bavaria") == .name("Bavaria", level: .province))
        #expect(try AdministrativeArea(parsing: "code DE-BE") == .code("DE-BE"))
        #expect(try AdministrativeArea(parsing: "New South Wales") == .name("New South Wales"))
        #expect(try AdministrativeArea(parsing: "110000") == .code("110000"))
        #expect(try AdministrativeArea(parsing: "city") == .name("city"))
        #expect(throws: RegionFile.DecodeError.self) { try AdministrativeArea(parsing: "  ") }
    }

    // MARK: - The index

    /// Circles across the antimeridian and around a pole are found from the other side.
    @Test func circlesAcrossTheAntimeridianAndAroundAPole() {
        var book = RegionBook(hysteresis: .off)
        _ = book.add(.circle("dateline", center: Coordinate(latitude: 0, longitude: 179.999), radius: 1000))
        _ = book.add(.circle("pole", center: Coordinate(latitude: 89.999, longitude: 0), radius: 1000))
        var out = Self.summary(book.observe(fix(0, -179.999, t: 0), placemark: nil))       // 222 m east, across 180°
        out += Self.summary(book.observe(fix(89.9995, 180, t: 1), placemark: nil))         // 167 m, across the pole
        #expect(out == ["dateline inside@0", "pole outside@0", "dateline exited@1", "pole entered@1"])
    }

    /// The grid returns every circle whose radius + margin reaches a point (never misses one), over
    /// circles of 5 m to 2,000 km anywhere, including near the poles and the antimeridian.
    @Test func gridNeverMissesAReachableCircle() {
        var random = SplitMix64(seed: 7)
        var grid = CircleGrid()
        var circles: [(Coordinate, Double)] = []
        for i in 0..<1500 {
            let lat = random.uniform(-90, 90), lon = random.uniform(-180, 180)
            let reach = exp(random.uniform(log(5), log(2_000_000)))
            circles.append((Coordinate(latitude: lat, longitude: lon), reach))
            grid.insert(i, center: circles[i].0, reach: reach)
        }
        var checked = 0
        for _ in 0..<1000 {
            // Points near a random circle's edge (inside and out), plus a few anywhere.
            let (c, r) = circles[Int(random.next() % UInt64(circles.count))]
            let bearing = random.uniform(0, 360), distance = r * random.uniform(0.9, 1.0000001)
            var points = [Self.destination(c, bearing: bearing, distance: distance),
                          Coordinate(latitude: random.uniform(-90, 90), longitude: random.uniform(-180, 180))]
            points.append(Coordinate(latitude: c.latitude, longitude: c.longitude > 0 ? -180 : 180))
            for p in points {
                var candidates: [Int] = []
                grid.candidates(near: p, into: &candidates)
                let found = Set(candidates)
                #expect(found.count == candidates.count, "a circle returned twice")
                for (i, (centre, reach)) in circles.enumerated() where centre.distance(to: p) <= reach {
                    checked += 1
                    #expect(found.contains(i), "circle \(i) at \(centre) r=\(reach) missed for \(p)")
                }
            }
        }
        #expect(checked > 1000)
    }

    /// 10,000 circles (20 m – 2 km) and 2,000 administrative areas across Beijing/Tianjin, driven by a
    /// 500-fix (30 km) track. Events equal a brute-force evaluation of every region on every fix, while the
    /// monitor evaluates only a handful per fix.
    @Test func tenThousandRegionsCostAHandfulOfChecksPerFixAndMatchBruteForce() {
        var random = SplitMix64(seed: 42)
        var regions: [MonitoredRegion] = []
        for i in 0..<10_000 {
            let centre = Coordinate(latitude: random.uniform(39.0, 40.0), longitude: random.uniform(116.0, 117.5))
            regions.append(.circle("c\(i)", center: centre, radius: random.uniform(20, 2000),
                                   notifyOnExit: i % 7 != 0))
        }
        let districts = ["110108", "110105", "120114", "120103"]
        for i in 0..<2000 {
            // Most codes match nothing the provider answers (like a country's worth of districts).
            let code = i < 4 ? districts[i] : String(200_000 + i)
            regions.append(.administrative("a\(i)", i % 2 == 0 ? .code(code, level: .district) : .code(code)))
        }
        regions.append(.administrative("beijing", .name("Beijing", level: .province)))
        let hysteresis = RegionHysteresis(margin: 30, minimumDwell: 2)

        // A jittery track wandering across both cities (and the district border at 116.5).
        var track: [Location] = []
        var here = Coordinate(latitude: 39.2, longitude: 116.2)
        for i in 0..<500 {
            here = Self.destination(here, bearing: 20 + 30 * sin(Double(i) / 150), distance: 60)
            let jitter = Self.destination(here, bearing: random.uniform(0, 360), distance: random.uniform(0, 15))
            track.append(fix(jitter.latitude, jitter.longitude, t: Double(i)))
        }

        var book = RegionBook(hysteresis: hysteresis)
        var reference = BruteForceRegions(hysteresis: hysteresis)
        for r in regions {
            #expect(book.add(r) == reference.add(r))
        }
        var perFix: [Int] = []
        var transitions = 0
        for location in track {
            let placemark = RegionProvider.answer(location.coordinate)
            let events = book.observe(location, placemark: placemark)
            let expected = reference.observe(location, placemark: placemark)
            #expect(events == expected, "at \(location.coordinate)")
            if events != expected { break }
            perFix.append(book.counters.lastFixEvaluations)
            transitions += events.filter { if case .stateDetermined = $0 { false } else { true } }.count
        }
        // The first fix decides all 12,001 initial states once; after that only nearby regions.
        #expect(perFix.first == regions.count)
        let steady = perFix.dropFirst()
        let mean = Double(steady.reduce(0, +)) / Double(steady.count)
        print("regions: \(regions.count), evaluations per fix after the first: max \(steady.max()!), mean \(mean); transitions \(transitions)")
        #expect(steady.max()! <= 60, "max \(steady.max()!) evaluations per fix")
        #expect(mean <= 25, "mean \(mean) evaluations per fix")
        #expect(transitions >= 20, "the track should enter and leave many regions, got \(transitions)")
        #expect(book.counters.fixes == track.count)
    }

    /// Per-fix work does not depend on how many regions are monitored, only on those near the track:
    /// adding 20,000 circles and 5,000 administrative areas elsewhere in the world changes the count of
    /// evaluations of no fix after the first (which decides their initial state), nor any event.
    @Test func regionsElsewhereCostNothingPerFix() {
        var random = SplitMix64(seed: 9)
        var local: [MonitoredRegion] = []
        for i in 0..<500 {
            let centre = Coordinate(latitude: random.uniform(39.2, 39.6), longitude: random.uniform(116.2, 116.8))
            local.append(.circle("local\(i)", center: centre, radius: random.uniform(50, 1500)))
        }
        local.append(.administrative("tianjin", .code("120000", level: .province)))
        var elsewhere: [MonitoredRegion] = []
        for i in 0..<20_000 {
            // Europe, the Americas, Australia: lat/lon boxes far from Beijing.
            let box = [(35.0, 60.0, -10.0, 30.0), (-40.0, 50.0, -120.0, -40.0), (-40.0, -10.0, 115.0, 150.0)][i % 3]
            let centre = Coordinate(latitude: random.uniform(box.0, box.1), longitude: random.uniform(box.2, box.3))
            elsewhere.append(.circle("far\(i)", center: centre, radius: random.uniform(20, 50_000)))
        }
        for i in 0..<5000 { elsewhere.append(.administrative("code\(i)", .code("DE-\(i)", level: .province))) }

        var small = RegionBook(hysteresis: .default), big = RegionBook(hysteresis: .default)
        for r in local { _ = small.add(r); _ = big.add(r) }
        for r in elsewhere { _ = big.add(r) }
        var here = Coordinate(latitude: 39.25, longitude: 116.25)
        for i in 0..<400 {
            here = Self.destination(here, bearing: 35, distance: 80)
            let location = fix(here.latitude, here.longitude, t: Double(i))
            let placemark = RegionProvider.answer(here)
            let a = small.observe(location, placemark: placemark)
            let b = big.observe(location, placemark: placemark)
            if i == 0 {
                #expect(big.counters.lastFixEvaluations == local.count + elsewhere.count)
                #expect(b.filter { !$0.region.identifier.hasPrefix("far") && !$0.region.identifier.hasPrefix("code") } == a)
            } else {
                #expect(a == b)
                #expect(big.counters.lastFixEvaluations == small.counters.lastFixEvaluations, "fix \(i)")
            }
        }
        #expect(big.counters.evaluations - (local.count + elsewhere.count) == small.counters.evaluations - local.count)
    }

    // MARK: - Helpers

    static func destination(_ start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        let δ = distance / 6_371_008.8, θ = bearing * .pi / 180
        let φ1 = start.latitude * .pi / 180, λ1 = start.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        var λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        λ2 = (λ2 + 3 * .pi).truncatingRemainder(dividingBy: 2 * .pi) - .pi
        return Coordinate(latitude: φ2 * 180 / .pi, longitude: λ2 * 180 / .pi)
    }
}

/// Every region evaluated on every fix, the rules written out plainly: the reference the indexed book
/// must agree with.
struct BruteForceRegions {
    var hysteresis: RegionHysteresis
    var regions: [(region: MonitoredRegion, state: RegionState, since: Date?)] = []
    var last: (Location, Placemark?)?

    mutating func add(_ region: MonitoredRegion) -> RegionEvent {
        guard let (location, placemark) = last else {
            regions.append((region, .unknown, nil))
            return .stateDetermined(region, .unknown, at: nil)
        }
        let state: RegionState = inside(region, location, placemark, wasInside: false) ? .inside : .outside
        regions.append((region, state, nil))
        return .stateDetermined(region, state, at: location)
    }

    func inside(_ region: MonitoredRegion, _ location: Location, _ placemark: Placemark?, wasInside: Bool) -> Bool {
        switch region.area {
        case .circle(let c):
            let d = c.center.distance(to: location.coordinate)
            return wasInside ? d <= c.radius + hysteresis.margin : d <= c.radius
        case .administrative(let a):
            return a.contains(placemark)
        }
    }

    mutating func observe(_ location: Location, placemark: Placemark?) -> [RegionEvent] {
        last = (location, placemark)
        var events: [RegionEvent] = []
        for i in regions.indices {
            let (region, state, since) = regions[i]
            let nowInside = inside(region, location, placemark, wasInside: state == .inside)
            let side: RegionState = nowInside ? .inside : .outside
            if state == .unknown {
                regions[i] = (region, side, nil)
                events.append(.stateDetermined(region, side, at: location))
            } else if side == state {
                regions[i].since = nil
            } else {
                let start = since.map { location.timestamp < $0 ? location.timestamp : $0 } ?? location.timestamp
                if location.timestamp.timeIntervalSince(start) >= hysteresis.minimumDwell {
                    regions[i] = (region, side, nil)
                    if side == .inside, region.notifyOnEntry { events.append(.entered(region, at: location)) }
                    if side == .outside, region.notifyOnExit { events.append(.exited(region, at: location)) }
                } else {
                    regions[i].since = start
                }
            }
        }
        return events
    }
}
