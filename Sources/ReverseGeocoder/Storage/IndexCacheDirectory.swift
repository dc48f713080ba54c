import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The index cache directory as a whole (``ReverseGeocoder/Options/cacheDirectory``): what is in it, and
/// removing the files that can never be used again.
///
/// Each data folder a dataset is loaded from gets its own cache file (its name hashes the folder), and
/// nothing replaced a folder's file once the folder was gone: temporary checkouts, CI clones and moved
/// installs each left 60-85 MB behind for good (4 GB in one user's cache). So:
/// - **Automatically**, whenever the engine writes a cache file, it removes at once that dataset's files
///   of other format versions (``Rule/otherFormats(filePrefix:)``); and after the load's writes, the
///   files in the same directory whose data folder no longer exists, and those not used for
///   ``unusedLifetime`` (a load marks its file used, see ``IndexCache``). The files the load itself
///   uses are kept.
/// - **On request**, ``prune(now:)`` (`geocode index --prune`) removes every file that does not belong to
///   an existing data folder of this format version, whatever its age.
///
/// Never removed: a file without the index cache's magic (not ours), anything but a regular file
/// directly in the directory (a symbolic link may point anywhere), a temporary file a writer may still
/// be writing (see ``CacheTemporaryFile``). A process that has a removed file mapped keeps its pages:
/// on Linux `unlink` removes the name, and the inode lives until the last mapping and descriptor go, so
/// a running server that loaded a cache another process prunes answers on, and its next start rebuilds.
public struct IndexCacheDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// How long a cache file may go unused (no load, no write) before automatic pruning removes it,
    /// although its data folder still exists: 30 days. Wrongly removing a file costs one rebuild (seconds
    /// for the bundled data); keeping an unused one costs 60-85 MB for good. A folder unused for a month
    /// is mostly an old install or clone that nobody will load again, and a monthly job rebuilds once.
    public static let unusedLifetime: TimeInterval = 30 * 86_400

    /// How stale a file's modification time may get before a load marks the file used again (see
    /// ``markUsed(_:modified:now:)``): a day, so most loads write nothing.
    static let useMarkInterval: TimeInterval = 86_400

    public init(_ url: URL) {
        self.url = url
    }

    /// What the directory holds: every regular file in it, ours or not (what `du` would count).
    public struct Summary: Sendable, Equatable {
        /// Whether the directory exists (it is created by the first cache write).
        public var exists: Bool
        public var files: Int
        public var bytes: Int64
    }

    /// A file removed by pruning.
    public struct Removal: Sendable, Equatable {
        public var path: String
        public var bytes: Int64
        /// Why it could never be used again (e.g. "its data folder /tmp/ci-17/Data/china no longer exists").
        public var reason: String
    }

    /// A file pruning meant to remove and could not (permission denied, a read-only file system).
    public struct Failure: Sendable, Equatable {
        public var path: String
        public var reason: String
    }

    /// What ``prune(now:)`` did.
    public struct PruneReport: Sendable, Equatable {
        public var removed: [Removal] = []
        public var failures: [Failure] = []
        /// The bytes the removed files held.
        public var bytesFreed: Int64 { removed.reduce(0) { $0 + $1.bytes } }
    }

    /// Counts the directory's files. A directory that does not exist is empty (`exists` false); one that
    /// cannot be listed throws ``GeocoderError/cannotOpen(file:reason:)`` naming it.
    public func summary() throws(GeocoderError) -> Summary {
        guard let names = try names() else { return Summary(exists: false, files: 0, bytes: 0) }
        var summary = Summary(exists: true, files: 0, bytes: 0)
        for name in names {
            var st = stat()
            guard lstat(url.appendingPathComponent(name).path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            summary.files += 1
            summary.bytes += Int64(st.st_size)
        }
        return summary
    }

    /// Removes every cache file that does not belong to an existing data folder of this format version:
    /// files whose data folder is gone, files of other format versions (this engine never loads them),
    /// damaged ones (every load rejects them), and abandoned temporary files. Files of existing folders
    /// stay, however old. A directory that does not exist has nothing to remove; one that cannot be
    /// listed throws ``GeocoderError/cannotOpen(file:reason:)`` naming it. Another process pruning at
    /// the same time is no error: each file is removed, and reported, by one of them.
    public func prune(now: Date = Date()) throws(GeocoderError) -> PruneReport {
        guard try names() != nil else { return PruneReport() }
        var report = PruneReport()
        report.removed = CacheTemporaryFile.removeAbandoned(in: url, now: now)
        try prune(.unusable, now: now, into: &report)
        return report
    }

    /// Which files a prune removes. Every rule goes through the one pass of ``prune(_:now:into:)``: the
    /// same files are never judged (not ours, links, temporaries), and a file is unlinked only while it
    /// is still the one judged.
    enum Rule {
        /// ``prune(now:)``: every file that can never be loaded by this engine again.
        case unusable
        /// After a load's cache writes: files whose data folder is gone, and files unused for
        /// ``unusedLifetime``; never the files named in `keeping` (the ones the load uses).
        case automatic(keeping: Set<String>)
        /// When a dataset's cache file is written: that dataset's files of other format versions, at
        /// once. Their names differ from the new one's (the name's key includes the version), so nothing
        /// would ever replace them, and an upgrade would leave tens of megabytes behind for a month.
        /// Other datasets' stay for the age rule: an install of another version may still load them.
        /// `filePrefix`: the dataset's part of the file names (``IndexCache/filePrefix(_:)``, `world-`).
        case otherFormats(filePrefix: String)
    }

    /// The write of a dataset's cache file: its files of other format versions go
    /// (``Rule/otherFormats(filePrefix:)``). Never fails the write: what cannot be listed or removed
    /// stays for the age rule, or for `geocode index --prune`, which reports it.
    func removeOtherFormats(filePrefix: String, now: Date) {
        var report = PruneReport()
        try? prune(.otherFormats(filePrefix: filePrefix), now: now, into: &report)
    }

    /// Whether `name` is a cache file name of the dataset whose names start with `filePrefix`: the prefix,
    /// then only the hash's hex digits (so `world-` does not take a dataset `world-extra`'s files).
    static func isFile(_ name: String, of filePrefix: String) -> Bool {
        guard name.hasPrefix(filePrefix), name.hasSuffix(".geoidx") else { return false }
        let hash = name.dropFirst(filePrefix.count).dropLast(".geoidx".count)
        return !hash.isEmpty && hash.allSatisfy(\.isHexDigit)
    }

    /// The automatic prune after a cache write (see ``Rule/automatic(keeping:)``). Never fails a load:
    /// what cannot be listed or removed stays for the next write, or for `geocode index --prune`, which
    /// reports it.
    func pruneAfterWrite(keeping: Set<String>, now: Date) {
        var report = PruneReport()
        try? prune(.automatic(keeping: keeping), now: now, into: &report)
    }

    func prune(_ rule: Rule, now: Date, into report: inout PruneReport) throws(GeocoderError) {
        guard let names = try names() else { return }
        for name in names where name.hasSuffix(".geoidx") && !name.hasPrefix(".") {
            switch rule {
            case .automatic(let keeping) where keeping.contains(name): continue
            case .otherFormats(let prefix) where !Self.isFile(name, of: prefix): continue
            default: break
            }
            let path = url.appendingPathComponent(name).path
            // O_NOFOLLOW: a symbolic link is not ours to judge (ELOOP); O_NONBLOCK: a FIFO named like a
            // cache file must not hang the open.
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }  // gone meanwhile (another pruner), or not readable: not proven
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let origin = CacheFileOrigin.read(fd, size: Int(st.st_size))
            guard let reason = Self.reason(origin, modified: st.st_mtim, rule: rule, now: now) else { continue }
            switch Self.remove(path, judged: st) {
            case .removed: report.removed.append(Removal(path: path, bytes: Int64(st.st_size), reason: reason))
            case .skipped: break
            case .failed(let why): report.failures.append(Failure(path: path, reason: why))
            }
        }
    }

    /// Why a file can go under `rule`, or nil to keep it.
    static func reason(_ origin: CacheFileOrigin, modified: timespec, rule: Rule, now: Date) -> String? {
        if case .otherFormats = rule {
            // Only older (or newer) formats: a file of this format is another data folder's or cell size's.
            guard case .otherFormat(let format) = origin else { return nil }
            return "written by index format \(format); the dataset's cache is now in format \(IndexCache.formatVersion)"
        }
        let unused = now.timeIntervalSince1970 - Double(modified.tv_sec)
        let old: String? = if case .automatic = rule, unused > unusedLifetime {
            "unused for \(Int(unused / 86_400)) days"
        } else {
            nil
        }
        switch origin {
        case .foreign:
            return nil
        case .otherFormat(let format):
            if case .unusable = rule { return "written by index format \(format); this engine reads format \(IndexCache.formatVersion)" }
            return old
        case .damaged(let why):
            if case .unusable = rule { return "damaged (\(why)): every load rejects it" }
            return old
        case .builtFrom(let folders):
            // A folder that cannot be examined (permission, an I/O error) may exist: only "no such file"
            // proves it gone. A dataset's cache records at least one folder; one that records none
            // proves nothing.
            if !folders.isEmpty && folders.allSatisfy({ FileReading.kind(of: $0) == .missing }) {
                return "its data folder \(folders.joined(separator: ", ")) no longer exists"
            }
            return old
        }
    }

    /// `skipped`: removed by another pruner meanwhile, or no longer the file that was judged.
    private enum Outcome { case removed, skipped, failed(String) }

    /// Unlinks `path` if it is still the file that was judged: another process may have renamed a fresh
    /// cache onto the name since (its folder came back), or loaded it and marked it used. The check and
    /// the unlink are two calls, so a replacement can still slip between them; the loss is then one
    /// rebuild of a cache, never anything else.
    private static func remove(_ path: String, judged: stat) -> Outcome {
        var now = stat()
        guard lstat(path, &now) == 0 else { return errno == ENOENT ? .skipped : .failed(FileReading.reason(errno)) }
        guard now.st_dev == judged.st_dev, now.st_ino == judged.st_ino,
              now.st_mtim.tv_sec == judged.st_mtim.tv_sec, now.st_mtim.tv_nsec == judged.st_mtim.tv_nsec else { return .skipped }
        if unlink(path) == 0 { return .removed }
        // ENOENT: another pruner was first, which is no failure; it reports the file.
        return errno == ENOENT ? .skipped : .failed(FileReading.reason(errno))
    }

    /// Removes a cache file a query found damaged, so that the next start rebuilds it
    /// (``ReverseGeocoder``'s recovery, which loads the engine again without it). Returns why it could not
    /// be removed (the errno text: an immutable file, a read-only file system), to be said with the
    /// damage: the next start will find the file damaged again. nil: removed, or gone already (another
    /// process's recovery, or a prune).
    static func removeDamaged(_ path: String) -> String? {
        if unlink(path) == 0 || errno == ENOENT { return nil }
        return FileReading.reason(errno)
    }

    /// The directory's names, nil when it does not exist.
    private func names() throws(GeocoderError) -> [String]? {
        switch FileReading.names(in: url.path) {
        case .success(let names): return names
        case .failure(let error):
            if FileReading.kind(of: url.path) == .missing { return nil }
            throw error
        }
    }

    /// Records that a cache file was used, so the age rule keeps it: its modification time is set to
    /// `now` when it is more than ``useMarkInterval`` old. Nothing else ever changes a cache file's
    /// modification time (files are written once and renamed into place; freshness is judged by the
    /// sources' times), so it reads "last written or used, to the day". The access time would say so
    /// by itself, but `noatime` mounts never update it and `relatime` ones update it whenever anything
    /// reads the file (a backup, or a pruner reading the header).
    ///
    /// Cost: the load has the modification time already (from the `stat` that sizes the mapping), so
    /// most loads pay one comparison; at most one a day per file pays a `utimensat`, an inode update
    /// the kernel writes back with the journal, never the file's data. Fails quietly where the user may
    /// not change the file (another user's shared cache, read-only media): such a file ages from its
    /// write, and whoever may write the directory, and so prune it, may also mark it.
    static func markUsed(_ path: String, modified: Int64, now: Date) {
        let seconds = now.timeIntervalSince1970
        guard seconds - Double(modified) / 1e9 > useMarkInterval else { return }
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var times = [time, time]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }
}
