/// Text in another encoding as the stream of its UTF-8 bytes, so the framers and decoders see UTF-8 only.
///
/// A UTF-16 byte-order mark becomes the UTF-8 one (which ``ByteInput`` skips, and CSV output repeats).
/// Input that is not valid in its encoding (a lone UTF-16 surrogate, an odd byte at the end) is an error
/// naming the file and the byte offset: transcoding it to U+FFFD would change data silently.
final class TranscodingInput: ByteSource {
    private let source: any ByteSource
    private let encoding: TextEncoding
    private let name: String
    /// Bytes of the source not yet transcoded.
    private var input = ReadBuffer(capacity: 64 << 10)
    /// UTF-8 bytes made but not yet handed out (a character that did not fit).
    private var pending: [UInt8] = []
    /// Input offset of `input[input.start]`.
    private var offset = 0

    init(source: any ByteSource, encoding: TextEncoding, name: String) {
        self.source = source
        self.encoding = encoding
        self.name = name
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        var written = 0
        func put(_ byte: UInt8) {
            if written < capacity { buffer[written] = byte; written += 1 } else { pending.append(byte) }
        }
        while !pending.isEmpty && written < capacity {
            buffer[written] = pending.removeFirst()
            written += 1
        }
        let unit = encoding == .utf16LE || encoding == .utf16BE ? 2 : 1
        while written < capacity {
            if input.count < unit * 2 && !input.sourceEnded {
                try input.refill(from: source)
                continue
            }
            if input.count == 0 { break }
            switch encoding {
            case .utf8:
                put(input[input.start])
                input.start += 1
                offset += 1
            case .latin1, .windows1252:
                let byte = input[input.start]
                input.start += 1
                offset += 1
                let scalar = encoding == .windows1252 && (0x80...0x9F).contains(byte)
                    ? Self.windows1252High[Int(byte - 0x80)] : UInt32(byte)
                guard scalar != 0 else {
                    throw .badInput("\(name): byte 0x\(String(byte, radix: 16, uppercase: true)) at offset \(offset - 1) has no "
                                    + "character in Windows-1252 (try --encoding latin1)")
                }
                appendUTF8(scalar, put)
            case .utf16LE, .utf16BE:
                guard input.count >= 2 else {
                    throw .badInput("\(name): the UTF-16 text ends in the middle of a character (an odd byte at offset \(offset))")
                }
                let first = codeUnit(at: input.start)
                if (0xD800...0xDBFF).contains(first) {
                    guard input.count >= 4, (0xDC00...0xDFFF).contains(codeUnit(at: input.start + 2)) else {
                        throw .badInput("\(name): invalid UTF-16 at byte offset \(offset): a high surrogate 0x"
                                        + "\(String(first, radix: 16, uppercase: true)) without its low surrogate")
                    }
                    let second = codeUnit(at: input.start + 2)
                    appendUTF8(0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00), put)
                    input.start += 4
                    offset += 4
                } else if (0xDC00...0xDFFF).contains(first) {
                    throw .badInput("\(name): invalid UTF-16 at byte offset \(offset): a low surrogate 0x"
                                    + "\(String(first, radix: 16, uppercase: true)) without a high one")
                } else {
                    appendUTF8(UInt32(first), put)
                    input.start += 2
                    offset += 2
                }
            }
        }
        return written
    }

    @inline(__always)
    private func codeUnit(at i: Int) -> UInt16 {
        encoding == .utf16LE ? UInt16(input[i]) | UInt16(input[i + 1]) << 8
                             : UInt16(input[i]) << 8 | UInt16(input[i + 1])
    }

    private func appendUTF8(_ scalar: UInt32, _ put: (UInt8) -> Void) {
        switch scalar {
        case 0..<0x80:
            put(UInt8(scalar))
        case 0x80..<0x800:
            put(UInt8(0xC0 | (scalar >> 6)))
            put(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            put(UInt8(0xE0 | (scalar >> 12)))
            put(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            put(UInt8(0x80 | (scalar & 0x3F)))
        default:
            put(UInt8(0xF0 | (scalar >> 18)))
            put(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            put(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            put(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Windows-1252's 0x80...0x9F (0: undefined), from the Unicode Consortium's published mapping table.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}
