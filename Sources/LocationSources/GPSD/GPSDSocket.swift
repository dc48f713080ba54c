import Glibc

/// The few blocking-socket operations the gpsd client needs, each bounded and interruptible: every
/// wait also watches a "wake" descriptor, so stopping the client never waits for the network.
enum GPSDSocket {
    enum Connect {
        case connected(Int32)
        case failed(String)
        /// The wake descriptor became readable: the client is stopping.
        case interrupted
    }

    enum Wait {
        case ready
        case timedOut
        case interrupted
    }

    /// Connects to `host:port` (any address family `getaddrinfo` offers, in its order), giving up on
    /// each address after `timeout` seconds. The socket returned is non-blocking and close-on-exec.
    static func connect(host: String, port: UInt16, timeout: Double, wake: Int32) -> Connect {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = socketStream
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failed("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }

        var lastError = "no address for \(host)"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            let fd = socket(info.ai_family, socketStream | socketFlags, info.ai_protocol)
            guard fd >= 0 else {
                lastError = errorText()
                continue
            }
            if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) == 0 { return .connected(fd) }
            guard errno == EINPROGRESS else {
                lastError = errorText()
                close(fd)
                continue
            }
            switch wait(for: fd, events: Int16(POLLOUT), timeout: timeout, wake: wake) {
            case .interrupted:
                close(fd)
                return .interrupted
            case .timedOut:
                lastError = "connection timed out after \(timeout) s"
                close(fd)
            case .ready:
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return .connected(fd) }
                lastError = String(cString: strerror(error))
                close(fd)
            }
        }
        return .failed(lastError)
    }

    /// Waits until `fd` has `events` (or an error/hang-up), `timeout` seconds pass (`nil`: forever),
    /// or `wake` becomes readable.
    static func wait(for fd: Int32?, events: Int16, timeout: Double?, wake: Int32) -> Wait {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: .seconds($0)) }
        while true {
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: fd ?? -1, events: events, revents: 0)]
            var milliseconds: Int32 = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                if left <= .zero { return .timedOut }
                let ms = Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15
                milliseconds = Int32(min(ms.rounded(.up), Double(Int32.max)))
            }
            let n = poll(&fds, nfds_t(fds.count), milliseconds)
            if n < 0 {
                if errno == EINTR { continue }
                return .interrupted
            }
            if fds[0].revents != 0 { return .interrupted }
            if fds[1].revents != 0 { return .ready }
            if n == 0, deadline != nil, clock.now >= deadline! { return .timedOut }
        }
    }

    /// Writes all of `text`, without SIGPIPE if gpsd has gone (the error is reported instead).
    static func send(_ text: String, to fd: Int32, wake: Int32) -> String? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                switch wait(for: fd, events: Int16(POLLOUT), timeout: 5, wake: wake) {
                case .ready: continue
                case .timedOut: return "write timed out"
                case .interrupted: return "stopped"
                }
            } else {
                return errorText()
            }
        }
        return nil
    }

    static func errorText() -> String {
        String(cString: strerror(errno))
    }

    private static let socketStream = Int32(SOCK_STREAM.rawValue)
    private static let socketFlags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
}
