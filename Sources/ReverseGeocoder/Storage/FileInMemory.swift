import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A whole file in memory; `deinit` unmaps it. Index arrays loaded from an index cache point into it,
/// so whatever holds them holds this too.
///
/// Two ways in: the file mapped (shared with the page cache, prefaulted in one go since the cache's
/// checksum reads every byte anyway): the quickest start. Or copied into anonymous memory advised for
/// 2 MB pages: queries jump around tens of megabytes of index, and with 4 KB pages nearly every jump
/// is a TLB miss (about 8 % of a query), but the kernel may compact memory first to find huge pages.
final class FileInMemory: @unchecked Sendable {
    // @unchecked: the mapping is read-only and never changes after init.
    let base: UnsafeRawPointer
    let count: Int
    /// Copied into anonymous memory (private to this process), not mapped from the page cache.
    let isCopy: Bool

    init(path: String, hugePages: Bool = false) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GeocoderError.cannotOpen(file: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw GeocoderError.cannotOpen(file: path, reason: String(cString: strerror(errno))) }
        count = Int(st.st_size)
        guard count > 0 else { throw GeocoderError.corrupt(file: path, record: nil, reason: "empty file") }
        isCopy = hugePages
        if !hugePages {
            guard let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
                throw GeocoderError.cannotOpen(file: path, reason: "mmap: \(String(cString: strerror(errno)))")
            }
            base = UnsafeRawPointer(p)
            return
        }
        guard let p = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            throw GeocoderError.cannotOpen(file: path, reason: "mmap: \(String(cString: strerror(errno)))")
        }
        _ = madvise(p, count, MADV_HUGEPAGE)
        var done = 0
        while done < count {
            let n = pread(fd, p + done, count - done, off_t(done))
            if n <= 0 {
                let reason = n == 0 ? "file shrank while reading" : String(cString: strerror(errno))
                munmap(p, count)
                throw GeocoderError.cannotOpen(file: path, reason: reason)
            }
            done += n
        }
        base = UnsafeRawPointer(p)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), count)
    }
}
