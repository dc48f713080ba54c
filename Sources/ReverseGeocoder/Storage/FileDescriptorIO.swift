#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small wrappers over write(2)/strerror: the index cache's writer and the CLI's sinks and console share
/// them (package access), so a short write or EINTR is retried the same way everywhere.
package enum FileDescriptorIO {
    /// Writes all of `bytes`, retrying short writes and EINTR. Returns the errno of a failure, or nil.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
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

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    package static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
