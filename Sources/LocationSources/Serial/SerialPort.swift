#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open serial device in raw mode: the one place that knows termios.
///
/// Non-copyable so the descriptor has exactly one owner and is closed exactly once (when the value
/// ends). Opened non-blocking: reads happen after `poll(2)` says there is data, so nothing here can
/// stall the reading thread, and opening cannot hang waiting for a modem's carrier.
struct SerialPort: ~Copyable {
    let descriptor: Int32
    let path: String

    /// What a read found.
    enum ReadResult {
        case bytes(Int)
        /// Nothing yet (EAGAIN, EINTR): poll again.
        case nothing
        /// The device is gone: end of file, EIO (a USB adapter unplugged, a pty's master closed), ….
        case gone(String)
    }

    /// Opens `path` (following symlinks, so `/dev/serial/by-id/…` names work) and configures it:
    /// raw 8N1, no flow control, receiver on, modem lines ignored (`CLOCAL`), the given speed, and
    /// exclusive (`TIOCEXCL`: no second program can open it while we read) when asked.
    init(path: String, baudRate: SerialBaudRate, exclusive: Bool) throws(SerialPortError) {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw code == EBUSY ? .busy(path: path) : .openFailed(path: path, errno: code)
        }
        // Until `self` exists, failures must close the descriptor themselves.
        func fail(_ error: SerialPortError) -> SerialPortError {
            close(fd)
            return error
        }
        guard isatty(fd) == 1 else { throw fail(.notATerminal(path: path)) }
        if exclusive && ioctl(fd, UInt(TIOCEXCL)) != 0 { throw fail(.configurationFailed(path: path, errno: errno)) }

        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { throw fail(.configurationFailed(path: path, errno: errno)) }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD | CS8)
        settings.c_cflag &= ~(tcflag_t(CSTOPB | PARENB) | tcflag_t(CRTSCTS))
        // Reads never wait inside the kernel: poll decides when there is something to read.
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, baudRate.speed) == 0, cfsetospeed(&settings, baudRate.speed) == 0,
              tcsetattr(fd, TCSANOW, &settings) == 0
        else { throw fail(.configurationFailed(path: path, errno: errno)) }
        // Whatever the line buffered before we came is stale: start with fresh sentences.
        tcflush(fd, TCIFLUSH)
        descriptor = fd
        self.path = path
    }

    /// Reads what is available into `buffer`.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let n = read(descriptor, buffer.baseAddress, buffer.count)
        if n > 0 { return .bytes(n) }
        if n == 0 { return .gone("end of file") }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
        return .gone(SerialPortError.text(code))
    }

    deinit { close(descriptor) }
}
