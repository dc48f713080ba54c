import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// The cycle merge rules on small hand-made streams.
struct NMEAFixAssemblerTests {
    static let noon2020 = Date(timeIntervalSince1970: 1_600_000_000)  // 2020-09-13T12:26:40Z

    func sentences(_ bodies: [String]) -> [NMEASentence] {
        bodies.map { try! NMEAParser().parse(NMEAChecksum.sentence($0)) }
    }

    /// Feeds everything, then flushes: every fix the stream produces.
    func fixes(_ bodies: [String], configuration: NMEAFixAssembler.Configuration? = nil) -> [Location] {
        var assembler = NMEAFixAssembler(configuration: configuration ?? .init(clock: { Self.noon2020 }))
        var out: [Location] = []
        for s in sentences(bodies) { out += assembler.consume(s) }
        out += assembler.flush(endOfInput: true)
        return out
    }

    static let cycle = [
        "GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000",
        "GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5",
        "GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A",
    ]

    @Test func oneCycleMergesIntoOneFix() throws {
        let all = fixes(Self.cycle)
        #expect(all.count == 1)
        let fix = try #require(all.first)
        #expect(fix.isValid)
        #expect(fix.quality == .fix3D)
        #expect(fix.coordinate == Coordinate(latitude: -(37 + 47.0873 / 60), longitude: 175 + 18.8938 / 60))
        #expect(fix.altitude == 59.9)
        #expect(abs(fix.horizontalAccuracy - 1.1 * 5) < 1e-12)     // GGA HDOP × UERE
        #expect(abs(fix.verticalAccuracy - 1.5 * 5) < 1e-12)       // GSA VDOP × UERE
        #expect(abs(fix.speed - 0.69 * 1852 / 3600) < 1e-12)
        #expect(fix.course == 181.39)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_419_995_239))  // 2014-12-31T03:07:19Z
    }

    @Test func qualityComesFromGGAThenFAAModeThenGSA() {
        func quality(_ gga: Int) -> Location.FixQuality? {
            fixes(["GPGGA,120000,4807.038,N,01131.000,E,\(gga),08,0.9,545.4,M,46.9,M,,"]).first?.quality
        }
        #expect(quality(0) == Location.FixQuality.none)
        #expect(quality(1) == .fix3D)
        #expect(quality(2) == .differential)
        #expect(quality(3) == .fix3D)
        #expect(quality(4) == .rtk)
        #expect(quality(5) == .rtk)
        #expect(quality(6) == .estimated)
        #expect(quality(7) == .simulated)
        #expect(quality(8) == .simulated)
        func rmc(_ mode: String) -> Location.FixQuality? {
            fixes(["GPRMC,120000,A,4807.038,N,01131.000,E,0.0,,230394,,,\(mode)"]).first?.quality
        }
        #expect(rmc("A") == .fix2D)  // no altitude, no GSA: 2-D is all that is known
        #expect(rmc("D") == .differential)
        #expect(rmc("R") == .rtk)
        #expect(rmc("E") == .estimated)
        #expect(rmc("S") == .simulated)
        // GSA's 2-D: quality 2-D, the altitude kept as sent but with its accuracy unknown.
        let twoD = fixes(["GPGGA,120000,4807.038,N,01131.000,E,1,03,3.1,746.1,M,44.2,M,,",
                          "GPGSA,A,2,01,03,14,,,,,,,,,,3.1,3.1,"]).first
        #expect(twoD?.quality == .fix2D && twoD?.altitude == 746.1 && twoD?.verticalAccuracy == -1)
    }

    @Test func accuracyPrefersGSTThenHDOPElseItIsUnknown() throws {
        let withGST = fixes(Self.cycle + ["GPGST,030719.000,0.006,0.023,0.020,273.6,0.3,0.4,0.5"]).first
        #expect(withGST.map { abs($0.horizontalAccuracy - 0.5) < 1e-12 } == true)  // √(0.3² + 0.4²)
        #expect(withGST?.verticalAccuracy == 0.5)
        // An RMC-only receiver gives no error estimate: unknown, not a made-up 50 m, and still a fix.
        let rmcOnly = ["GPRMC,120000,A,4807.038,N,01131.000,E,0.0,,230394,,,A"]
        let noDOP = try #require(fixes(rmcOnly).first)
        #expect(noDOP.horizontalAccuracy < 0 && !noDOP.horizontalAccuracyIsKnown && noDOP.isValid)
        #expect(noDOP.verticalAccuracy < 0)
        // HDOP 99.99 and an empty GST are "no estimate" too, not 500 m or 0 m.
        let emptyEstimates = fixes(["GPGGA,120000,4807.038,N,01131.000,E,1,04,99.99,545.4,M,46.9,M,,",
                                    "GPGST,120000,,,,,,,"]).first
        #expect(emptyEstimates.map { !$0.horizontalAccuracyIsKnown && $0.isValid } == true)
        // A figure a user sets is still given (50 m was the old default); a non-finite one means unknown,
        // never an invalid fix.
        let fifty = fixes(rmcOnly, configuration: .init(accuracyWithoutDOP: 50, clock: { Self.noon2020 })).first
        #expect(fifty?.horizontalAccuracy == 50)
        let nan = fixes(rmcOnly, configuration: .init(accuracyWithoutDOP: .nan, clock: { Self.noon2020 })).first
        #expect(nan.map { $0.horizontalAccuracy == -1 && $0.isValid } == true)
        let gsaOnly = fixes(["GPRMC,120000,A,4807.038,N,01131.000,E,0.0,,230394,,,A",
                             "GPGSA,A,3,17,28,06,01,,,,,,,,,1.8,1.2,1.5"]).first
        #expect(gsaOnly.map { abs($0.horizontalAccuracy - 6) < 1e-12 } == true)
        let custom = fixes(Self.cycle, configuration: .init(metresPerDOP: 3, clock: { Self.noon2020 })).first
        #expect(custom.map { abs($0.horizontalAccuracy - 3.3) < 1e-12 } == true)
    }

    @Test func invalidCyclesKeepTheirPositionButSayInvalid() throws {
        // Garmin 25LP before its fix: RMC V with a remembered position.
        let stale = fixes(["GPRMC,120316,V,4221.4394,N,01321.9948,E,000.0,000.0,150305,001.4,E"])
        let fix = try #require(stale.first)
        #expect(!fix.isValid && fix.quality == .none && fix.horizontalAccuracy < 0)
        #expect(fix.speed < 0 && fix.course < 0 && fix.altitude == nil)
        // Geko demo mode: GGA says "simulated", RMC and GLL of the same cycle say V: invalid.
        let demo = fixes(["GPRMC,214350,V,4023.8600,N,00339.1630,W,10.8,0.0,140605,2.5,W,S",
                          "GPGGA,214350,4023.8600,N,00339.1630,W,8,09,2.0,695.7,M,51.6,M,,",
                          "GPGLL,4023.8600,N,00339.1630,W,214350,V,S"])
        #expect(demo.count == 1 && demo.first?.isValid == false)
        // No position at all (still searching): nothing to report.
        #expect(fixes(["GPGGA,,,,,,0,00,99.99,,,,,,", "GPRMC,,V,,,,,,,,,,N", "GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"]).isEmpty)
        #expect(fixes(["GPGGA,212406.000,0000.0000000,N,00000.0000000,E,0,00,0.0,0.000,M,0.000,M,,0000"]).isEmpty)
    }

    @Test func datesCarryForwardAndRollOverAtMidnight() {
        let all = fixes([
            "GPRMC,235958,A,4807.038,N,01131.000,E,0.0,,311299,,,A",
            "GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,000001.5,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        let expected: [TimeInterval] = [946_684_798, 946_684_799, 946_684_800, 946_684_801.5]  // 1999-12-31T23:59:58Z…
        #expect(all.map(\.timestamp.timeIntervalSince1970) == expected)
        // ZDA's four-digit year serves GGA-only receivers (hemi.log).
        let hemi = fixes(["GPGGA,194050.00,4221.8237733,N,07101.9411707,W,1,00,3.3,10.835,M,-33.320,M,,",
                          "GPVTG,330.63,T,345.26,M,0.00,N,0.00,K,A",
                          "GPZDA,194050.00,07,09,2018,00,00"])
        #expect(hemi.first?.timestamp == Date(timeIntervalSince1970: 1_536_349_250))
    }

    @Test func beforeAnyDateTheClockGivesTheDay() {
        // Ten past midnight now: a fix at 23:59:30 is yesterday's, one at 00:05 today's.
        let configuration = NMEAFixAssembler.Configuration(clock: { Date(timeIntervalSince1970: 1_599_955_800) })
        let late = fixes(["GPGGA,235930,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"],
                         configuration: configuration).first
        #expect(late?.timestamp == Date(timeIntervalSince1970: 1_599_955_170))  // 2020-09-12T23:59:30Z
        let early = fixes(["GPGGA,000500,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"],
                          configuration: configuration).first
        #expect(early?.timestamp == Date(timeIntervalSince1970: 1_599_955_500))  // 2020-09-13T00:05:00Z
    }

    @Test func aFixBeforeAnyDateIsHeldAndStampedWithTheLogsDay() {
        // A 2018 log replayed in 2026: the GGA comes before the first RMC. It used to be stamped
        // with the clock's day (2026-12-01T09:47:36Z).
        let configuration = NMEAFixAssembler.Configuration(clock: { Date(timeIntervalSince1970: 1_796_118_456) })
        let all = fixes(["GPGGA,094736,5251.0094,N,00518.8172,E,1,12,0.60,-4,M,46.8,M,,",
                         "GPGLL,5251.0093,N,00518.8170,E,094736,A,A",
                         "GPRMC,094737,A,5251.0093,N,00518.8170,E,5.6,230.5,200818,1.4,E,A",
                         "GPGGA,094737,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"],
                        configuration: configuration)
        #expect(all.map(\.timestamp.timeIntervalSince1970) == [1_534_758_456, 1_534_758_457])  // 2018-08-20T09:47:36Z…
        // Just before midnight, dated by the next day's first RMC: yesterday.
        let midnight = fixes(["GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                              "GPRMC,000000,A,4807.038,N,01131.000,E,0.0,,010100,,,A"], configuration: configuration)
        #expect(midnight.map(\.timestamp.timeIntervalSince1970) == [946_684_799, 946_684_800])
        // A receiver that never sends a date: after `undatedCycles` the clock's day, nothing lost.
        let dateless = fixes((0..<5).map { "GPGGA,09473\($0),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,," },
                             configuration: .init(undatedCycles: 2, clock: { Date(timeIntervalSince1970: 1_796_118_456) }))
        #expect(dateless.count == 5)
        #expect(dateless.first?.timestamp == Date(timeIntervalSince1970: 1_796_118_450))  // 2026-12-01T09:47:30Z
    }

    @Test func aCycleEndsAtItsEnderAndLateSentencesOfItsSecondAreNotMerged() {
        // The Zeus² once its GLL runs a second ahead of its GGA (bundg_zeus_9.log, 09:48:15-18): gpsd
        // reports each second at its GLL; the RMC and GGA stamped alike that follow are not merged.
        let all = fixes([
            "GPGGA,094814,5250.9722,N,00518.7369,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9722,N,00518.7369,E,094814,A,A",
            "GPRMC,094815,A,5250.9721,N,00518.7366,E,5.3,239.0,200818,1.4,E,A",
            "GPZDA,094815,20,08,2018,-01,00",
            "GPGGA,094815,5250.9714,N,00518.7347,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9714,N,00518.7347,E,094815,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094816,A,5250.9713,N,00518.7344,E,5.5,237.9,200818,1.4,E,A",
            "GPZDA,094816,20,08,2018,-01,00",
            "GPGGA,094816,5250.9705,N,00518.7323,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9705,N,00518.7323,E,094817,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094817,A,5250.9705,N,00518.7323,E,5.7,238.1,200818,1.4,E,A",
            "GPZDA,094817,20,08,2018,-01,00",
            "GPGGA,094817,5250.9696,N,00518.7305,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9696,N,00518.7305,E,094818,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094818,A,5250.9695,N,00518.7303,E,5.6,229.6,200818,1.4,E,A",
        ])
        let second = { (fix: Location) in Int(fix.timestamp.timeIntervalSince1970) % 86_400 - 9 * 3600 - 48 * 60 }
        let minutes = all.map { (second($0), (($0.coordinate.latitude - 52) * 60 * 10_000).rounded() / 10_000) }
        // gpsd (bundg_zeus_9.log.chk): 15 and 17 from their GLL; 16 from RMC+GGA, the cycle gpsd never
        // closes; 18 at the end of input, from its GLL (RMC's own position is a second cycle).
        #expect(minutes.map(\.0) == [14, 15, 16, 17, 18])
        #expect(minutes.first { $0.0 == 15 }?.1 == 50.9714)
        #expect(minutes.first { $0.0 == 17 }?.1 == 50.9705, "GLL 094817, not the GGA 094817 (50.9696) after it")
        #expect(all.first { second($0) == 17 }?.speed == -1, "the RMC of that second came after its report")
    }

    @Test func aLateBurstClosedByANewSecondTeachesALaterEnder() {
        // The Zeus² (bundg_zeus_9.log) with GLL learned as the ender (09:48:14-15), then 09:48:52-57,
        // where its GLL stops running ahead: the burst RMC, ZDA of 54 is closed by GGA 094855, not by
        // the GLL ender, so ZDA ends cycles too, and gpsd (bundg_zeus_9.log.chk) reports 55 and 56 at
        // their ZDA, from the RMC that comes after their GLL.
        let all = fixes([
            "GPGGA,094814,5250.9722,N,00518.7369,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9722,N,00518.7369,E,094814,A,A",
            "GPRMC,094815,A,5250.9721,N,00518.7366,E,5.3,239.0,200818,1.4,E,A",
            "GPZDA,094815,20,08,2018,-01,00",
            "GPGGA,094815,5250.9714,N,00518.7347,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9714,N,00518.7347,E,094815,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPGGA,094852,5250.9375,N,00518.6555,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9375,N,00518.6555,E,094853,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094853,A,5250.9374,N,00518.6553,E,6.0,228.3,200818,1.4,E,A",
            "GPZDA,094853,20,08,2018,-01,00",
            "SDHDG,235.1,,,1.3,E",
            "GPGGA,094853,5250.9368,N,00518.6535,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9367,N,00518.6533,E,094854,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094854,A,5250.9367,N,00518.6530,E,5.3,247.9,200818,1.4,E,A",
            "GPZDA,094854,20,08,2018,-01,00",
            "SDHDG,235.1,,,1.3,E",
            "GPGGA,094855,5250.9360,N,00518.6511,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9359,N,00518.6508,E,094855,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094855,A,5250.9358,N,00518.6506,E,6.3,232.6,200818,1.4,E,A",
            "GPZDA,094855,20,08,2018,-01,00",
            "SDHDG,235.1,,,1.3,E",
            "GPGGA,094856,5250.9348,N,00518.6488,E,1,12,0.60,-5,M,46.8,M,,",
            "GPGLL,5250.9348,N,00518.6488,E,094856,A,A",
            "GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90",
            "GPRMC,094856,A,5250.9347,N,00518.6486,E,4.8,234.6,200818,1.4,E,A",
            "GPZDA,094856,20,08,2018,-01,00",
            "SDHDG,235.1,,,1.3,E",
            "GPGGA,094857,5250.9338,N,00518.6468,E,1,12,0.60,-5,M,46.8,M,,",
        ])
        let second = { (fix: Location) in Int(fix.timestamp.timeIntervalSince1970) % 86_400 - 9 * 3600 - 48 * 60 }
        let minutes = all.map { (second($0), (($0.coordinate.latitude - 52) * 60 * 10_000).rounded() / 10_000) }
        #expect(minutes.map(\.0) == [14, 15, 52, 53, 54, 55, 56, 57])
        #expect(minutes.first { $0.0 == 54 }?.1 == 50.9367, "GLL 094854: ZDA is not an ender yet")
        #expect(minutes.first { $0.0 == 55 }?.1 == 50.9358, "RMC 094855, reported at ZDA, not GLL's 50.9359")
        #expect(minutes.first { $0.0 == 56 }?.1 == 50.9347, "RMC 094856, not GLL's 50.9348")
        #expect(all.first { second($0) == 56 }.map { abs($0.speed - 4.8 * 1852 / 3600) < 1e-9 } == true,
                "the RMC after the GLL is merged now")
    }

    @Test func theLearnedCycleEndDeliversAFixWithoutWaitingForTheNextCycle() {
        var assembler = NMEAFixAssembler(configuration: .init(clock: { Self.noon2020 }))
        func cycle(_ second: Int) -> [NMEASentence] {
            sentences(["GPGGA,1200\(second + 10),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                       "GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5",
                       "GPRMC,1200\(second + 10),A,4807.038,N,01131.000,E,0.0,,230394,,,A"])
        }
        // Cycles 1 and 2 are only known complete when the next one starts...
        var delivered: [[Int]] = []
        for second in 0..<5 {
            delivered.append(cycle(second).map { assembler.consume($0).count })
        }
        #expect(delivered[0] == [0, 0, 0])
        #expect(delivered[1] == [1, 0, 0])
        #expect(delivered[2] == [1, 0, 1])  // ...then RMC is known to end a cycle: reported on arrival.
        #expect(delivered[3] == [0, 0, 1])
        #expect(delivered[4] == [0, 0, 1])
        #expect(assembler.flush(endOfInput: true).isEmpty && !assembler.hasPendingCycle)
    }

    @Test func aCycleIsNeverReportedTwice() {
        // Learn RMC as the ender, then a receiver that (once) sends GLL after RMC in the same cycle.
        var assembler = NMEAFixAssembler(configuration: .init(clock: { Self.noon2020 }))
        var count = 0
        var bodies: [String] = []
        for second in 10..<14 {
            bodies += ["GPGGA,1200\(second),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                       "GPRMC,1200\(second),A,4807.038,N,01131.000,E,0.0,,230394,,,A"]
        }
        bodies.append("GPGLL,4807.038,N,01131.000,E,120013,A,A")  // late member of the 12:00:13 cycle
        bodies.append("GPGGA,120014,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        var times: [TimeInterval] = []
        for s in sentences(bodies) {
            for fix in assembler.consume(s) {
                count += 1
                times.append(fix.timestamp.timeIntervalSince1970)
            }
        }
        for last in assembler.flush(endOfInput: true) { times.append(last.timestamp.timeIntervalSince1970); count += 1 }
        #expect(count == 5)
        #expect(Set(times).count == times.count)
    }

    @Test func untimedPositionReportsDoNotJoinATimedCycle() {
        // quectel.log after losing the fix: empty GGA/RMC (no time) right after the last good cycle.
        let all = fixes(["GPGGA,022038.00,3644.762563,S,17444.069733,E,1,06,1.1,53.0,M,37.0,M,,",
                         "GPRMC,022038.00,A,3644.762563,S,17444.069733,E,0.0,,071020,18.3,E,A,V",
                         "GPGGA,,,,,,0,,,,,,,,",
                         "GPRMC,,V,,,,,,,,,,N"])
        #expect(all.count == 1 && all.first?.isValid == true)
    }

    @Test func speedAndCourseFromVTGWhenRMCHasNone() {
        let fix = fixes(["GPGGA,185244.000,4854.2575,N,00219.9816,E,1,05,1.7,124.4,M,47.3,M,,0000",
                         "GPVTG,296.61,T,,M,3.00,N,5.6,K,A"]).first
        #expect(fix.map { abs($0.speed - 3 * 1852 / 3600) < 1e-12 } == true)
        #expect(fix?.course == 296.61)
        let notValid = fixes(["GPGGA,185244.000,4854.2575,N,00219.9816,E,1,05,1.7,124.4,M,47.3,M,,0000",
                              "GPVTG,296.61,T,,M,3.00,N,5.6,K,N"]).first
        #expect(notValid?.speed == -1 && notValid?.course == -1)
    }
}
