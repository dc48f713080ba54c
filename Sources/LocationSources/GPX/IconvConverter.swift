import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One iconv conversion to UTF-8, fed chunk by chunk, strict: the first invalid sequence is an error
/// naming the line. Owns its `iconv_t`, closed on deinit. A sequence cut by a chunk boundary is kept
/// for the next chunk; at the end of input it is an error (the file is cut off mid-character).
final class IconvConverter {
    private let cd: iconv_t
    private let name: String
    private let fileName: String
    /// Input bytes of a sequence cut off at the end of the last chunk.
    private var carry: [UInt8] = []
    /// Newlines in the input converted so far, for the line of an error.
    private var lines = 1

    init(from name: String, fileName: String) throws(GPXParseError) {
        guard let cd = iconv_open("UTF-8", name), cd != iconv_t(bitPattern: -1) else {
            throw GPXParseError(file: fileName, line: 1, reason: "encoding \"\(name)\" is not supported (convert the file to UTF-8)")
        }
        self.cd = cd
        self.name = name
        self.fileName = fileName
    }

    deinit { iconv_close(cd) }

    /// `chunk` (after what was carried) converted to UTF-8; `final` when no more input follows.
    func convert(_ chunk: [UInt8], final: Bool) throws(GPXParseError) -> [UInt8] {
        let input = carry.isEmpty ? chunk : carry + chunk
        carry = []
        var output = [UInt8](repeating: 0, count: input.count * 4 + 64)
        var produced = 0, consumed = 0
        var failure: Int32 = 0
        input.withUnsafeBufferPointer { inBuffer in
            while consumed < input.count {
                var inLeft = input.count - consumed
                var outLeft = output.count - produced
                let r: Int = output.withUnsafeMutableBufferPointer { outBuffer in
                    var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(
                        mutating: UnsafeRawPointer(inBuffer.baseAddress! + consumed).assumingMemoryBound(to: CChar.self))
                    var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress! + produced)
                        .assumingMemoryBound(to: CChar.self)
                    return iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                }
                consumed = input.count - inLeft
                produced = output.count - outLeft
                if r != -1 { break }
                if errno == E2BIG {
                    output += [UInt8](repeating: 0, count: output.count)
                    continue
                }
                failure = errno   // EILSEQ: invalid; EINVAL: cut off at the end of this chunk
                break
            }
        }
        let line = lines + input[..<consumed].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        if failure == EINVAL, !final {
            carry = Array(input[consumed...])
        } else if failure != 0 {
            throw GPXParseError(file: fileName, line: line, reason: "bytes that are not valid \(name), the encoding the file declares")
        }
        lines = line
        return Array(output[..<produced])
    }
}
