import Foundation
import Testing
@testable import LocationSources

/// The parser and the fix assembler against gpsd's own decoding of real receiver logs (all but
/// bundg_zeus_9 here, see `perSentenceNames`).
///
/// **Per sentence.** For every GGA/RMC/GLL/GNS that our parser says carries a valid fix, gpsd's report
/// for that sentence is the first TPV with a position printed after it, before the next position
/// report of a *different* time (gpsd reports once per cycle, after the cycle's last sentence, so a GGA
/// early in a cycle is reported after the RMC that ends it; both carry the same position). Latitude and
/// longitude must equal gpsd's at its 9 printed decimals, and the time must equal gpsd's (the full UTC
/// date and time for RMC). "Equal" allows one case: the exact decimal value lies on a tie in the
/// 10th decimal (8-digit minutes ÷ 60 often ends in …5) and gpsd's double rounded the other way; the
/// test proves each such tie exact in integer arithmetic.
///
/// A valid sentence gpsd printed no position for is explained, never ignored:
/// - *gpsd says no fix*: gpsd printed TPVs for the cycle but without a position. Either gpsd's own
///   heuristic demoted a GGA that reports fewer than 3 satellites in use (hemi.log: quality 1 with 00
///   satellites and HDOP 3.3), or another sentence of the same cycle says "invalid" (the Garmin Geko's
///   demo mode: GGA quality 8 "simulated" between RMC and GLL with status V). Our per-sentence answer
///   follows the spec's rule (the GGA quality field); the assembled fix for those Geko cycles is
///   invalid, as gpsd's is.
/// - *cycle never reported*: gpsd printed nothing for the cycle at all because the log ends, or jumps,
///   before the cycle's last sentence.
///
/// **Reverse.** Every position gpsd printed must come right after a sentence we also call a valid fix
/// with the same position, so we cannot be silently stricter than gpsd either.
struct NMEACorpusTests {
    struct Tally: Equatable, CustomStringConvertible {
        var compared = 0
        var gpsdNoFix = 0
        var neverReported = 0
        var description: String { "compared \(compared), gpsd no fix \(gpsdNoFix), never reported \(neverReported)" }
    }

    /// What each log must give. skytraq.log is a cold start: every sentence zero-filled, no fix at
    /// all, which the zero-fill rules must get right (and the reverse check covers: gpsd prints none).
    static let expected: [String: Tally] = [
        "bt451": Tally(compared: 36, gpsdNoFix: 0, neverReported: 3),
        "bu353s4": Tally(compared: 50, gpsdNoFix: 0, neverReported: 0),
        "foretrex-201": Tally(compared: 18, gpsdNoFix: 0, neverReported: 2),
        "garmin-geko201": Tally(compared: 1, gpsdNoFix: 17, neverReported: 0),
        "garmin25lp": Tally(compared: 20, gpsdNoFix: 0, neverReported: 0),
        "gpslim236": Tally(compared: 40, gpsdNoFix: 0, neverReported: 0),
        "haicom-305N": Tally(compared: 135, gpsdNoFix: 0, neverReported: 1),
        "hemi": Tally(compared: 6, gpsdNoFix: 15, neverReported: 0),
        "nmea-rtk": Tally(compared: 244, gpsdNoFix: 0, neverReported: 0),
        "quectel": Tally(compared: 68, gpsdNoFix: 0, neverReported: 0),
        "quectel-eg25-g": Tally(compared: 69, gpsdNoFix: 0, neverReported: 0),
        "skytraq": Tally(compared: 0, gpsdNoFix: 0, neverReported: 0),
        "telit-he910": Tally(compared: 561, gpsdNoFix: 0, neverReported: 0),
        "ublox-8": Tally(compared: 216, gpsdNoFix: 0, neverReported: 0),
        "ublox-lea-5h": Tally(compared: 54, gpsdNoFix: 0, neverReported: 1),
    ]

    /// The logs whose every position report carries its cycle's position, as this per-sentence check
    /// assumes. Not bundg_zeus_9: its GGA and its RMC/GLL of one second are about 2 m apart, and gpsd
    /// reports only the cycle's ender; the fix assembler's whole-log test compares it with gpsd.
    static let perSentenceNames = NMEACorpus.names.filter { $0 != "bundg_zeus_9" }

    @Test(arguments: perSentenceNames)
    func sentencesAgreeWithGpsd(name: String) throws {
        let corpus = try NMEACorpus.load(name)
        let parser = NMEAParser()
        var sentences: [NMEASentence?] = []
        for entry in corpus.entries {
            do {
                sentences.append(try parser.parse(entry.sentence))
            } catch {
                Issue.record("\(name): gpsd accepted \(entry.sentence) but we reject it: \(error)")
                sentences.append(nil)
            }
        }

        var tally = Tally()
        var ties = 0
        var timesCompared = 0
        for (i, sentence) in sentences.enumerated() {
            guard let sentence, let ours = sentence.fixCoordinate else { continue }
            let time = sentence.timeOfDay
            var end = i + 1
            while end < sentences.count,
                  !(sentences[end]?.isPositionReport == true && sentences[end]?.timeOfDay != time) {
                end += 1
            }
            let window = corpus.entries[i..<end].flatMap(\.reports)
            guard let report = window.first(where: \.hasPosition) else {
                if window.isEmpty {
                    tally.neverReported += 1
                } else {
                    tally.gpsdNoFix += 1
                    #expect(gpsdDemotes(sentence, cycle: sentences, around: i),
                            "\(name): gpsd has no fix for \(corpus.entries[i].sentence) and no known reason")
                }
                continue
            }
            tally.compared += 1
            let lat = NMEAAgreement(ours.latitude, gpsdNanodegrees: report.latitudeNanodegrees!)
            let lon = NMEAAgreement(ours.longitude, gpsdNanodegrees: report.longitudeNanodegrees!)
            #expect(lat != .different && lon != .different,
                    "\(name): \(corpus.entries[i].sentence) → \(ours), gpsd \(report.latitudeNanodegrees!) \(report.longitudeNanodegrees!)")
            if lat == .tie || lon == .tie {
                ties += 1
                let (latField, lonField) = angleFields(corpus.entries[i].sentence)
                #expect(lat != .tie || NMEAAgreement.isExactTie(latField), "\(name): \(latField) is no tie")
                #expect(lon != .tie || NMEAAgreement.isExactTie(lonField), "\(name): \(lonField) is no tie")
            }

            if let gpsdTime = report.time, let time {
                timesCompared += 1
                #expect(gpsdTime.hasSuffix("T\(time)Z"), "\(name): \(corpus.entries[i].sentence) time \(time), gpsd \(gpsdTime)")
                if case .rmc(let rmc) = sentence, let date = rmc.date {
                    #expect(gpsdTime == "\(date)T\(time)Z", "\(name): \(corpus.entries[i].sentence) gpsd \(gpsdTime)")
                }
            }
        }
        print("NMEA corpus \(name): \(tally), times compared \(timesCompared), 9th-decimal ties \(ties)")
        #expect(tally == Self.expected[name])

        // Reverse: every position gpsd printed follows a sentence we also decode as that fix.
        var lastReport: NMEASentence?
        var reverseChecked = 0
        for (entry, sentence) in zip(corpus.entries, sentences) {
            if let sentence, sentence.isPositionReport { lastReport = sentence }
            for report in entry.reports where report.hasPosition {
                reverseChecked += 1
                guard let ours = lastReport?.fixCoordinate else {
                    Issue.record("\(name): gpsd printed a position after \(entry.sentence); we see no fix")
                    continue
                }
                #expect(NMEAAgreement(ours.latitude, gpsdNanodegrees: report.latitudeNanodegrees!) != .different)
                #expect(NMEAAgreement(ours.longitude, gpsdNanodegrees: report.longitudeNanodegrees!) != .different)
            }
        }
        if name != "skytraq" { #expect(reverseChecked > 0) }
    }

    @Test func everyLogIsUsedAndComparisonsAreMany() {
        #expect(Set(Self.expected.keys) == Set(Self.perSentenceNames))
        let total = Self.expected.values.map(\.compared).reduce(0, +)
        #expect(total >= 1500, "the oracle must compare many sentences, not pass vacuously")
    }

    @Test func tieCheckTellsTiesFromNonTies() {
        #expect(NMEAAgreement.isExactTie("4134.49822493"))   // 41.574970415|5
        #expect(!NMEAAgreement.isExactTie("4134.49795459"))  // 41.574965909|8…
        #expect(!NMEAAgreement.isExactTie("3747.0873"))
    }

    /// The latitude and longitude fields of a GGA/RMC/GLL/GNS, as text.
    private func angleFields(_ sentence: String) -> (Substring, Substring) {
        let fields = sentence.split(separator: ",", omittingEmptySubsequences: false)
        let first = sentence.dropFirst(3).hasPrefix("RMC") ? 3 : sentence.dropFirst(3).hasPrefix("GLL") ? 1 : 2
        return (fields[first], fields[first + 2])
    }

    /// gpsd's known reasons for reporting no fix where the sentence claims one.
    private func gpsdDemotes(_ sentence: NMEASentence, cycle sentences: [NMEASentence?], around index: Int) -> Bool {
        if case .gga(let gga) = sentence, let used = gga.satellitesInUse, used < 3 { return true }
        // Another position report of the same cycle says the data are not valid.
        let time = sentence.timeOfDay
        var lower = index, upper = index
        while lower > 0, sentences[lower - 1]?.timeOfDay == nil || sentences[lower - 1]?.timeOfDay == time { lower -= 1 }
        while upper + 1 < sentences.count,
              sentences[upper + 1]?.timeOfDay == nil || sentences[upper + 1]?.timeOfDay == time { upper += 1 }
        return sentences[lower...upper].contains { s in
            guard let s, s.isPositionReport, s.timeOfDay == time else { return false }
            return s.fixCoordinate == nil
        }
    }
}
