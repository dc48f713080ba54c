import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls the reporter's files need, with errno turned into messages. Everything that
/// must survive a crash goes through `write` + `fsync` here; nothing relies on buffered `FileHandle`s.
enum DurableFile {
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Failure) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(message: "cannot open \(path): \(errnoText())") }
        return fd
    }

    /// Writes all of `bytes` at the file's offset (the end, for `O_APPEND`), retrying short writes.
    static func writeAll(_ fd: Int32, _ bytes: Data, path: String) throws(Failure) {
        let failure: Failure? = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Failure? in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return Failure(message: "cannot write \(path): \(errnoText())")
                }
                offset += n
            }
            return nil
        }
        if let failure { throw failure }
    }

    static func sync(_ fd: Int32, path: String) throws(Failure) {
        guard fsync(fd) == 0 else { throw Failure(message: "cannot fsync \(path): \(errnoText())") }
    }

    /// Makes creations, renames and removals in `directory` durable.
    static func syncDirectory(_ directory: String) throws(Failure) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(message: "cannot open directory \(directory): \(errnoText())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(message: "cannot fsync directory \(directory): \(errnoText())") }
    }

    static func sizeOf(_ fd: Int32, path: String) throws(Failure) -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(message: "cannot stat \(path): \(errnoText())") }
        return UInt64(info.st_size)
    }

    static func truncateFile(_ fd: Int32, to size: UInt64, path: String) throws(Failure) {
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw Failure(message: "cannot truncate \(path) to \(size) bytes: \(errnoText())")
        }
    }

    /// The whole file; `nil` when it does not exist.
    static func readFile(_ path: String) throws(Failure) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure(message: "cannot open \(path): \(errnoText())")
        }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(message: "cannot read \(path): \(errnoText())")
            }
            if n == 0 { return data }
            data.append(contentsOf: chunk[0..<n])
        }
    }

    /// Replaces `path` with `bytes` atomically and durably: a new temporary file in the same directory,
    /// fsync, rename over `path`, fsync the directory. A crash leaves the old file or the new one (and
    /// perhaps a `*.tmp` file, which ``removeTemporaryFiles(in:)`` cleans up).
    static func replace(_ path: String, with bytes: Data) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let fd = try openFile(temporary, O_WRONLY | O_CREAT | O_EXCL)
        var committed = false
        defer { if !committed { unlink(temporary) } }
        do {
            defer { close(fd) }
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
        }
        guard rename(temporary, path) == 0 else {
            throw Failure(message: "cannot rename \(temporary) to \(path): \(errnoText())")
        }
        committed = true
        try syncDirectory(directory)
    }

    static func removeTemporaryFiles(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".tmp") { unlink(directory + "/" + name) }
    }
}
