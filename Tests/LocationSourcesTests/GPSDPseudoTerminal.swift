import Foundation
import Glibc

/// A pseudo-terminal standing in for a GPS receiver's serial port: gpsd opens `path` (the slave),
/// the test writes NMEA to the master. Both ends stay open for the test's whole run, so the device
/// survives gpsd being killed and restarted.
final class GPSDPseudoTerminal: Sendable {
    let master: Int32
    let slave: Int32
    let path: String

    init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw GPSDTestError("openpty: \(String(cString: strerror(errno)))")
        }
        guard let name = ttyname(slave) else {
            Glibc.close(master)
            Glibc.close(slave)
            throw GPSDTestError("ttyname: \(String(cString: strerror(errno)))")
        }
        // Raw mode: no echo of what we write back into the master, no line editing of NMEA.
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        // A master that never blocks: if nobody reads the slave (gpsd restarting), data is dropped
        // rather than hanging the feeder.
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        // gpsd runs as root and drops to the `gpsd` user after opening devices; on some set-ups it
        // reopens later, so let it.
        _ = fchmod(slave, 0o666)
        self.master = master
        self.slave = slave
        self.path = String(cString: name)
    }

    /// Writes `text` to the receiver side; false when the pty's buffer is full (the bytes are dropped).
    @discardableResult
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
        return n == bytes.count
    }

    /// Discards whatever gpsd wrote to the device (it shouldn't in read-only mode, but a full
    /// output queue would stall the pty).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(master, $0.baseAddress, $0.count) }) > 0 {}
    }

    func close() {
        Glibc.close(master)
        Glibc.close(slave)
    }
}
