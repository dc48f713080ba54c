import Foundation
import Testing
@testable import LocationSources

/// One gpsd regression log from `Corpus/` with gpsd's decoding of it (`.chk`), loaded for oracle tests.
struct NMEACorpus {
    /// A sentence gpsd read, and the TPV reports it printed right after reading it.
    struct Entry {
        let sentence: String
        var reports: [Report] = []
    }

    /// The fields of a gpsd TPV report the tests compare. Latitude and longitude are kept as gpsd
    /// printed them, in integer nanodegrees (gpsd prints 9 decimals), so no float parsing blurs them.
    struct Report {
        let mode: Int?
        let latitudeNanodegrees: Int64?
        let longitudeNanodegrees: Int64?
        let time: String?
        let speed: Double?
        let altitudeMSL: Double?
        let track: Double?
        /// gpsd's horizontal error estimate (95 %, from HDOP or the receiver's own figure), in metres;
        /// nil when gpsd had none for the fix.
        let eph: Double?

        var hasPosition: Bool { latitudeNanodegrees != nil && longitudeNanodegrees != nil }
    }

    /// All sixteen logs, each covered by every whole-log test (`bundg_zeus_9`, the hard case, also has
    /// its own test, `NMEAFixAssemblerCorpusTests.zeusCyclesFollowGpsd`).
    static let names = [
        "bt451", "bu353s4", "bundg_zeus_9", "foretrex-201", "garmin-geko201", "garmin25lp", "gpslim236", "haicom-305N",
        "hemi", "nmea-rtk", "quectel", "quectel-eg25-g", "skytraq", "telit-he910", "ublox-8", "ublox-lea-5h",
    ]

    let name: String
    /// The raw log, exactly as the receiver sent it.
    let log: [UInt8]
    let entries: [Entry]

    static var directory: URL {
        get throws {
            let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Corpus")
            return url
        }
    }

    static func load(_ name: String) throws -> NMEACorpus {
        let dir = try directory
        let log = try [UInt8](Data(contentsOf: dir.appendingPathComponent("\(name).log")))
        let chk = try String(decoding: Data(contentsOf: dir.appendingPathComponent("\(name).log.chk")), as: UTF8.self)
        var entries: [Entry] = []
        for raw in chk.split(whereSeparator: { $0.isNewline }) {
            let line = String(raw)
            if line.hasPrefix("{") {
                if line.hasPrefix("{\"class\":\"TPV\"") && !entries.isEmpty {
                    entries[entries.count - 1].reports.append(parseReport(line))
                }
            } else {
                entries.append(Entry(sentence: line))
            }
        }
        return NMEACorpus(name: name, log: log, entries: entries)
    }

    /// The sentence lines of a log (not its `.chk`), in order, without line endings. Reads only the log.
    static func logSentences(_ name: String) throws -> [String] {
        let log = try Data(contentsOf: directory.appendingPathComponent("\(name).log"))
        return String(decoding: log, as: UTF8.self)
            .split(whereSeparator: { $0.isNewline })
            .map(String.init)
            .filter { $0.hasPrefix("$") || $0.hasPrefix("!") }
    }

    private static func parseReport(_ json: String) -> Report {
        Report(mode: token(json, "mode").flatMap { Int($0) },
               latitudeNanodegrees: token(json, "lat").flatMap(nanodegrees),
               longitudeNanodegrees: token(json, "lon").flatMap(nanodegrees),
               time: token(json, "time").map { String($0.dropFirst().dropLast()) },
               speed: token(json, "speed").flatMap { Double($0) },
               altitudeMSL: token(json, "altMSL").flatMap { Double($0) },
               track: token(json, "track").flatMap { Double($0) },
               eph: token(json, "eph").flatMap { Double($0) })
    }

    /// The raw text of a top-level JSON value `"key":value` (numbers and strings without commas).
    private static func token(_ json: String, _ key: String) -> String? {
        guard let range = json.range(of: "\"\(key)\":") else { return nil }
        let rest = json[range.upperBound...]
        let end = rest.firstIndex(where: { $0 == "," || $0 == "}" }) ?? rest.endIndex
        return String(rest[..<end])
    }

    /// `-37.784788333` → -37784788333. gpsd always prints exactly 9 decimals.
    private static func nanodegrees(_ text: String) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = text.drop { $0 == "-" }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 9, let whole = Int64(parts[0]), let fraction = Int64(parts[1])
        else { return nil }
        let value = whole * 1_000_000_000 + fraction
        return negative ? -value : value
    }
}
