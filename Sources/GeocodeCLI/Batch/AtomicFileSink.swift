#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ReverseGeocoder

/// Writes OUT atomically: into a temporary file in OUT's own directory (so the final rename stays on one
/// file system and is atomic), fsynced, then renamed over OUT, then the directory fsynced.
///
/// Until the rename, a previous OUT is untouched; a run killed at any moment leaves OUT either as it was
/// or complete, never half-written. SIGINT/SIGTERM remove the temporary file (see ``InterruptCleanup``);
/// a SIGKILL cannot, so it is named `.OUT.geocode-<pid>-XXXXXX` (hidden, next to OUT) and held under an
/// exclusive `flock` until the rename. A later run writing the same OUT removes such files once it can
/// prove their writer dead: the lock is free and no process has that pid (a writer between `mkstemp`
/// and `flock`, or a reused pid, keeps its file).
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
        let folder = directory.isEmpty ? "/" : directory
        Self.removeAbandoned(in: folder, name: name)
        var template = Array("\(folder)/.\(name).geocode-\(getpid())-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw .io("cannot create a temporary file in \(directory.isEmpty ? "/" : directory) for \(destination): "
                      + FileDescriptorIO.message(errno))
        }
        self.fd = fd
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        InterruptCleanup.register(temporaryPath)
        _ = flock(fd, LOCK_EX)  // released by close, after the rename
    }

    /// Deletes the temporary files of earlier runs on the same OUT whose writer is provably gone.
    static func removeAbandoned(in directory: String, name: String) {
        let prefix = ".\(name).geocode-"
        guard let dir = opendir(directory) else { return }
        var candidates: [String] = []
        while let entry = readdir(dir) {
            let entryName = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if entryName.hasPrefix(prefix) { candidates.append(entryName) }
        }
        closedir(dir)
        for candidate in candidates {
            // `<pid>-XXXXXX`; files of versions without the pid cannot be proven dead and stay.
            let rest = candidate.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            let path = "\(directory)/\(candidate)"
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 && kill(pid, 0) != 0 && errno == ESRCH { unlink(path) }
            close(fd)
        }
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
