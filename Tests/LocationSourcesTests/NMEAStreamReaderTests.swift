import Foundation
import Testing
@testable import LocationSources

/// Framing: chunks of any size, junk, restarts, over-long lines, line numbers.
struct NMEAStreamReaderTests {
    func decodeWhole(_ bytes: [UInt8]) -> [NMEALocationDecoder.Output] {
        var decoder = NMEALocationDecoder(assembler: .init(clock: { Date(timeIntervalSince1970: 0) }))
        return decoder.decode(bytes) + decoder.finish()
    }

    func decodeChunked(_ bytes: [UInt8], random: inout NMEATestRandom, maximumChunk: Int) -> [NMEALocationDecoder.Output] {
        var decoder = NMEALocationDecoder(assembler: .init(clock: { Date(timeIntervalSince1970: 0) }))
        var outputs: [NMEALocationDecoder.Output] = []
        var offset = 0
        while offset < bytes.count {
            let size = min(bytes.count - offset, 1 + random.below(maximumChunk))
            outputs += decoder.decode(bytes[offset..<(offset + size)])
            offset += size
        }
        return outputs + decoder.finish()
    }

    @Test(arguments: NMEACorpus.names)
    func randomChunksGiveTheSameFixesAsWholeLogs(name: String) throws {
        let log = try NMEACorpus.load(name).log
        let whole = decodeWhole(log)
        var random = NMEATestRandom(seed: 0x5EED_0000 + UInt64(name.utf8.count))
        for maximumChunk in [1, 3, 17, 100, 4096] {
            let chunked = decodeChunked(log, random: &random, maximumChunk: maximumChunk)
            #expect(chunked == whole, "\(name) in chunks of up to \(maximumChunk) bytes")
        }
        let fixes = whole.filter { if case .location = $0 { true } else { false } }
        if name != "skytraq" { #expect(!fixes.isEmpty) }
    }

    /// The corpus read whole: what gets rejected is exactly the damage the logs really contain.
    @Test func corpusRejectionsAreTheRealDamageOnly() throws {
        var rejected: [String: [String]] = [:]
        for name in NMEACorpus.names {
            for case .rejected(let error, let line, _) in decodeWhole(try NMEACorpus.load(name).log) {
                rejected[name, default: []].append("\(line): \(error)")
            }
        }
        #expect(rejected["garmin-geko201"] == ["224: checksum is not two hex digits at the end"])  // "$GPBOD,,T,,M,,*" at EOF
        #expect(rejected["ublox-8"] == ["1019: no *hh checksum"])                           // cut-off last line
        // The second gpscat sample (its header says the log is two) began mid-sentence: a GLL that lost
        // its head, which gpsd skips as well. ublox-8's line 11 of UBX binary is not reported.
        #expect(rejected["foretrex-201"] == ["62: does not start with '$' or '!'"])
        for (name, errors) in rejected where !["garmin-geko201", "ublox-8", "foretrex-201"].contains(name) {
            Issue.record("\(name): unexpected rejections \(errors)")
        }
    }

    @Test func commentLinesAreSkippedEvenWhenTheyMentionSentences() {
        var reader = NMEAStreamReader()
        let text = "# Note: Odd signal loss behavior with $GPGGA and $GPRMC.\r\n#\r\n$GPGLL,,,,,,V,N*64\r\n"
        let items = reader.read(Array(text.utf8))
        #expect(items.count == 1)
        if case .sentence(_, let line)? = items.first { #expect(line == 3) } else { Issue.record("\(items)") }
    }

    @Test func skippedSentencesDoNotDisturbTheFixes() throws {
        // Every line of a real log followed by AIS, a proprietary sentence, a TAG block, binary junk
        // and an empty line: the same fixes as the clean log.
        let log = try NMEACorpus.load("bu353s4").log
        let clean = decodeWhole(log)
        var noisy: [UInt8] = []
        for line in String(decoding: log, as: UTF8.self).split(whereSeparator: { $0.isNewline }) {
            noisy += Array(line.utf8) + [0x0D, 0x0A]
            noisy += Array("!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C\r\n".utf8)
            noisy += Array("$PGRME,15.0,M,22.5,M,27.0,M*1A\r\n".utf8)
            noisy += Array("\\s:2573345,c:1671620143*0B\\\r\n".utf8)
            noisy += [0xB5, 0x62, 0x01, 0x07, 0x0D, 0x0A, 0x0D, 0x0A]
        }
        let outputs = decodeWhole(noisy)
        #expect(outputs == clean)
        #expect(outputs.count == 25)
    }

    @Test func junkBeforeASentenceIsSkipped() {
        // ublox-8.log line 11: binary UBX bytes, then a sentence on the same line.
        var reader = NMEAStreamReader()
        var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x5C, 0x00, 0xFF, 0x80]
        bytes += Array("$GNRMC,000941.00,A,4404.13387,N,12118.85628,W,0.029,,100117,,,A*7D\r\n".utf8)
        let items = reader.read(bytes)
        #expect(items.count == 1)
        guard case .sentence(.rmc(let rmc), let line)? = items.first else {
            Issue.record("no RMC: \(items)")
            return
        }
        #expect(rmc.hasFix && line == 1)
    }

    /// A line of text with no sentence in it was skipped without a word, while a sentence with a bad
    /// checksum was reported: now it is reported too, with its line, whatever its length.
    @Test func textLinesWithoutASentenceAreRejected() {
        var reader = NMEAStreamReader()
        let garbage = String(repeating: "x7#@;", count: 40) + "\r\n"  // 200 bytes, no start delimiter
        var items = reader.read(Array(garbage.utf8))
        items += reader.read(Array("4.4343,N,01025.5386,E,200002,A,D*48\r\n".utf8))  // lost its head
        items += reader.read(Array("$GPGLL,,,,,,V,N*64\r\n  hello world".utf8))
        #expect(items.count == 3)
        #expect(items.first == .rejected(.missingStartDelimiter, line: 1, text: String(garbage.prefix(120))))
        #expect(items.dropFirst().first == .rejected(.missingStartDelimiter, line: 2, text: "4.4343,N,01025.5386,E,200002,A,D*48"))
        if case .sentence(_, 3)? = items.last {} else { Issue.record("\(items)") }
        // The last line, without a line end, at the end of the input.
        #expect(reader.finish() == [.rejected(.missingStartDelimiter, line: 4, text: "  hello world")])
        #expect(reader.currentLine == 4)
    }

    @Test func linesThatAreNoSentenceByDesignAreSilent() {
        var reader = NMEAStreamReader()
        let lines: [[UInt8]] = [
            [], Array("   \t ".utf8),                                            // empty and blank
            Array("{\"class\":\"TPV\",\"mode\":3}".utf8),                          // gpsd JSON (gpspipe -w -r)
            Array("\\s:2573345,c:1671620143*0B\\".utf8),                          // a TAG block on its own
            [0xB5, 0x62, 0x01, 0x07, 0x5C, 0x00, 0x41, 0x42],                   // a UBX frame
            Array("junk $GPGLL,,,,,,V,N*64".utf8),                                // junk before a sentence
            Array("# hello world".utf8),                                          // a comment
        ]
        var items: [NMEAStreamItem] = []
        for line in lines { items += reader.read(line + [0x0D, 0x0A]) }
        items += reader.finish()
        #expect(items.count == 1)
        if case .sentence(_, 6)? = items.first {} else { Issue.record("\(items)") }
        // A device that went away mid-line leaves no line to report.
        _ = reader.read(Array("hello wor".utf8))
        reader.discardPartialSentence()
        #expect(reader.finish().isEmpty)
    }

    @Test func aSecondDollarRestartsTheSentence() {
        var reader = NMEAStreamReader()
        // "$$": an empty sentence cut off, then a whole one.
        var items = reader.read(Array("$$GNGLL,4404.13387,N,12118.85628,W,000941.00,A,A*69\r\n".utf8))
        #expect(items.count == 2)
        #expect(items.first == .rejected(.truncated, line: 1, text: "$"))
        if case .sentence(let s, _)? = items.last { #expect(s.fixCoordinate != nil) } else { Issue.record("\(items)") }
        // A sentence that lost its tail, and the next one starting right there.
        items = reader.read(Array("$GPGGA,030719.000,3747.08$GNGLL,4404.13387,N,12118.85628,W,000941.00,A,A*69\n".utf8))
        #expect(items.count == 2)
        #expect(items.first == .rejected(.truncated, line: 2, text: "$GPGGA,030719.000,3747.08"))
        if case .sentence(let s, _)? = items.last { #expect(s.fixCoordinate != nil) } else { Issue.record("\(items)") }
    }

    @Test func overlongLinesAreCutOffOnceAndTheStreamRecovers() {
        var reader = NMEAStreamReader()
        let long = "$GPGGA," + String(repeating: "1234567890", count: 20) + "*00\r\n"
        var items = reader.read(Array(long.utf8))
        #expect(items.count == 1)
        guard case .rejected(.tooLong(let length, let limit), 1, let text)? = items.first else {
            Issue.record("\(items)")
            return
        }
        #expect(length == 121 && limit == 120 && text.count == 120)
        items = reader.read(Array("$GNGLL,4404.13387,N,12118.85628,W,000941.00,A,A*69\r\n".utf8))
        #expect(items.count == 1)
        if case .sentence(_, let line)? = items.first { #expect(line == 2) } else { Issue.record("\(items)") }
    }

    @Test func lineNumbersCountEveryKindOfLineEnd() {
        var reader = NMEAStreamReader()
        let text = "$GPGLL,,,,,,V,N*64\r\n$GPGLL,,,,,,V,N*64\n$GPGLL,,,,,,V,N*64\r$GPGLL,,,,,,V,N*64\r\n\r\n$GPGLL,,,,,,V,N*64"
        var items = reader.read(Array(text.utf8))
        items += reader.finish()
        let lines = items.compactMap { item -> Int? in
            if case .sentence(_, let line) = item { return line }
            return nil
        }
        #expect(lines == [1, 2, 3, 4, 6])
    }

    @Test func endOfInputParsesTheLastLineAsItIs() {
        var complete = NMEAStreamReader()
        #expect(complete.read(Array("$GPGLL,,,,,,V,N*64".utf8)).isEmpty)
        #expect(complete.finish().count == 1)
        var cut = NMEAStreamReader()
        #expect(cut.read(Array("$GPGLL,,,,,,V,N*6".utf8)).isEmpty)
        #expect(cut.finish() == [.rejected(.malformedChecksum, line: 1, text: "$GPGLL,,,,,,V,N*6")])
        var dropped = NMEAStreamReader()
        _ = dropped.read(Array("$GPGLL,,,,,,V,N*6".utf8))
        dropped.discardPartialSentence()
        #expect(dropped.finish().isEmpty)
    }
}
