import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file mapped read-only into memory; `deinit` unmaps it. Index arrays loaded from an index cache
/// point into the mapping, so whatever holds them holds this too. Pages are read from disk only when a
/// query touches them, which is what makes a cached start cheap.
final class MappedFile: @unchecked Sendable {
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
        guard let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw GeocoderError.cannotOpen(file: path, reason: "mmap: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(p)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), count)
    }
}
