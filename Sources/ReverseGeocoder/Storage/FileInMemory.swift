import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A whole file in memory (anonymous pages, advised to be 2 MB pages), read once; `deinit` unmaps it.
/// Index arrays loaded from an index cache point into it, so whatever holds them holds this too.
/// (A file mapping would load lazily, but its 4 KB pages cost a TLB miss on nearly every query, and
/// the cache's checksum reads every byte at load anyway.)
final class FileInMemory: @unchecked Sendable {
    // @unchecked: the mapping is read-only and never changes after init.
    let base: UnsafeRawPointer
    let count: Int

    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GeocoderError.cannotOpen(file: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw GeocoderError.cannotOpen(file: path, reason: String(cString: strerror(errno))) }
        count = Int(st.st_size)
        guard count > 0 else { throw GeocoderError.corrupt(file: path, record: nil, reason: "empty file") }
        // Anonymous memory asked to be backed by 2 MB pages, then filled from the file: queries jump
        // around tens of megabytes of index, and with 4 KB file pages nearly every jump was a TLB miss.
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
