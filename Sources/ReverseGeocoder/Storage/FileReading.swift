import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads small files (manifests) and lists folders with the system's own reason on failure, so a
/// permission problem is reported as "permission denied", not as a missing file.
enum FileReading {
    /// The whole file, or ``GeocoderError/cannotOpen(file:reason:)`` with errno's reason.
    static func contents(of path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GeocoderError.cannotOpen(file: path, reason: reason(errno)) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            // EISDIR and friends: read(2) fails although open(2) worked.
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw GeocoderError.cannotOpen(file: path, reason: "is a directory") }
            throw GeocoderError.cannotOpen(file: path, reason: "\(error.localizedDescription)")
        }
    }

    /// What `stat(2)` says about a path.
    enum Kind: Equatable {
        case missing
        case file
        case directory
        /// Exists, or may exist, but cannot be examined (a folder on its path denies search).
        case unreachable(String)
    }

    static func kind(of path: String) -> Kind {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR ? .directory : .file }
        return errno == ENOENT || errno == ENOTDIR ? .missing : .unreachable(reason(errno))
    }

    /// The names in a folder, or errno's reason.
    static func names(in directory: String) -> Result<[String], GeocoderError> {
        guard let dir = opendir(directory) else { return .failure(.cannotOpen(file: directory, reason: reason(errno))) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    /// errno as words, with permission errors named as such.
    static func reason(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "no such file or directory"
        default: return String(cString: strerror(code))
        }
    }
}
