#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small wrappers over write(2)/strerror for the sinks and the console.
enum FileDescriptorIO {
    /// Writes all of `bytes`, retrying short writes and EINTR. Returns the errno of a failure, or nil.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
