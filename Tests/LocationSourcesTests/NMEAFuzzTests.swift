import Foundation
import Testing
@testable import LocationSources

/// Bounded random input (seeded, so a failure reproduces): the parser must never crash, and must
/// never return anything, let alone a position, for a line whose checksum is wrong.
///
/// Inputs are cheap to make: a buffer is reused, most inputs are real corpus sentences with one to
/// four mutations (replace, insert, delete, truncate, duplicate a run, splice two sentences), and a
/// third of those get their checksum recomputed so the damage reaches the field decoders instead of
/// stopping at the checksum. The rest are random bytes from an NMEA-flavoured alphabet.
struct NMEAFuzzTests {
    static let inputCount = 1_000_000

    /// Bytes that mean something to the parser, so mutations hit its branches rather than `invalidCharacter`.
    static let alphabet: [UInt8] = Array("0123456789,,,..**$!-ABCDEFNSEWVMKTPRGLZadf \r\n".utf8) + [0x00, 0x7F, 0xB5, 0xFF]

    @Test func randomAndMutatedSentences() throws {
        // The corpus's distinct sentences, flattened into one buffer.
        var seedBytes: [UInt8] = []
        var seedStarts: [Int] = []
        var seedLengths: [Int] = []
        var seen = Set<String>()
        for name in NMEACorpus.names {
            for line in try NMEACorpus.logSentences(name) where seen.insert(line).inserted {
                seedStarts.append(seedBytes.count)
                seedLengths.append(line.utf8.count)
                seedBytes += Array(line.utf8)
            }
        }
        let seedCount = seedStarts.count
        #expect(seedCount > 1000)

        let strict = NMEAParser()
        let lenient = NMEAParser(options: .lenient)
        var assembler = NMEAFixAssembler(configuration: .init(clock: { Date(timeIntervalSince1970: 1_600_000_000) }))
        var random = NMEATestRandom(seed: 0xF0221)
        var buffer = [UInt8](repeating: 0, count: 512)
        var stats = (accepted: 0, positions: 0, checksumFixed: 0, lenientAccepted: 0, locations: 0)
        var violations: [String] = []
        let alphabet = Self.alphabet

        let clock = ContinuousClock()
        let cpuStart = Self.threadCPUTime()
        let elapsed = clock.measure {
            seedBytes.withUnsafeBufferPointer { seeds in
                buffer.withUnsafeMutableBufferPointer { buf in
                    for _ in 0..<Self.inputCount {
                        var n = 0
                        if random.below(10) == 0 {
                            // Random bytes, eight per draw: mostly from the alphabet, some anything.
                            n = random.below(160)
                            var k = 0
                            var bits: UInt64 = 0
                            while k < n {
                                if k & 7 == 0 { bits = random.next() }
                                let byte = UInt8(truncatingIfNeeded: bits >> UInt64((k & 7) * 8))
                                buf[k] = byte & 3 == 0 ? byte : alphabet[Int(byte >> 2) % alphabet.count]
                                k += 1
                            }
                            if n > 0 && bits & 1 == 0 { buf[0] = 0x24 }  // '$'
                        } else {
                            let seed = random.below(seedCount)
                            n = seedLengths[seed]
                            buf.baseAddress!.update(from: seeds.baseAddress! + seedStarts[seed], count: n)
                            var mutations = random.below(4)
                            repeat {
                                n = Self.mutate(buf, n, &random, seeds, seedStarts, seedLengths)
                                mutations -= 1
                            } while mutations >= 0
                            if random.below(3) == 0 && Self.fixChecksum(buf, &n) { stats.checksumFixed += 1 }
                        }
                        let input = UnsafeBufferPointer(rebasing: buf[0..<n])

                        if case .success(let sentence) = strict.parseResult(input) {
                            stats.accepted += 1
                            if !Self.referenceChecksumIsGood(input, lenient: false) {
                                violations.append("strict accepted: \(Self.text(input))")
                            }
                            if let coordinate = sentence.fixCoordinate {
                                stats.positions += 1
                                if !coordinate.isValid || (coordinate.latitude == 0 && coordinate.longitude == 0) {
                                    violations.append("bad coordinate \(coordinate) from \(Self.text(input))")
                                }
                            }
                            // A sample goes on to the assembler, which must cope with any sequence.
                            for location in stats.accepted % 4 == 0 ? assembler.consume(sentence) : [] {
                                stats.locations += 1
                                if !location.coordinate.isValid || (location.isValid && !(location.horizontalAccuracy.isFinite)) {
                                    violations.append("bad location \(location)")
                                }
                            }
                        }
                        if random.below(8) == 0, case .success = lenient.parseResult(input) {
                            stats.lenientAccepted += 1
                            // Lenient accepts a missing checksum, never a wrong one.
                            if !Self.referenceChecksumIsGood(input, lenient: true) {
                                violations.append("lenient accepted: \(Self.text(input))")
                            }
                        }
                    }
                }
            }
        }
        let cpu = Self.threadCPUTime() - cpuStart
        print("NMEA fuzz: \(Self.inputCount) inputs in \(elapsed) (\(cpu) s of CPU): \(stats.accepted) accepted " +
              "(\(stats.positions) with a position, \(stats.checksumFixed) checksums recomputed), " +
              "\(stats.lenientAccepted) lenient accepts, \(stats.locations) assembled fixes")
        #expect(violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(5))")
        // The run must exercise the decoders, not only the checksum check.
        #expect(stats.positions > 10_000)
        #expect(stats.accepted > 100_000)
    }

    /// A noisy stream (mutated sentences, dropped and doubled line ends, binary bursts) through the
    /// stream reader and assembler: no crash, every fix a real coordinate, and the same result
    /// however the bytes are chunked.
    @Test func noisyStreamsDecodeTheSameInAnyChunking() throws {
        var seedBytes: [UInt8] = []
        var seedStarts: [Int] = []
        var seedLengths: [Int] = []
        for name in NMEACorpus.names {
            for line in try NMEACorpus.logSentences(name) {
                seedStarts.append(seedBytes.count)
                seedLengths.append(line.utf8.count)
                seedBytes += Array(line.utf8)
            }
        }
        var random = NMEATestRandom(seed: 0x5742_EA4D)
        var stream: [UInt8] = []
        var line = [UInt8](repeating: 0, count: 512)
        seedBytes.withUnsafeBufferPointer { seeds in
            line.withUnsafeMutableBufferPointer { buf in
                for _ in 0..<15_000 {
                    let seed = random.below(seedStarts.count)
                    var n = seedLengths[seed]
                    buf.baseAddress!.update(from: seeds.baseAddress! + seedStarts[seed], count: n)
                    if random.below(4) == 0 { n = Self.mutate(buf, n, &random, seeds, seedStarts, seedLengths) }
                    if random.below(12) == 0 { _ = Self.fixChecksum(buf, &n) }
                    stream += buf[0..<n]
                    switch random.below(20) {
                    case 0: break                                   // line end lost
                    case 1: stream += [0x0A]
                    case 2: stream += (0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    default: stream += [0x0D, 0x0A]
                    }
                }
            }
        }
        func decode(chunks maximum: Int) -> [NMEALocationDecoder.Output] {
            var decoder = NMEALocationDecoder(assembler: .init(clock: { Date(timeIntervalSince1970: 1_600_000_000) }))
            var outputs: [NMEALocationDecoder.Output] = []
            var offset = 0
            while offset < stream.count {
                let size = min(stream.count - offset, 1 + random.below(maximum))
                outputs += decoder.decode(stream[offset..<(offset + size)])
                offset += size
            }
            return outputs + decoder.finish()
        }
        let whole = decode(chunks: stream.count)
        let locations = whole.compactMap { output -> Location? in
            if case .location(let location) = output { return location }
            return nil
        }
        #expect(locations.count > 500)
        #expect(locations.allSatisfy { $0.coordinate.isValid })
        #expect(decode(chunks: 700) == whole)
        print("NMEA noisy stream: \(stream.count) bytes, \(whole.count - locations.count) rejections, \(locations.count) fixes")
    }

    // MARK: Generator

    /// One mutation of `buf[0..<n]`; returns the new length (at most 300).
    static func mutate(_ buf: UnsafeMutableBufferPointer<UInt8>, _ n: Int, _ random: inout NMEATestRandom,
                       _ seeds: UnsafeBufferPointer<UInt8>, _ seedStarts: [Int], _ seedLengths: [Int]) -> Int {
        var n = n
        switch random.below(7) {
        case 0, 1:  // replace a byte
            if n > 0 { buf[random.below(n)] = alphabet[random.below(alphabet.count)] }
        case 2:  // insert a byte
            if n < 300 {
                let at = random.below(n + 1)
                (buf.baseAddress! + at + 1).update(from: buf.baseAddress! + at, count: n - at)
                buf[at] = alphabet[random.below(alphabet.count)]
                n += 1
            }
        case 3:  // delete a byte
            if n > 0 {
                let at = random.below(n)
                (buf.baseAddress! + at).update(from: buf.baseAddress! + at + 1, count: n - at - 1)
                n -= 1
            }
        case 4:  // truncate
            if n > 0 { n = random.below(n) }
        case 5:  // duplicate a run (fields repeated, sentence too long)
            if n > 0 {
                let from = random.below(n), length = min(random.below(20) + 1, n - from, 300 - n)
                if length > 0 {
                    (buf.baseAddress! + n).update(from: buf.baseAddress! + from, count: length)
                    n += length
                }
            }
        default:  // splice: the tail of another sentence after a random cut
            let other = random.below(seedStarts.count)
            let cut = random.below(n + 1), from = random.below(seedLengths[other])
            let length = min(seedLengths[other] - from, 300 - cut)
            (buf.baseAddress! + cut).update(from: seeds.baseAddress! + seedStarts[other] + from, count: length)
            n = cut + length
        }
        return n
    }

    /// Rewrites the checksum after the first `*` (appending `*hh` when there is none) to match.
    static func fixChecksum(_ buf: UnsafeMutableBufferPointer<UInt8>, _ n: inout Int) -> Bool {
        guard n > 1 else { return false }
        var star = 1
        while star < n && buf[star] != UInt8(ascii: "*") { star += 1 }
        guard star + 3 <= 300 else { return false }
        var sum: UInt8 = 0
        var k = 1
        while k < star { sum ^= buf[k]; k += 1 }
        buf[star] = 0x2A  // '*'
        buf[star + 1] = hexDigit(sum >> 4)
        buf[star + 2] = hexDigit(sum & 15)
        n = star + 3
        return true
    }

    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }

    // MARK: Reference check, written independently of the parser

    /// Whether `line` (optionally ending in CR/LF) is `$…*hh` or `!…*hh` with `hh` the XOR of the
    /// bytes between (uppercase hex); `lenient` also passes lowercase hex and a line with no `*` at all.
    static func referenceChecksumIsGood(_ line: UnsafeBufferPointer<UInt8>, lenient: Bool) -> Bool {
        var end = line.count
        while end > 0 && (line[end - 1] == 13 || line[end - 1] == 10) { end -= 1 }
        guard end > 0, line[0] == 36 || line[0] == 33 else { return false }
        var star = 1
        var sum: UInt8 = 0
        while star < end && line[star] != 42 { sum ^= line[star]; star += 1 }
        if star == end { return lenient }
        guard end == star + 3 else { return false }
        guard let high = hexValue(line[star + 1], lenient), let low = hexValue(line[star + 2], lenient) else { return false }
        return high << 4 | low == sum
    }

    static func hexValue(_ c: UInt8, _ lowercase: Bool) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102 where lowercase: return c - 87
        default: return nil
        }
    }

    /// CPU time of this thread, seconds: what the loop costs, whatever else the machine is doing.
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
