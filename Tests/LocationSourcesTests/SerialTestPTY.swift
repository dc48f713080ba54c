#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A real pseudo-terminal for the serial tests: the test writes NMEA into the master side, the source
/// under test opens the slave side as if it were `/dev/ttyUSB0`.
///
/// The slave is created raw (no echo, no line editing), so bytes written before the source has set
/// its own termios are not echoed back into the master, and the test keeps its own slave descriptor
/// open for the pty's lifetime so writes are buffered even while the source has it closed.
final class SerialTestPTY: Sendable {
    let master: Int32
    private let slave: Int32
    /// Which ends are still open (closed at most once each).
    private let open = Mutex((master: true, slave: true))
    /// `/dev/pts/N`.
    let slavePath: String

    init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        var raw = termios()
        cfmakeraw(&raw)
        guard openpty(&master, &slave, nil, &raw, nil) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // Writes must never block the test, even with nobody reading the slave.
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
        self.slave = slave
        slavePath = String(cString: ttyname(slave))
    }

    /// Writes `text` to the master (what the "receiver" sends); bytes that do not fit are dropped.
    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { buffer in
            write(master, buffer.baseAddress, buffer.count - 1)
        }
    }

    /// The termios the device has now (as the source configured it).
    func settings() -> termios {
        var settings = termios()
        _ = tcgetattr(slave, &settings)
        return settings
    }

    /// Whether the slave is in exclusive mode (`TIOCGEXCL`, `_IOR('T', 0x40, int)`, which Swift cannot
    /// import as a macro).
    func isExclusive() -> Bool {
        var value: Int32 = 0
        return ioctl(slave, 0x8004_5440, &value) == 0 && value != 0
    }

    /// Hangs up: the master closes, as when a USB receiver is unplugged. With `keepingSlave`, the
    /// test's own slave descriptor stays open, so the device node stays while the line is hung up
    /// (as when another program still has an unplugged device open).
    func hangUp(keepingSlave: Bool = false) {
        let (closeMaster, closeSlave) = open.withLock { state in
            defer {
                state.master = false
                if !keepingSlave { state.slave = false }
            }
            return (state.master, state.slave && !keepingSlave)
        }
        if closeMaster { close(master) }
        if closeSlave { close(slave) }
    }

    deinit { hangUp() }
}
