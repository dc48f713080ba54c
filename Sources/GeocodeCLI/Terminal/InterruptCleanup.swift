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

    /// Installs the handlers (once, from the executable's entry point, before any thread starts).
    ///
    /// A signal the parent set to be ignored stays ignored (that is how `nohup` and background jobs ask
    /// not to be interrupted). A signal the parent merely *blocked* is unblocked: a blocked mask is
    /// inherited by accident (e.g. from a libdispatch thread that spawned us), and leaving it would make
    /// Ctrl-C do nothing.
    public static func install() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(signalNumber) { received in
                if let path = InterruptCleanup.path { unlink(path) }
                let message = "\ngeocode: interrupted; output not written\n"
                _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
                _exit(128 + received)
            }
            if Self.address(previous) == Self.address(SIG_IGN) {
                signal(signalNumber, SIG_IGN)
            } else {
                sigaddset(&unblock, signalNumber)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// A signal disposition as a number, to compare with SIG_IGN (C function pointers are not Equatable).
    private static func address(_ handler: __sighandler_t?) -> Int {
        handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
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
