#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial line speed termios can set. Built only from a supported rate, so an unsupported one is
/// an error when the user types it, not a silent wrong speed later.
public struct SerialBaudRate: Sendable, Hashable, CustomStringConvertible {
    /// Bits per second.
    public let bitsPerSecond: Int

    /// The rates accepted: the standard termios speeds GNSS receivers use (NMEA's classic 4800,
    /// 9600 of most modules, up to 921600 of high-rate ones).
    public static let supported = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]

    /// Throws ``SerialPortError/unsupportedBaudRate(_:)`` for any other rate.
    public init(_ bitsPerSecond: Int) throws(SerialPortError) {
        guard Self.supported.contains(bitsPerSecond) else { throw .unsupportedBaudRate(bitsPerSecond) }
        self.bitsPerSecond = bitsPerSecond
    }

    private init(checked bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    /// NMEA 0183's standard rate.
    public static let b4800 = SerialBaudRate(checked: 4800)
    public static let b9600 = SerialBaudRate(checked: 9600)
    public static let b38400 = SerialBaudRate(checked: 38400)
    public static let b115200 = SerialBaudRate(checked: 115_200)

    /// The termios constant.
    var speed: speed_t {
        switch bitsPerSecond {
        case 1200: return speed_t(B1200)
        case 2400: return speed_t(B2400)
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115_200: return speed_t(B115200)
        case 230_400: return speed_t(B230400)
        case 460_800: return speed_t(B460800)
        default: return speed_t(B921600)  // the only other member of `supported`
        }
    }

    public var description: String { "\(bitsPerSecond) baud" }
}
