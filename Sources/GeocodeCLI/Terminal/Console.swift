#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ReverseGeocoder

/// Text output to a file descriptor (stdout or stderr), one write(2) per call so lines from the progress
/// bar and from row reports never interleave mid-line.
struct Console: Sendable {
    let fd: Int32

    static let standardOutput = Console(fd: 1)
    static let standardError = Console(fd: 2)

    /// Best effort: for messages and progress, where a failed write has nowhere better to be reported.
    func write(_ text: String) {
        _ = FileDescriptorIO.writeAll(fd, Array(text.utf8))
    }

    /// For a command's result: a write that fails (disk full, stdout closed, a closed pipe) is an I/O
    /// error (exit 5), never lost output with exit 0.
    func emit(_ text: String) throws(CLIError) {
        if let error = FileDescriptorIO.writeAll(fd, Array(text.utf8)) {
            throw .io("cannot write \(fd == 1 ? "<stdout>" : "descriptor \(fd)"): \(FileDescriptorIO.message(error))")
        }
    }

    /// Whether the descriptor is a terminal (progress bars only go to terminals).
    var isTerminal: Bool { isatty(fd) == 1 }

    /// The terminal's width in columns, 80 when unknown.
    var width: Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
