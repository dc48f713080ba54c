#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a serial device could not be used. Each case names the device and the system's reason.
public enum SerialPortError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rate is not one termios can set (see ``SerialBaudRate/supported``).
    case unsupportedBaudRate(Int)
    /// `open(2)` failed (no such device, permission denied, …).
    case openFailed(path: String, errno: Int32)
    /// Another process holds the device exclusively (`TIOCEXCL`), or it is otherwise busy.
    case busy(path: String)
    /// The path is not a terminal device (a file, a FIFO, a socket).
    case notATerminal(path: String)
    /// termios or ioctl refused the settings.
    case configurationFailed(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unsupportedBaudRate(let rate):
            let list = SerialBaudRate.supported.map(String.init).joined(separator: ", ")
            return "unsupported baud rate \(rate) (supported: \(list))"
        case .openFailed(let path, let code): return "\(path): cannot open: \(Self.text(code))"
        case .busy(let path): return "\(path): device busy (opened exclusively by another program?)"
        case .notATerminal(let path): return "\(path): not a serial device (not a terminal)"
        case .configurationFailed(let path, let code): return "\(path): cannot configure: \(Self.text(code))"
        }
    }

    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
