import Foundation

/// Builds the layers under ``ByteInput`` for one batch input: the file, then a decompressor (by extension
/// or magic bytes), then a transcoder to UTF-8 (by byte-order mark or `--encoding`).
///
///     file ──▶ [GzipInput | ZstdInput] ──▶ [TranscodingInput] ──▶ ByteInput ──▶ framer
///
/// Input that is none of these but looks like something known (UTF-16 without a mark, a ZIP archive
/// such as .xlsx, Latin-1 bytes) is refused up front with a message that names what it is and the option
/// that reads it, instead of a "header" of binary garbage.
enum InputStack {
    enum Compression: String, Sendable { case gzip, zstd }

    struct Opened {
        var input: ByteInput
        var compression: Compression?
        var encoding: TextEncoding
    }

    /// How much of the (uncompressed) start is checked to be valid UTF-8 when no encoding is given.
    static let utf8CheckBytes = 64 << 10

    /// `isFile`: the input is a regular file, so its first 64 KiB can be read before deciding (a pipe may be
    /// a live feed: then only what its first read brings is checked).
    static func open(fd: Int32, name: String, path: String?, encodingName: String?, readSize: Int,
                     isFile: Bool = true) throws(CLIError) -> Opened {
        let file = FileDescriptorSource(fd: fd, name: name)
        let magic = try file.peek(4)
        let named = path.flatMap(compression(ofPath:))
        let sniffed: Compression? = magic.starts(with: [0x1F, 0x8B]) ? .gzip
            : magic.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) ? .zstd : nil
        if let named, sniffed != named, !magic.isEmpty {
            throw .badInput("\(name) is named .\(named == .gzip ? "gz" : "zst") but is not \(named.rawValue) data "
                            + "(it starts with \(hex(magic)))")
        }
        let compression = named ?? sniffed
        var source: any ByteSource = file
        switch compression {
        case .gzip?: source = try GzipInput(source: file, name: name)
        case .zstd?: source = try ZstdInput(source: file, name: name)
        case nil: break
        }
        let head = Lookahead(source)
        let encoding = try chooseEncoding(head, name: name, option: encodingName, waitForHead: isFile)
        var top: any ByteSource = head
        if encoding != .utf8 { top = TranscodingInput(source: head, encoding: encoding, name: name) }
        return Opened(input: ByteInput(source: top, name: name, readSize: readSize), compression: compression, encoding: encoding)
    }

    /// `.gz`/`.gzip`/`.tgz`, `.zst`/`.zstd` at the end of a file name.
    static func compression(ofPath path: String) -> Compression? {
        let lower = path.lowercased()
        if lower.hasSuffix(".gz") || lower.hasSuffix(".gzip") { return .gzip }
        if lower.hasSuffix(".zst") || lower.hasSuffix(".zstd") { return .zstd }
        return nil
    }

    /// The path without its compression extension (`points.csv.gz` → `points.csv`), for the format.
    static func strippingCompression(_ path: String) -> String {
        guard compression(ofPath: path) != nil, let dot = path.lastIndex(of: ".") else { return path }
        return String(path[..<dot])
    }

    private static func chooseEncoding(_ head: Lookahead, name: String, option: String?, waitForHead: Bool) throws(CLIError) -> TextEncoding {
        let start = try head.peek(4)
        let bom16: TextEncoding? = start.starts(with: [0xFF, 0xFE]) ? .utf16LE : start.starts(with: [0xFE, 0xFF]) ? .utf16BE : nil
        if start.starts(with: [0xFF, 0xFE, 0, 0]) || start.starts(with: [0, 0, 0xFE, 0xFF]) {
            throw .badInput("\(name) is UTF-32 text (byte-order mark \(hex(start))), which batch does not read; "
                            + "convert it first: iconv -f UTF-32 -t UTF-8")
        }
        if let option {
            if option.lowercased() == "utf-16" || option.lowercased() == "utf16" {
                guard let bom16 else {
                    throw .usage("--encoding utf-16: \(name) has no UTF-16 byte-order mark; say which order it is: "
                                 + "--encoding utf-16le or utf-16be")
                }
                return bom16
            }
            guard let encoding = TextEncoding(name: option) else {
                throw .usage("unknown encoding \"\(option)\" (\(TextEncoding.optionNames))")
            }
            if let bom16, encoding != bom16, encoding == .utf16LE || encoding == .utf16BE {
                throw .badInput("\(name) starts with the \(bom16 == .utf16LE ? "little" : "big")-endian UTF-16 byte-order mark, "
                                + "not \(encoding.rawValue)")
            }
            return encoding
        }
        if let bom16 { return bom16 }   // a byte-order mark is proof enough: decoded without asking
        // What the first read gives, not a fixed amount: a pipe that is still being written must not block here.
        let sample = waitForHead ? try head.peek(utf8CheckBytes) : try head.peekAvailable(utf8CheckBytes)
        if sample.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            throw .badInput("\(name) is a ZIP archive (an Excel .xlsx or .ods workbook?), not text: save it as CSV first")
        }
        if sample.starts(with: Array("PAR1".utf8)) {
            throw .badInput("\(name) is a Parquet file, not text: export it as CSV or NDJSON first")
        }
        if let order = utf16WithoutMark(sample) {
            throw .badInput("\(name) looks like UTF-16 text without a byte-order mark (every other byte is zero); "
                            + "read it with --encoding \(order.rawValue)")
        }
        if let bad = firstInvalidUTF8(sample, complete: head.isEnded && sample.count < utf8CheckBytes) {
            let line = sample[..<bad].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw .badInput("\(name) is not UTF-8: byte 0x\(String(sample[bad], radix: 16, uppercase: true)) at offset \(bad) "
                            + "(line \(line)) starts no UTF-8 character. If it is Latin-1 (ISO-8859-1) or Windows-1252, "
                            + "read it with --encoding latin1 or --encoding cp1252")
        }
        return .utf8
    }

    /// Zeros at most of the odd (little-endian) or even (big-endian) offsets of ASCII-heavy text.
    private static func utf16WithoutMark(_ sample: [UInt8]) -> TextEncoding? {
        let n = min(sample.count, 1024) & ~1
        guard n >= 8 else { return nil }
        var evenZeros = 0, oddZeros = 0
        for i in stride(from: 0, to: n, by: 2) {
            if sample[i] == 0 { evenZeros += 1 }
            if sample[i + 1] == 0 { oddZeros += 1 }
        }
        let pairs = n / 2
        if oddZeros * 10 >= pairs * 7 && evenZeros * 10 < pairs { return .utf16LE }
        if evenZeros * 10 >= pairs * 7 && oddZeros * 10 < pairs { return .utf16BE }
        return nil
    }

    /// Offset of the first byte that breaks UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
    /// A character cut by the end of an incomplete sample is not an error.
    static func firstInvalidUTF8(_ b: [UInt8], complete: Bool) -> Int? {
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            let length: Int, low: UInt8, high: UInt8
            switch c {
            case 0xC2...0xDF: length = 2; low = 0x80; high = 0xBF
            case 0xE0: length = 3; low = 0xA0; high = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3; low = 0x80; high = 0xBF
            case 0xED: length = 3; low = 0x80; high = 0x9F
            case 0xF0: length = 4; low = 0x90; high = 0xBF
            case 0xF1...0xF3: length = 4; low = 0x80; high = 0xBF
            case 0xF4: length = 4; low = 0x80; high = 0x8F
            default: return i
            }
            if i + length > n { return complete ? i : nil }
            guard (low...high).contains(b[i + 1]) else { return i }
            for k in 2..<max(2, length) where !(0x80...0xBF).contains(b[i + k]) { return i }
            i += length
        }
        return nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
    }
}

/// Any source with its first bytes peekable (for sniffing what a decompressor produces).
final class Lookahead: ByteSource {
    private let source: any ByteSource
    private var ahead: [UInt8] = []
    private var ended = false

    init(_ source: any ByteSource) { self.source = source }

    /// Whether everything the source has is in the lookahead.
    var isEnded: Bool { ended }
    /// A read that failed while peeking, after some bytes: ``read(into:capacity:)`` hands those out first,
    /// then throws it (every call), so a short input cut short (a truncated .gz within the 64 KiB checked)
    /// still has its rows before the failure written.
    private var failure: CLIError?

    /// At most `n` bytes, after one read at most: at least one byte unless the input is empty.
    func peekAvailable(_ n: Int) throws(CLIError) -> [UInt8] {
        if ahead.isEmpty && !ended { try readMore(n) }
        return Array(ahead.prefix(n))
    }

    private func readMore(_ n: Int) throws(CLIError) {
        var block = [UInt8](repeating: 0, count: max(4096, min(n, 1 << 16)))
        let got = try block.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
            try source.read(into: b.baseAddress!, capacity: b.count)
        }
        if got == 0 { ended = true } else { ahead += block[..<got] }
    }

    /// At most `n` bytes; fewer at the end of the input or before a failed read (thrown when none came).
    func peek(_ n: Int) throws(CLIError) -> [UInt8] {
        while ahead.count < n && !ended && failure == nil {
            do throws(CLIError) {
                try readMore(n - ahead.count)
            } catch {
                guard !ahead.isEmpty else { throw error }
                failure = error
            }
        }
        return Array(ahead.prefix(n))
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        guard !ahead.isEmpty else {
            if let failure { throw failure }
            return ended ? 0 : try source.read(into: buffer, capacity: capacity)
        }
        let n = min(capacity, ahead.count)
        ahead.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: n) }
        ahead.removeFirst(n)
        return n
    }
}
