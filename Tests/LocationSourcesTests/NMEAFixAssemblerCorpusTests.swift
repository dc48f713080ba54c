import Foundation
import Testing
@testable import LocationSources

/// Whole logs through the stream reader and fix assembler, against the fixes gpsd reported.
///
/// gpsd prints a TPV per cycle (sometimes several as sentences arrive); its last TPV with a position
/// for a given UTC time is its fix for that cycle. Every one of those must be one of our valid fixes,
/// with the same timestamp to the millisecond, the same position at 9 decimals, and the same speed,
/// course and altitude at the precision gpsd prints them. garmin-geko201 (demo mode: RMC and GLL say
/// invalid) and skytraq (cold start) must give no valid fix, as gpsd gives none.
struct NMEAFixAssemblerCorpusTests {
    /// Valid fixes of ours that gpsd printed no timed position for, per log, and why. (Fixes gpsd
    /// reported that we do not are never allowed.)
    static let oursOnly: [String: Int] = [
        // The log starts with the GLL and ZDA of a cycle: gpsd's TPV for it has a position but no time
        // yet. Two more cycles end where the log jumps to a new session or ends, before gpsd's
        // end-of-cycle report; we report them when the next cycle starts or the input ends.
        "bt451": 3,
        // bundg_zeus_9: its first cycle (GGA, GLL 09:47:36) comes before any date, and gpsd's TPV for
        // it has no time; 09:48:16 (RMC, ZDA, GGA), where the GLL runs a second ahead, gpsd never
        // closes (its GLL of 09:48:17 starts the next second).
        "bundg_zeus_9": 2,
        // The log ends inside the last cycle.
        "foretrex-201": 1,
        // RMC 095304.802 is followed directly by the next cycle's GGA: gpsd never closed that cycle.
        "haicom-305N": 1,
        // GGA quality 1 but "00" satellites: gpsd's <3-satellite heuristic says no fix; the receiver
        // (HDOP 3.3, VTG mode A) says fix, and the spec's rule follows the receiver's quality flag.
        "hemi": 15,
        // The recording jumps 18 minutes after RMC 083736 (the unit was re-plugged).
        "ublox-lea-5h": 1,
    ]

    /// Fixes whose cycle carries no speed, where gpsd printed one it derived from successive positions
    /// (we report the receiver's values only: unknown stays unknown).
    /// bundg_zeus_9: from 09:48:17 to 09:48:54 the second's RMC comes after its GLL ender, so the
    /// second's fix has no receiver speed; gpsd prints 0.000, derived from positions.
    static let speedDerivedByGpsd: [String: Int] = ["bundg_zeus_9": 39, "ublox-lea-5h": 1]

    /// Everything the decoder makes of a corpus log, to its end (a clock that never gives a date, as
    /// gpsd has none when it replays a log).
    static func decodeWhole(_ corpus: NMEACorpus) -> [NMEALocationDecoder.Output] {
        var decoder = NMEALocationDecoder(assembler: .init(clock: { Date(timeIntervalSince1970: 0) }))
        return decoder.decode(corpus.log) + decoder.finish()
    }

    @Test(arguments: NMEACorpus.names)
    func assembledFixesAgreeWithGpsd(name: String) throws {
        let corpus = try NMEACorpus.load(name)
        let outputs = Self.decodeWhole(corpus)
        let fixes = outputs.compactMap { output -> Location? in
            if case .location(let location) = output { return location }
            return nil
        }
        let valid = Dictionary(fixes.filter(\.isValid).map { (milliseconds($0.timestamp), $0) },
                               uniquingKeysWith: { a, _ in a })
        #expect(valid.count == fixes.filter(\.isValid).count, "\(name): two valid fixes with one timestamp")

        // gpsd's fix per cycle: the last TPV with a position for each time.
        var gpsd: [Int64: NMEACorpus.Report] = [:]
        for report in corpus.entries.flatMap(\.reports) where report.hasPosition {
            if let time = report.time, let ms = Self.milliseconds(iso: time) { gpsd[ms] = report }
        }
        var matched = 0
        var derivedSpeeds = 0
        for (ms, report) in gpsd.sorted(by: { $0.key < $1.key }) {
            guard let ours = valid[ms] else {
                Issue.record("\(name): gpsd has a fix at \(report.time ?? "?"), we have no valid fix then")
                continue
            }
            matched += 1
            #expect(NMEAAgreement(ours.coordinate.latitude, gpsdNanodegrees: report.latitudeNanodegrees!) != .different
                    && NMEAAgreement(ours.coordinate.longitude, gpsdNanodegrees: report.longitudeNanodegrees!) != .different,
                    "\(name) \(report.time!): ours \(ours.coordinate), gpsd \(report.latitudeNanodegrees!) \(report.longitudeNanodegrees!)")
            if report.speed != nil, ours.speed < 0 {
                derivedSpeeds += 1
            } else if let speed = report.speed {
                #expect(abs(ours.speed - speed) <= 0.0005 + 1e-9, "\(name) \(report.time!): speed \(ours.speed) vs \(speed)")
            }
            if let track = report.track, ours.course >= 0 {
                #expect(abs(ours.course - track) <= 0.00005 + 1e-9, "\(name) \(report.time!): course \(ours.course) vs \(track)")
            }
            if let altitude = report.altitudeMSL {
                #expect(ours.altitude.map { abs($0 - altitude) <= 0.00005 + 1e-9 } == true,
                        "\(name) \(report.time!): altitude \(String(describing: ours.altitude)) vs \(altitude)")
            }
        }
        let oursOnly = valid.keys.filter { gpsd[$0] == nil }.count
        print("NMEA assembled \(name): \(fixes.count) fixes, \(valid.count) valid, \(matched) matched gpsd, \(oursOnly) only ours")
        #expect(oursOnly == Self.oursOnly[name, default: 0])
        #expect(derivedSpeeds == Self.speedDerivedByGpsd[name, default: 0])
        if !["garmin-geko201", "skytraq"].contains(name) { #expect(matched > 0) }
    }

    /// A fix has a known accuracy exactly when gpsd's fix for its cycle has an error estimate (`eph`):
    /// a cycle without HDOP (GGA, GNS, GSA) or GST gives none, and gpsd prints none for it either.
    /// Such cycles were reported at a made-up 50 m. Where both have one, ours is HDOP × 5 m (1 sigma)
    /// and gpsd's a 95 % radius from its own UERE: different figures, so only the presence is compared.
    @Test(arguments: NMEACorpus.names)
    func accuracyIsKnownExactlyWhereGpsdHasAnErrorEstimate(name: String) throws {
        let corpus = try NMEACorpus.load(name)
        let outputs = Self.decodeWhole(corpus)
        var ours: [Int64: Location] = [:]
        for case .location(let location) in outputs where location.isValid {
            ours[milliseconds(location.timestamp)] = ours[milliseconds(location.timestamp)] ?? location
        }
        var gpsd: [Int64: NMEACorpus.Report] = [:]
        for report in corpus.entries.flatMap(\.reports) where report.hasPosition {
            if let time = report.time, let ms = Self.milliseconds(iso: time) { gpsd[ms] = report }
        }
        var unknown = 0
        for (ms, report) in gpsd.sorted(by: { $0.key < $1.key }) {
            guard let fix = ours[ms] else { continue }  // assembledFixesAgreeWithGpsd reports a missing fix
            #expect(fix.horizontalAccuracyIsKnown == (report.eph != nil),
                    "\(name) \(report.time!): ours \(fix.horizontalAccuracy) m, gpsd eph \(report.eph.map { "\($0)" } ?? "none")")
            if report.eph == nil { unknown += 1 }
        }
        #expect(unknown == Self.withoutErrorEstimate[name, default: 0])
    }

    /// gpsd fixes without `eph`, per log: the oracle's own count, so the test above cannot pass by
    /// finding no such cycle. ublox-lea-5h ends on an RMC-only cycle (08:55:20). The Zeus² sends
    /// 09:49:45 as RMC, VTG, ZDA only, and 09:48:34 without a GSA, ended at its GLL before the GGA
    /// that carries the second's HDOP (a late member, not merged: see the assembler's notes).
    static let withoutErrorEstimate: [String: Int] = ["bundg_zeus_9": 2, "ublox-lea-5h": 1]

    /// The B&G Zeus² chartplotter (bundg_zeus_9.log): its first GGA comes before any date, and its
    /// bursts straddle seconds. Until 09:48:16 it sends `GGA t, GLL t, RMC t+1, ZDA t+1`; then
    /// `GGA t, GLL t+1, RMC t+1, ZDA t+1, GGA t+1`, where gpsd ends each second at its GLL and
    /// leaves out the RMC and GGA of the same stamp that follow (about 2 m away). Before 09:48:55
    /// every gpsd fix must be ours, position and timestamp. From 09:48:55 the receiver sends
    /// `GGA t, GLL t, RMC t, ZDA t` and gpsd, having learned ZDA as a second cycle ender, reports
    /// RMC's position: so must we, every fix of the log.
    @Test func zeusCyclesFollowGpsd() throws {
        let corpus = try NMEACorpus.load("bundg_zeus_9")
        // A clock in 2026: before the fix, the first GGA was stamped 2026-12-01T09:47:36Z.
        let now = Date(timeIntervalSince1970: 1_796_118_456)
        var decoder = NMEALocationDecoder(assembler: .init(clock: { now }))
        var outputs = decoder.decode(corpus.log)
        outputs += decoder.finish()
        let fixes = outputs.compactMap { output -> Location? in
            if case .location(let location) = output { return location }
            return nil
        }
        // The GGA before the first date is held, then stamped with the log's day, not the clock's.
        let first = try #require(fixes.first)
        #expect(milliseconds(first.timestamp) == Self.milliseconds(iso: "2018-08-20T09:47:36.000Z"))
        #expect(abs(first.coordinate.latitude - (52 + 51.0093 / 60)) < 1e-9, "the cycle's GLL, reported last")
        #expect(fixes.allSatisfy { $0.timestamp < now.addingTimeInterval(-86_400 * 365) }, "no fix dated by the clock")

        let ours = Dictionary(fixes.map { (milliseconds($0.timestamp), $0) }, uniquingKeysWith: { a, _ in a })
        #expect(ours.count == fixes.count, "one fix per second")
        var gpsd: [Int64: NMEACorpus.Report] = [:]
        for report in corpus.entries.flatMap(\.reports) where report.hasPosition {
            if let time = report.time, let ms = Self.milliseconds(iso: time) { gpsd[ms] = report }
        }
        let phaseThree = try #require(Self.milliseconds(iso: "2018-08-20T09:48:55.000Z"))
        var matched = 0, differentLater = 0
        for (ms, report) in gpsd.sorted(by: { $0.key < $1.key }) {
            guard let fix = ours[ms] else {
                Issue.record("gpsd has a fix at \(report.time!), we have none")
                continue
            }
            let same = NMEAAgreement(fix.coordinate.latitude, gpsdNanodegrees: report.latitudeNanodegrees!) != .different
                && NMEAAgreement(fix.coordinate.longitude, gpsdNanodegrees: report.longitudeNanodegrees!) != .different
            if ms < phaseThree {
                #expect(same, "\(report.time!): ours \(fix.coordinate), gpsd \(report.latitudeNanodegrees!) \(report.longitudeNanodegrees!)")
                if same { matched += 1 }
            } else if !same {
                differentLater += 1
            }
        }
        #expect(matched == 77, "every gpsd fix before 09:48:55")
        print("NMEA zeus: \(matched) matched before 09:48:55, \(differentLater) differ from 09:48:55 on")
        #expect(differentLater == 0, "from 09:48:55 on, gpsd's second cycle ender (ZDA)")
    }

    private func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `2014-12-31T03:07:19.000Z` → milliseconds since 1970, via our own date types.
    static func milliseconds(iso: String) -> Int64? {
        let digits = iso.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard digits.count == 7, let date = NMEADate(year: digits[0], month: digits[1], day: digits[2]),
              let time = NMEATimeOfDay(hour: digits[3], minute: digits[4], second: digits[5],
                                       nanosecond: digits[6] * 1_000_000) else { return nil }
        return Int64((date.date(at: time).timeIntervalSince1970 * 1000).rounded())
    }
}
