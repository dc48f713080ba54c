#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// On SIGINT/SIGTERM/SIGHUP, removes the batch's temporary output file and exits, so an interrupted run
/// leaves OUT exactly as it was. (SIGKILL cannot be caught; then the temporary file remains, but OUT is
/// still untouched.)
///
/// The handler only calls async-signal-safe functions (unlink, write, _exit) on a path prepared before
/// the signal can arrive, which is why this is a C-style handler over a raw C string rather than
/// anything that allocates or locks.
public enum InterruptCleanup {
    /// The temporary file to remove, as a C string; nil when there is none. Written only by the main
    /// thread while setting up or finishing the output, read by the signal handler.
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

    /// Installs the handlers (once, from the executable's entry point).
    public static func install() {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in
                if let path = InterruptCleanup.path { unlink(path) }
                let message = "\ngeocode: interrupted; output not written\n"
                _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
                _exit(128 + received)
            }
        }
    }

    static func register(_ file: String) {
        let copy = strdup(file)
        let old = path
        path = copy
        free(old)
    }

    static func unregister() {
        let old = path
        path = nil
        free(old)
    }
}
