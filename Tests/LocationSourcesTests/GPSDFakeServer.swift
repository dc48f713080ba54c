import Foundation
import Glibc

/// A scripted stand-in for gpsd on 127.0.0.1, for client behaviour a real daemon can't be made to
/// show on demand (split lines, garbage, silence). Loopback only; every wait has a timeout.
final class GPSDFakeServer: Sendable {
    let port: UInt16
    private let listener: Int32

    /// Listens on 127.0.0.1:`port` (0 = any free port).
    init(port: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw GPSDTestError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw GPSDTestError("bind/listen 127.0.0.1:\(port): \(message)")
        }
        listener = fd
        self.port = port != 0 ? port : Self.localPort(of: fd)
    }

    /// A free loopback port: bound, read back, and released (another process could take it in between,
    /// but on a test machine that is rare and shows up as a clear bind failure).
    static func freePort() throws -> UInt16 {
        let server = try GPSDFakeServer()
        defer { server.close() }
        return server.port
    }

    /// The next connection, or nil after `timeout`.
    func accept(timeout: Duration) async -> GPSDFakePeer? {
        await GPSDBlocking.run { [listener] in
            guard GPSDBlocking.poll(listener, events: Int16(POLLIN), timeout: timeout) else { return nil }
            let fd = Glibc.accept(listener, nil, nil)
            return fd >= 0 ? GPSDFakePeer(fd: fd) : nil
        }
    }

    func close() {
        Glibc.close(listener)
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func localPort(of fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// One accepted client connection of `GPSDFakeServer`.
final class GPSDFakePeer: Sendable {
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line the client sent (without its newline), or nil on timeout/EOF.
    func readLine(timeout: Duration) async -> String? {
        await GPSDBlocking.run { [fd] in
            var bytes: [UInt8] = []
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard GPSDBlocking.poll(fd, events: Int16(POLLIN), timeout: ContinuousClock.now.duration(to: deadline)) else { break }
                var byte: UInt8 = 0
                guard recv(fd, &byte, 1, 0) == 1 else { return nil }
                if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
                bytes.append(byte)
            }
            return nil
        }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func close() {
        Glibc.close(fd)
    }
}
