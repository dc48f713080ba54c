// libFuzzer harness: a byte stream (what a serial port or a log file delivers) through
// NMEAStreamReader and NMEALocationDecoder.
//
// Invariants:
// - chunking never matters: the input fed whole and fed in pieces (sizes from the input's first
//   byte) gives the same items and the same locations;
// - the reader frames exactly as a reference framer written here does (lines end at CR/LF, `#`
//   starts a comment line, `$`/`!` starts a sentence and cuts the one before it short, a sentence
//   longer than the limit is rejected once, a line of text without `$`/`!` is rejected unless it is
//   blank, binary, a TAG block or JSON): same number of items, same line numbers, and every
//   sentence it accepts has a correct checksum by the reference's own XOR;
// - every location the decoder reports carries a position that an accepted sentence in the stream
//   contained, a valid one is really valid (finite, in range, an accuracy that is non-negative or the
//   assembler's -1 for a cycle without HDOP or GST: unknown, never another negative), and timestamps
//   are finite.
import Foundation
@testable import LocationSources
import GeoModel

private let parser = NMEAParser()
private let fixedClock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }

/// One framed sentence as the reference sees it: the bytes from its delimiter, its 1-based line, and
/// whether it was cut short by the next delimiter or ran past the limit; or a line of text with no
/// sentence in it (`stray`).
private struct Framed {
    var text: [UInt8]
    var line: Int
    var truncated: Bool
    var overlong: Bool
    var stray = false
}

private func referenceFrames(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> [Framed] {
    var frames: [Framed] = []
    var line = 1
    var i = 0
    while i <= input.count {
        // One line: up to CR or LF (or the end).
        var end = i
        while end < input.count, input[end] != 0x0A, input[end] != 0x0D { end += 1 }
        if end > i, input[i] != UInt8(ascii: "#") {
            var current: [UInt8]? = nil
            var overlong = false
            var sawDelimiter = false
            for k in i..<end {
                let b = input[k]
                if b == UInt8(ascii: "$") || b == UInt8(ascii: "!") {
                    sawDelimiter = true
                    if let c = current, !overlong { frames.append(Framed(text: c, line: line, truncated: true, overlong: false)) }
                    current = [b]
                    overlong = false
                } else if current != nil, !overlong {
                    current!.append(b)
                    if current!.count > limit {
                        frames.append(Framed(text: current!, line: line, truncated: false, overlong: true))
                        overlong = true
                    }
                }
            }
            if let c = current, !overlong { frames.append(Framed(text: c, line: line, truncated: false, overlong: false)) }
            let body = input[i..<end]
            if !sawDelimiter, !body.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }),
               let lead = body.first(where: { $0 != 0x20 && $0 != 0x09 }),
               lead != UInt8(ascii: "{"), lead != UInt8(ascii: "\\") {
                frames.append(Framed(text: Array(body), line: line, truncated: false, overlong: false, stray: true))
            }
        }
        if end >= input.count { break }
        // CR LF is one line ending; a lone CR or LF is one too.
        if input[end] == 0x0D, end + 1 < input.count, input[end + 1] == 0x0A { i = end + 2 } else { i = end + 1 }
        line += 1
    }
    return frames
}

private func checksumIsRight(_ text: [UInt8]) -> Bool {
    guard let star = text.firstIndex(of: UInt8(ascii: "*")), text.count - star == 3,
          let value = UInt8(String(decoding: text[(star + 1)...], as: UTF8.self), radix: 16),
          text[(star + 1)...].allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x46).contains($0) })
    else { return false }
    return text[1..<star].reduce(0, ^) == value
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let seed = UInt64(data[0]) &* 0x9E37_79B9_7F4A_7C15
    let input = bytes(data + 1, size - 1)

    // Reader: whole, then chunked.
    var whole = NMEAStreamReader(parser: parser)
    let items = whole.read(input) + whole.finish()
    var pieces = NMEAStreamReader(parser: parser)
    var chunkedItems: [NMEAStreamItem] = []
    for r in Chunker(count: input.count, seed: seed, maximum: Int(data[0] % 97) + 1) {
        chunkedItems += pieces.read(UnsafeBufferPointer(rebasing: input[r]))
    }
    chunkedItems += pieces.finish()
    check(items == chunkedItems, "chunking changed the items: \(items.count) vs \(chunkedItems.count)")

    // Against the reference framer.
    let frames = referenceFrames(input, limit: parser.options.maximumLength)
    check(frames.count == items.count, "reader gave \(items.count) items, reference framed \(frames.count): \(excerpt(input))")
    var accepted: [Coordinate] = []
    for (item, frame) in zip(items, frames) {
        switch item {
        case .sentence(let sentence, let line):
            check(line == frame.line, "sentence on line \(line), reference says \(frame.line)")
            check(!frame.truncated && !frame.overlong && !frame.stray, "accepted a sentence the reference cut: \(excerpt(frame.text))")
            check(checksumIsRight(frame.text), "accepted a sentence with a wrong checksum: \(excerpt(frame.text))")
            if let c = sentence.fixCoordinate { accepted.append(c) }
            switch sentence {
            case .gga(let s): if let c = s.coordinate { accepted.append(c) }
            case .rmc(let s): if let c = s.coordinate { accepted.append(c) }
            case .gll(let s): if let c = s.coordinate { accepted.append(c) }
            case .gns(let s): if let c = s.coordinate { accepted.append(c) }
            default: break
            }
        case .rejected(let error, let line, _):
            check(line == frame.line, "rejection on line \(line), reference says \(frame.line)")
            if frame.truncated { check(error == .truncated, "cut sentence reported as \(error)") }
            if frame.stray { check(error == .missingStartDelimiter, "text line without a sentence reported as \(error)") }
            if frame.overlong { check({ if case .tooLong = error { return true } else { return false } }(), "overlong sentence reported as \(error)") }
        }
    }

    // Decoder: locations only from accepted positions; chunking changes nothing.
    var decoder = NMEALocationDecoder(parser: parser, assembler: .init(clock: fixedClock))
    let outputs = decoder.decode(input) + decoder.finish()
    var chunkedDecoder = NMEALocationDecoder(parser: parser, assembler: .init(clock: fixedClock))
    var chunkedOutputs: [NMEALocationDecoder.Output] = []
    for r in Chunker(count: input.count, seed: seed ^ 0xABCD, maximum: 64) {
        chunkedOutputs += chunkedDecoder.decode(UnsafeBufferPointer(rebasing: input[r]))
    }
    chunkedOutputs += chunkedDecoder.finish()
    check(outputs == chunkedOutputs, "chunking changed the decoder's output")
    let known = Set(accepted)
    for case .location(let location) in outputs {
        check(known.contains(location.coordinate), "location \(location.coordinate) not from any accepted sentence")
        check(location.timestamp.timeIntervalSince1970.isFinite, "timestamp \(location.timestamp)")
        if location.isValid {
            check(location.coordinate.isValid && (location.horizontalAccuracyIsKnown || location.horizontalAccuracy == -1),
                  "valid location with \(location)")
            check(location.speed.isFinite && location.course.isFinite && location.verticalAccuracy.isFinite, "non-finite field in \(location)")
        }
    }
    return 0
}
