#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Guards descriptors 0–2 when the shell closed them (`geocode 1 2 >&-`).
///
/// A closed descriptor is the lowest free number, so the first file the process opens (a shapefile, the
/// index cache's temporary file) would become "stdout", and the answer would be written into it, or
/// silently lost. Each closed one is taken by `/dev/null` opened the wrong way round (read-only for
/// 1 and 2, write-only for 0): every write to stdout then fails with EBADF, which the commands report
/// as an I/O error (exit 5), as they do for a full disk.
public enum StandardStreams {
    public static func reserveClosed() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY)
            if opened >= 0 && opened != fd {
                // Lower descriptors were free too and got it first; move it where it belongs.
                _ = dup2(opened, fd)
                close(opened)
            }
        }
    }
}
