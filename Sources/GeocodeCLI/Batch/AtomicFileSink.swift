#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes OUT atomically: into a temporary file in OUT's own directory (so the final rename stays on one
/// file system and is atomic), fsynced, then renamed over OUT, then the directory fsynced.
///
/// Until the rename, a previous OUT is untouched; a run killed at any moment leaves OUT either as it was
/// or complete, never half-written. A SIGKILL can leave the temporary file behind: it is named
/// `.OUT.geocode-XXXXXX` (hidden, next to OUT) so it is recognisable and safe to delete. SIGINT/SIGTERM
/// remove it (see ``InterruptCleanup``).
final class AtomicFileSink: OutputSink {
    let destination: String
    let temporaryPath: String
    private var fd: Int32
    /// Permissions for the result: the replaced file's, or the usual 0666 less the umask for a new one.
    private let mode: mode_t

    init(destination requested: String) throws(CLIError) {
        // OUT may be a symlink: replace the file it points to, not the link (rename would swap the link
        // itself for a regular file). A dangling link is replaced as it is.
        var destination = requested
        var linkStatus = stat()
        if lstat(requested, &linkStatus) == 0, (linkStatus.st_mode & S_IFMT) == S_IFLNK,
           let resolved = realpath(requested, nil) {
            destination = String(cString: resolved)
            free(resolved)
        }
        self.destination = destination
        let slash = destination.lastIndex(of: "/")
        let directory = slash.map { String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !name.isEmpty else { throw .io("cannot write \(destination): it names a directory") }
        var status = stat()
        if stat(destination, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFREG else {
                throw .io("cannot write \(destination): it is not a regular file")
            }
            mode = status.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).geocode-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw .io("cannot create a temporary file in \(directory.isEmpty ? "/" : directory) for \(destination): "
                      + FileDescriptorIO.message(errno))
        }
        self.fd = fd
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        InterruptCleanup.register(temporaryPath)
    }

    func write(_ bytes: [UInt8]) throws(CLIError) {
        if let error = FileDescriptorIO.writeAll(fd, bytes) {
            throw .io("cannot write \(destination) (temporary \(temporaryPath)): \(FileDescriptorIO.message(error))")
        }
    }

    func commit() throws(CLIError) {
        guard fchmod(fd, mode) == 0 else { throw failure("cannot set permissions of") }
        guard fsync(fd) == 0 else { throw failure("cannot flush") }
        guard close(fd) == 0 else { throw failure("cannot close") }
        fd = -1
        guard rename(temporaryPath, destination) == 0 else { throw failure("cannot rename the temporary file to") }
        InterruptCleanup.unregister()
        // The rename itself is durable only once the directory is flushed.
        let slash = destination.lastIndex(of: "/")
        let directory = slash.map { String(destination[..<$0]) } ?? "."
        let dirFD = open(directory.isEmpty ? "/" : directory, O_RDONLY)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    private func failure(_ what: String) -> CLIError {
        let message = FileDescriptorIO.message(errno)
        abandon()
        return .io("\(what) \(destination): \(message)")
    }

    func abandon() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(temporaryPath)
        InterruptCleanup.unregister()
    }

    deinit {
        if fd >= 0 { abandon() }
    }
}
