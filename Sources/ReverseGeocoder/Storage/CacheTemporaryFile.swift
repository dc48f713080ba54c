import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How the index cache writes its files, and how it clears what dead writers left.
///
/// A cache file is written to `.<name>.tmp-<pid>-<random>` in the cache directory, under an exclusive
/// `flock` held from creation to rename, then renamed over `<name>`: readers see the old file or the
/// new one, never a torn one. A writer killed mid-way (`kill -9`, a crash, power loss) leaves its
/// temporary file, tens of megabytes, that nothing would ever replace; every engine start with a
/// cache removes such files, but only those it can prove dead:
/// - ours: the lock can be taken (nobody holds it) **and** no process has the pid in the name (a
///   writer between `open` and `flock` keeps its file), or the file has not changed for a day (a
///   writer killed mid-way whose pid now names another process: ``abandonedAfter``);
/// - Foundation's `.dat.nosync*` files (earlier versions wrote through `Data.write(options: .atomic)`):
///   no process has the file open, as `/proc/*/fd` shows; where `/proc` cannot tell, the file is kept.
enum CacheTemporaryFile {
    private static let marker = ".tmp-"

    /// Creates the cache directory if needed, with a plain reason when it cannot be.
    static func prepareDirectory(_ directory: URL) throws {
        switch FileReading.kind(of: directory.path) {
        case .directory: return
        case .file: throw GeocoderError.cannotOpen(file: directory.path, reason: "a file is in the way of the cache directory")
        case .unreachable(let reason): throw GeocoderError.cannotOpen(file: directory.path, reason: reason)
        case .missing:
            // Folder by folder with mkdir, not FileManager: its error here is "The operation could not be
            // completed (NSCocoaErrorDomain error 512)", with neither the cause nor the folder.
            var folder = directory.path.hasPrefix("/") ? "" : "."
            for part in directory.path.split(separator: "/") {
                let parent = folder.isEmpty ? "/" : folder
                folder += "/" + part
                guard mkdir(folder, 0o755) != 0 else { continue }
                let code = errno
                if code == EEXIST { continue }  // a file here is met as ENOTDIR at the next folder
                let reason = code == ENOTDIR ? "\(parent) is a file, not a folder" : "\(folder): \(FileReading.reason(code))"
                throw GeocoderError.cannotOpen(file: directory.path, reason: "cannot create the cache directory: \(reason)")
            }
            if case .file = FileReading.kind(of: directory.path) {
                throw GeocoderError.cannotOpen(file: directory.path, reason: "a file is in the way of the cache directory")
            }
        }
    }

    /// Writes `data` to `url` atomically (temporary file, fsync, rename).
    static func write(_ data: Data, to url: URL) throws {
        try data.withUnsafeBytes { try write([$0], to: url) }
    }

    /// Writes the pieces one after the other to `url` atomically (temporary file, fsync, rename): the
    /// index cache writes its big arrays from where they are, instead of copying ~100 MB into one buffer
    /// first (which cost a copy, and the kernel zeroing the fresh pages for it, per megabyte written).
    static func write(_ pieces: [UnsafeRawBufferPointer], to url: URL) throws {
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next() % 0xFFFF_FFFF, radix: 36)
        let temporary = "\(directory)/.\(name)\(marker)\(getpid())-\(suffix)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GeocoderError.cannotOpen(file: temporary, reason: FileReading.reason(errno)) }
        var committed = false
        defer {
            close(fd)  // releases the lock
            if !committed { unlink(temporary) }
        }
        guard flock(fd, LOCK_EX) == 0 else { throw GeocoderError.cannotOpen(file: temporary, reason: FileReading.reason(errno)) }
        let failure: Int32? = {
            for raw in pieces where raw.count > 0 {
                if let failure = FileDescriptorIO.writeAll(fd, raw) { return failure }
            }
            return fsync(fd) == 0 ? nil : errno
        }()
        if let failure { throw GeocoderError.cannotOpen(file: temporary, reason: "cannot write: \(FileReading.reason(failure))") }
        guard rename(temporary, url.path) == 0 else {
            throw GeocoderError.cannotOpen(file: url.path, reason: "cannot rename \(temporary) to it: \(FileReading.reason(errno))")
        }
        committed = true
    }

    /// How long a temporary file whose lock nobody holds may stay unchanged before it counts as
    /// abandoned although a process has the pid in its name. A writer holds the lock from `open` to
    /// `rename` and writes without pause, so only a writer killed mid-way leaves a file unlocked and
    /// still for long; but its pid may live again: containers reuse the same small pids on every run,
    /// and a cache directory shared between pid namespaces (a volume) names pids that `kill(2)` here
    /// cannot see. A day is far longer than any write (seconds) and short beside what such a file
    /// costs (tens of megabytes, for good).
    static let abandonedAfter: TimeInterval = 86_400

    /// Removes the temporary files of dead writers in `directory` (`now`: the clock the age is measured
    /// by); returns what it removed and why.
    @discardableResult
    static func removeAbandoned(in directory: URL, now: Date = Date()) -> [IndexCacheDirectory.Removal] {
        guard case .success(let names) = FileReading.names(in: directory.path) else { return [] }
        var removed: [IndexCacheDirectory.Removal] = []
        var openByOwner: [uid_t: Set<String>?] = [:]  // /proc's view per file owner, gathered only when needed
        for name in names where name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            if let pid = writerPID(name) {
                if let removal = removeIfAbandoned(path: path, pid: pid, now: now) { removed.append(removal) }
            } else if name.hasPrefix(".dat.nosync") {
                var st = stat()
                guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                if openByOwner[st.st_uid] == nil { openByOwner[st.st_uid] = openFiles(ofProcessesOwnedBy: st.st_uid) }
                // nil: /proc could not be read completely, so nothing is proven.
                if let open = openByOwner[st.st_uid]!, !open.contains(path), unlink(path) == 0 {
                    removed.append(.init(path: path, bytes: Int64(st.st_size),
                                         reason: "a temporary file of an earlier version that no process has open"))
                }
            }
        }
        return removed
    }

    /// The pid in one of our temporary names (`.<name>.tmp-<pid>-<random>`).
    static func writerPID(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), let range = name.range(of: marker, options: .backwards) else { return nil }
        let rest = name[range.upperBound...]
        guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { return nil }
        return pid
    }

    /// Removes a temporary file whose writer is provably gone: its lock is free (a live writer holds it
    /// from creation to rename), and either its pid is no process or it has not changed for
    /// ``abandonedAfter`` (a file that is still being written changes all the time). Removed while this
    /// process holds the lock, so no writer can be between its `flock` and its `rename` meanwhile.
    private static func removeIfAbandoned(path: String, pid: pid_t, now: Date) -> IndexCacheDirectory.Removal? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }  // held: a live writer
        let reason: String
        if kill(pid, 0) != 0 && errno == ESRCH {
            reason = "an abandoned temporary file (its writer, pid \(pid), is gone)"
        } else if now.timeIntervalSince1970 - Double(st.st_mtim.tv_sec) > abandonedAfter {
            reason = "an abandoned temporary file (unchanged for over a day, and no writer holds its lock)"
        } else {
            return nil  // a writer between open and flock, or one whose pid was reused: not proven
        }
        guard unlink(path) == 0 else { return nil }
        return .init(path: path, bytes: Int64(st.st_size), reason: reason)
    }

    /// Every file the processes of `owner` have open, from `/proc/*/fd`; nil when one's table could not be
    /// read. A file's writer runs as its owner, so other users' processes cannot be writing it.
    private static func openFiles(ofProcessesOwnedBy owner: uid_t) -> Set<String>? {
        guard case .success(let entries) = FileReading.names(in: "/proc") else { return nil }
        var files = Set<String>()
        for entry in entries where entry.allSatisfy(\.isNumber) {
            var st = stat()
            guard stat("/proc/\(entry)", &st) == 0, st.st_uid == owner else { continue }
            let fdDirectory = "/proc/\(entry)/fd"
            switch FileReading.names(in: fdDirectory) {
            case .success(let fds):
                for fd in fds {
                    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                    let n = readlink("\(fdDirectory)/\(fd)", &buffer, buffer.count - 1)
                    if n > 0 { files.insert(String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
                }
            case .failure:
                // A process that exited meanwhile is fine; one we may not look into is not.
                if FileReading.kind(of: "/proc/\(entry)") != .missing { return nil }
            }
        }
        return files
    }
}
