#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bottom of the input stack: read(2) on a descriptor, with the first bytes peekable so the layers
/// above can be chosen by magic bytes even on a pipe, where nothing can be read twice.
final class FileDescriptorSource: ByteSource {
    let fd: Int32
    let name: String
    /// Bytes read ahead by ``peek(_:)`` and not yet handed out.
    private var ahead: [UInt8] = []
    /// Bytes handed out so far: the offset in the file of the next byte `read` returns.
    private(set) var offset = 0
    private var atEOF = false

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    /// The next `n` bytes (fewer at the end of the input), without consuming them.
    func peek(_ n: Int) throws(CLIError) -> [UInt8] {
        while ahead.count < n && !atEOF {
            var block = [UInt8](repeating: 0, count: max(n - ahead.count, 4096))
            let got = try block.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
                try rawRead(b.baseAddress!, b.count)
            }
            if got == 0 { atEOF = true } else { ahead += block[..<got] }
        }
        return Array(ahead.prefix(n))
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        if !ahead.isEmpty {
            let n = min(capacity, ahead.count)
            ahead.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: n) }
            ahead.removeFirst(n)
            offset += n
            return n
        }
        if atEOF { return 0 }
        let n = try rawRead(buffer, capacity)
        if n == 0 { atEOF = true }
        offset += n
        return n
    }

    private func rawRead(_ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(CLIError) -> Int {
        while true {
            let r = Glibc.read(fd, buffer, capacity)
            if r >= 0 { return r }
            if errno == EINTR { continue }
            throw .io("cannot read \(name): \(String(cString: strerror(errno)))")
        }
    }
}
