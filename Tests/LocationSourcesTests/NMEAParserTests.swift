import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// The parser on hand-made lines: every way a line can be wrong, and every field rule.
struct NMEAParserTests {
    let strict = NMEAParser()
    let lenient = NMEAParser(options: .lenient)

    /// `body` with its correct checksum.
    func sentence(_ body: String) -> String { NMEAChecksum.sentence(body) }

    func error(_ line: String, _ parser: NMEAParser = NMEAParser()) -> NMEAParseError? {
        do {
            _ = try parser.parse(line)
            return nil
        } catch {
            return error
        }
    }

    static let gga = "GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"

    // MARK: Framing and checksum

    @Test func checksumIsVerified() throws {
        let good = sentence(Self.gga)
        #expect(throws: Never.self) { try strict.parse(good) }
        // One damaged digit in the body: the checksum catches it.
        let damaged = good.replacingOccurrences(of: "4807.038", with: "4807.039")
        #expect(error(damaged) == .checksumMismatch(expected: 0x69, computed: 0x68))
        // The real sentence from the corpus, and one with its checksum off by one.
        #expect(throws: Never.self) {
            try strict.parse("$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D")
        }
        #expect(error("$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7E")
                == .checksumMismatch(expected: 0x7E, computed: 0x7D))
    }

    @Test func checksumMustBeTwoUppercaseHexDigitsAtTheEnd() {
        let good = sentence(Self.gga)  // …*69
        let body = good.dropLast(2)
        #expect(error(body + "6G") == .malformedChecksum)
        #expect(error(body + "G9") == .malformedChecksum)
        #expect(error(body + "ZZ") == .malformedChecksum)
        #expect(error(body + "6") == .malformedChecksum)
        #expect(error(body + "699") == .malformedChecksum)
        #expect(error(body + "69 ") == .malformedChecksum)
        #expect(error(String(body)) == .malformedChecksum)
        #expect(error(body + "-9") == .malformedChecksum)
        // Lowercase is outside the standard's 0-9A-F: strict rejects, lenient accepts.
        let lower = "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7d"
        #expect(error(lower) == .malformedChecksum)
        #expect(error(lower, lenient) == nil)
    }

    @Test func lineEndingsAreAllowedButNothingElseAround() {
        let good = sentence(Self.gga)
        #expect(error(good + "\r\n") == nil)
        #expect(error(good + "\n") == nil)
        #expect(error(good + "\r") == nil)
        #expect(error(" " + good) == .missingStartDelimiter)
        #expect(error("x" + good) == .missingStartDelimiter)
    }

    @Test func missingDollarIsRejected() {
        #expect(error(String(sentence(Self.gga).dropFirst())) == .missingStartDelimiter)
        // The cut-off start of a real corpus line (foretrex-201.log line 62).
        #expect(error("4.4343,N,01025.5386,E,200002,A,D*48") == .missingStartDelimiter)
    }

    @Test func doubleDollarIsRejectedByTheParser() {
        // A single line with two starts: the second `$` is not allowed inside a sentence. (The stream
        // reader, which sees the bytes arrive, restarts at the second `$` instead; see its tests.)
        #expect(error("$" + sentence(Self.gga)) == .invalidCharacter(UInt8(ascii: "$"), offset: 1))
        #expect(error("$$") == .invalidCharacter(UInt8(ascii: "$"), offset: 1))
        #expect(error("$") == .missingChecksum)
    }

    @Test func missingChecksumOnlyInLenientMode() throws {
        let bare = "$" + Self.gga
        #expect(error(bare) == .missingChecksum)
        let sentence = try lenient.parse(bare)
        #expect(sentence.fixCoordinate != nil)
        // Lenient still verifies a checksum that is there.
        #expect(error(bare + "*00", lenient) == .checksumMismatch(expected: 0, computed: 0x69))
        // And still insists on the full field count, its only guard against a cut-off line.
        #expect(error("$GPGGA,123519.00,4807.038,N,01131.0", lenient)
                == .tooFewFields(sentence: "GPGGA", count: 5, required: 15))
    }

    @Test func truncatedLinesAreRejected() {
        let good = sentence(Self.gga)
        // Cut anywhere: without the checksum it is missing, with part of it malformed.
        for length in 1..<good.count {
            let cut = String(good.prefix(length))
            let e = error(cut)
            #expect(e != nil, "\(cut) accepted")
        }
        // The cut-off last line of ublox-8.log, in both modes.
        let tail = "$GNRMC,001053.00,A,4404.14083,N,12118.85886,W,0."
        #expect(error(tail) == .missingChecksum)
        #expect(error(tail, lenient) == .tooFewFields(sentence: "GNRMC", count: 8, required: 12))
    }

    @Test func longGarbageIsRejectedQuickly() {
        var junk = "$GPGGA,"
        while junk.count < 200 { junk += "1234567890," }
        #expect(error(junk) == .tooLong(length: junk.count, limit: 120))
        let binary = String(decoding: [UInt8](repeating: 0xB5, count: 200), as: UTF8.self)
        #expect(error(binary) == .missingStartDelimiter)
        var bytes: [UInt8] = [UInt8(ascii: "$")]
        bytes += (0..<199).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(throws: NMEAParseError.self) { try strict.parse(bytes) }
        // A real 94-byte sentence (skytraq's PSTI) is within the limit.
        #expect(error("$PSTI,030,212406.000,V,0000.0000000,N,00000.0000000,E,0.000,0.00,0.00,0.00,280316,N,0.0,0.0*01") == nil)
    }

    @Test func controlAndEightBitBytesAreRejected() {
        let good = Array(sentence(Self.gga).utf8)
        for bad: UInt8 in [0x00, 0x07, 0x09, 0x7F, 0x80, 0xFF] {
            var bytes = good
            bytes[10] = bad
            #expect(throws: NMEAParseError.invalidCharacter(bad, offset: 10)) { try strict.parse(bytes) }
        }
    }

    @Test func emptyInput() {
        #expect(error("") == .empty)
        #expect(error("\r\n") == .empty)
    }

    @Test func addressMustBeUppercaseAlphanumeric() {
        #expect(error(sentence("gpGGA,1")) == .malformedAddress)
        #expect(error(sentence(",1,2")) == .malformedAddress)
        #expect(error(sentence("G,1")) == .malformedAddress)
        #expect(error(sentence("GP-GA,1")) == .malformedAddress)
    }

    // MARK: Sentences we skip

    @Test func proprietaryAISAndUnknownSentencesAreOther() throws {
        #expect(try strict.parse("$PGRME,15.0,M,22.5,M,27.0,M*1A") == .other(address: "PGRME"))
        #expect(try strict.parse("$PSTI,030,212406.000,V,0000.0000000,N,00000.0000000,E,0.000,0.00,0.00,0.00,280316,N,0.0,0.0*01")
                == .other(address: "PSTI"))
        #expect(try strict.parse(sentence("PUBX,00,000941.00")) == .other(address: "PUBX"))
        #expect(try strict.parse("!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C") == .other(address: "AIVDM"))
        #expect(try strict.parse("$GPGSV,1,1,00*79") == .other(address: "GPGSV"))
        #expect(try strict.parse("$GPTXT,01,01,02,ANTSTATUS=OK*3B") == .other(address: "GPTXT"))
        #expect(try strict.parse(sentence("GPACCURACY,961.2")) == .other(address: "GPACCURACY"))
        // Quectel's `$PQGSV`: proprietary despite looking like a talker.
        #expect(try strict.parse(sentence("PQGSV,1,1,00")) == .other(address: "PQGSV"))
        // Skipped sentences are still checksum-verified.
        #expect(error("$PGRME,15.0,M,22.5,M,27.0,M*1B") != nil)
    }

    // MARK: Talkers

    @Test func everyTalkerDecodes() throws {
        let talkers = ["GP", "GN", "GL", "GA", "BD", "GB", "GI", "GQ", "QZ"]
        for talker in talkers {
            let s = try strict.parse(sentence(talker + Self.gga.dropFirst(2)))
            guard case .gga(let gga) = s else {
                Issue.record("\(talker) not decoded as GGA")
                continue
            }
            #expect(gga.talker.rawValue == talker)
            #expect(s.fixCoordinate != nil)
            #expect(s.address == talker + "GGA")
        }
        #expect(NMEATalker("GB").system == .beidou)
        #expect(NMEATalker("BD").system == .beidou)
        #expect(NMEATalker("QZ").system == .qzss)
        #expect(NMEATalker("GQ").system == .qzss)
        #expect(NMEATalker("GI").system == .navic)
        #expect(NMEATalker("GN").system == .combined)
        #expect(NMEATalker("II").system == .other)
    }

    // MARK: Field values

    @Test func ggaFields() throws {
        guard case .gga(let gga) = try strict.parse(sentence(Self.gga)) else {
            Issue.record("not GGA")
            return
        }
        #expect(gga.time == NMEATimeOfDay(hour: 12, minute: 35, second: 19))
        #expect(gga.coordinate == Coordinate(latitude: 48 + 7.038 / 60, longitude: 11 + 31.0 / 60))
        #expect(gga.quality == .gps)
        #expect(gga.satellitesInUse == 8)
        #expect(gga.hdop == 0.9)
        #expect(gga.altitudeMSL == 545.4)
        #expect(gga.geoidSeparation == 46.9)
    }

    @Test func anglesAreExactlyRounded() throws {
        // 8-digit minutes (nmea-rtk): the result must be the double nearest to the exact decimal.
        guard case .gga(let gga) = try strict.parse(
            "$GNGGA,132819.60,4134.49795459,N,09345.03431408,W,2,10,0.9,278.161,M,-31.442,M,6.6,0133*6A")
        else {
            Issue.record("not GGA")
            return
        }
        #expect(gga.coordinate?.latitude == 249_449_795_459.0 / 6_000_000_000.0)
        #expect(gga.coordinate?.longitude == -(562_503_431_408.0 / 6_000_000_000.0))
        #expect(gga.quality == .differential)
    }

    @Test func hemispheresGiveSigns() throws {
        let s = try strict.parse("$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D")
        #expect((s.fixCoordinate?.latitude ?? 0) < 0)
        #expect((s.fixCoordinate?.longitude ?? 0) > 0)
        let w = try strict.parse("$GNGLL,4404.13387,N,12118.85628,W,000941.00,A,A*69")
        #expect((w.fixCoordinate?.latitude ?? 0) > 0)
        #expect((w.fixCoordinate?.longitude ?? 0) < 0)
    }

    @Test func emptyFieldsAreUnknownNeverZero() throws {
        guard case .gga(let gga) = try strict.parse("$GPGGA,,,,,,0,,,,M,,M,,*66") else {
            Issue.record("not GGA")
            return
        }
        #expect(gga.time == nil && gga.coordinate == nil && gga.satellitesInUse == nil)
        #expect(gga.hdop == nil && gga.altitudeMSL == nil && gga.geoidSeparation == nil)
        #expect(gga.quality == .invalid && !gga.hasFix)

        guard case .rmc(let rmc) = try strict.parse("$GPRMC,,V,,,,,,,,,,N*53") else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.time == nil && rmc.coordinate == nil && rmc.speedKnots == nil && rmc.courseTrue == nil)
        #expect(rmc.date == nil && rmc.magneticVariation == nil && rmc.mode == .notValid && !rmc.isActive)

        guard case .vtg(let vtg) = try strict.parse("$GPVTG,,T,,M,,N,,K,N*2C") else {
            Issue.record("not VTG")
            return
        }
        #expect(vtg.courseTrue == nil && vtg.speedKnots == nil && vtg.speedMetresPerSecond == nil)

        guard case .gsa(let gsa) = try strict.parse("$GPGSA,A,1,,,,,,,,,,,,,,,*1E") else {
            Issue.record("not GSA")
            return
        }
        #expect(gsa.fixType == 1 && gsa.satellites.isEmpty && gsa.pdop == nil && gsa.hdop == nil && gsa.vdop == nil)

        guard case .zda(let zda) = try strict.parse("$GPZDA,,,,,00,00*48") else {
            Issue.record("not ZDA")
            return
        }
        #expect(zda.time == nil && zda.date == nil)

        // A position with an empty hemisphere has no sign: unknown.
        guard case .gll(let gll) = try strict.parse(sentence("GPGLL,4807.038,,01131.000,E,123519,A,A")) else {
            Issue.record("not GLL")
            return
        }
        #expect(gll.coordinate == nil && gll.fixCoordinate == nil)
    }

    @Test func zeroFilledFieldsAreUnknown() throws {
        // skytraq.log, cold start: every number zero-filled.
        let lines = [
            "$GPGGA,212406.000,0000.0000000,N,00000.0000000,E,0,00,0.0,0.000,M,0.000,M,,0000*6E",
            "$GPGLL,0000.0000000,N,00000.0000000,E,212406.000,V,N*42",
            "$GPRMC,212406.000,V,0000.0000000,N,00000.0000000,E,000.0,000.0,280316,,,N*7B",
            "$GPGSA,A,1,,,,,,,,,,,,,0.0,0.0,0.0*30",
            "$GPGST,212406.000,,,,,,,*4A",
        ]
        for line in lines {
            let s = try strict.parse(line)
            #expect(s.fixCoordinate == nil, "\(line)")
            switch s {
            case .gga(let gga): #expect(gga.coordinate == nil && gga.hdop == nil)
            case .gll(let gll): #expect(gll.coordinate == nil)
            case .rmc(let rmc): #expect(rmc.coordinate == nil)
            case .gsa(let gsa): #expect(gsa.pdop == nil && gsa.hdop == nil && gsa.vdop == nil)
            case .gst(let gst): #expect(gst.horizontalError == nil && gst.altitudeError == nil)
            default: Issue.record("unexpected \(s)")
            }
        }
        // A zero-filled date is unknown, and BT-451's 99.99 "no DOP" too.
        guard case .rmc(let rmc) = try strict.parse(sentence("GPRMC,000000.00,V,,,,,,,000000,,,N")) else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.date == nil)
        guard case .gga(let gga) = try strict.parse("$GPGGA,,,,,,0,00,99.99,,,,,,*48") else {
            Issue.record("not GGA")
            return
        }
        #expect(gga.hdop == nil)
        // But a latitude of exactly 0 with a real longitude is the equator, not "unknown".
        let equator = try strict.parse(sentence("GPGLL,0000.000,N,03000.000,E,120000,A,A"))
        #expect(equator.fixCoordinate == Coordinate(latitude: 0, longitude: 30))
        // Speed 0 of a valid fix is standing still, not unknown.
        guard case .rmc(let still) = try strict.parse(sentence("GPRMC,120000,A,4807.038,N,01131.000,E,0.00,,230394,,,A"))
        else {
            Issue.record("not RMC")
            return
        }
        #expect(still.speedKnots == 0 && still.courseTrue == nil)
    }

    @Test func validityFromStatusQualityAndModes() throws {
        func fix(_ body: String) throws -> Bool { try strict.parse(sentence(body)).fixCoordinate != nil }
        let position = "4807.038,N,01131.000,E"
        #expect(try fix("GPRMC,120000,A,\(position),0.0,0.0,230394,,"))            // NMEA 2.0, no mode
        #expect(try !fix("GPRMC,120000,V,\(position),0.0,0.0,230394,,"))
        #expect(try !fix("GPRMC,120000,A,\(position),0.0,0.0,230394,,,N"))         // status A but mode N
        #expect(try fix("GPRMC,120000,A,\(position),0.0,0.0,230394,,,D"))
        #expect(try fix("GPRMC,120000,A,\(position),0.0,0.0,230394,18.3,E,A,V"))   // Quectel nav status V
        #expect(try fix("GPGLL,\(position),120000,A,A"))
        #expect(try !fix("GPGLL,\(position),120000,V,A"))
        #expect(try !fix("GPGLL,\(position),120000,A,N"))
        for quality in 1...8 { #expect(try fix("GPGGA,120000,\(position),\(quality),08,0.9,545.4,M,46.9,M,,")) }
        #expect(try !fix("GPGGA,120000,\(position),0,08,0.9,545.4,M,46.9,M,,"))
        #expect(try !fix("GPGGA,120000,\(position),,08,0.9,545.4,M,46.9,M,,"))       // no quality: no claim
        #expect(error(sentence("GPGGA,120000,\(position),9,08,0.9,545.4,M,46.9,M,,"))
                == .invalidField(sentence: "GPGGA", index: 6))
        #expect(try fix("GNGNS,120000,\(position),AAN,08,1.3,-6.7,32.0,,,V"))
        #expect(try fix("GNGNS,120000,\(position),NDN,08,1.3,-6.7,32.0,,,V"))
        #expect(try !fix("GNGNS,120000,\(position),NNN,08,1.3,-6.7,32.0,,,V"))
    }

    @Test func malformedFieldsRejectTheSentence() {
        let cases: [(String, Int)] = [
            ("GPGGA,123519,48O7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),  // letter O
            ("GPGGA,123519,4807.038,X,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 3),  // hemisphere
            ("GPGGA,123519,4867.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),  // 67 minutes
            ("GPGGA,123519,9107.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),  // 91°
            ("GPGGA,123519,4807.038,N,18131.000,E,1,08,0.9,545.4,M,46.9,M,,", 4),  // 181°
            ("GPGGA,123519,4807.0.38,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),
            ("GPGGA,126019,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 1),  // 60 minutes
            ("GPGGA,12351,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 1),   // 5-digit time
            ("GPGGA,123519,4807.038,N,01131.000,E,1,0x,0.9,545.4,M,46.9,M,,", 7),
            ("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,5-45.4,M,46.9,M,,", 9),
            ("GPRMC,120000,A,4807.038,N,01131.000,E,0.0,0.0,310294,,", 9),           // 31 February
            ("GPRMC,120000,A,4807.038,N,01131.000,E,0.0,0.0,231394,,", 9),           // month 13
            ("GPRMC,120000,X,4807.038,N,01131.000,E,0.0,0.0,230394,,", 2),
        ]
        for (body, index) in cases {
            let address = String(body.prefix(5))
            #expect(error(sentence(body)) == .invalidField(sentence: address, index: index), "\(body)")
        }
    }

    @Test func datesAndTimes() throws {
        guard case .rmc(let rmc) = try strict.parse("$GNRMC,132819.60,A,4134.49795459,N,09345.03431408,W,0.148,124.888,180320,11.5985,E,D*3F")
        else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.time == NMEATimeOfDay(hour: 13, minute: 28, second: 19, nanosecond: 600_000_000))
        #expect(rmc.date == NMEADate(year: 2020, month: 3, day: 18))
        #expect(rmc.magneticVariation == 11.5985)
        #expect(rmc.mode == .differential)
        #expect(rmc.speedKnots == 0.148 && rmc.courseTrue == 124.888)
        // Two-digit years pivot at 80: GPS began in 1980.
        #expect(NMEADate.expandTwoDigitYear(99) == 1999)
        #expect(NMEADate.expandTwoDigitYear(80) == 1980)
        #expect(NMEADate.expandTwoDigitYear(79) == 2079)
        #expect(NMEADate.expandTwoDigitYear(5) == 2005)
        // ZDA has the century.
        guard case .zda(let zda) = try strict.parse("$GPZDA,193913.00,07,09,2018,00,00*63") else {
            Issue.record("not ZDA")
            return
        }
        #expect(zda.date == NMEADate(year: 2018, month: 9, day: 7))
        #expect(zda.time == NMEATimeOfDay(hour: 19, minute: 39, second: 13))
        let date = try #require(zda.date).date(at: try #require(zda.time))
        #expect(date == Date(timeIntervalSince1970: 1_536_349_153))
        // Leap second 23:59:60 is a valid time.
        #expect(NMEATimeOfDay(hour: 23, minute: 59, second: 60) != nil)
        #expect(NMEADate(year: 2024, month: 2, day: 29) != nil)
        #expect(NMEADate(year: 2023, month: 2, day: 29) == nil)
        #expect(NMEADate(year: 1999, month: 12, day: 31)?.next == NMEADate(year: 2000, month: 1, day: 1))
    }

    @Test func gsaGstVtgFields() throws {
        guard case .gsa(let gsa) = try strict.parse("$GNGSA,A,3,80,70,73,79,69,71,,,,,,,1.71,1.01,1.38*1D") else {
            Issue.record("not GSA")
            return
        }
        #expect(gsa.isAutomatic == true && gsa.fixType == 3 && gsa.satellites == [80, 70, 73, 79, 69, 71])
        #expect(gsa.pdop == 1.71 && gsa.hdop == 1.01 && gsa.vdop == 1.38 && gsa.systemID == nil)
        guard case .gsa(let v41) = try strict.parse("$GPGSA,A,2,06,07,11,19,22,28,30,,,,,,1.4,1.1,0.8,1*23") else {
            Issue.record("not GSA")
            return
        }
        #expect(v41.systemID == 1 && v41.fixType == 2 && v41.hdop == 1.1)
        guard case .vtg(let vtg) = try strict.parse("$GPVTG,296.61,T,,M,0.00,N,0.0,K,A*07") else {
            Issue.record("not VTG")
            return
        }
        #expect(vtg.courseTrue == 296.61 && vtg.speedMetresPerSecond == 0 && vtg.mode == .autonomous)
        guard case .gst(let gst) = try strict.parse(sentence("GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031")) else {
            Issue.record("not GST")
            return
        }
        #expect(abs((gst.horizontalError ?? 0) - (0.023 * 0.023 + 0.020 * 0.020).squareRoot()) < 1e-12)
        #expect(gst.altitudeError == 0.031)
    }
}
