import Foundation
import Glibc
import Synchronization

/// One run of `GPSDClient`: a dedicated thread that connects, watches, reads and reconnects.
///
/// A thread rather than a task: the work is blocking socket I/O for as long as the run lasts, which
/// must not occupy one of the few cooperative-pool threads. Every wait also watches a pipe that
/// `stop()` writes to, so stopping is immediate even mid-connect or mid-back-off.
final class GPSDConnection: StoppableRun {
    private struct State {
        var stopped = false
        /// Write end of the wake pipe; `nil` once the thread has closed it.
        var wakeWrite: Int32?
    }

    private let configuration: GPSDClient.Configuration
    private let continuation: AsyncStream<LocationSourceEvent>.Continuation
    private let finished: @Sendable (GPSDConnection) -> Void
    private let state: Mutex<State>
    private let wakeRead: Int32
    private let endpoint: String

    init(configuration: GPSDClient.Configuration, continuation: AsyncStream<LocationSourceEvent>.Continuation,
         finished: @escaping @Sendable (GPSDConnection) -> Void) {
        self.configuration = configuration
        self.continuation = continuation
        self.finished = finished
        var fds: [Int32] = [-1, -1]
        // pipe2 isn't visible without _GNU_SOURCE; set the flags right after instead.
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        self.wakeRead = fds[0]
        self.state = Mutex(State(wakeWrite: fds[1] >= 0 ? fds[1] : nil))
        self.endpoint = configuration.host.contains(":") ? "[\(configuration.host)]:\(configuration.port)"
                                                         : "\(configuration.host):\(configuration.port)"
    }

    func start() {
        let thread = Thread { [self] in self.run() }
        thread.name = "gpsd client \(endpoint)"
        thread.start()
    }

    /// Ends the stream now and tells the thread to wind down.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            if let fd = state.wakeWrite {
                var byte: UInt8 = 1
                _ = write(fd, &byte, 1)
            }
            return !state.stopped
        }
        guard first else { return }
        continuation.finish()
        finished(self)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        defer {
            state.withLock { state in
                if let fd = state.wakeWrite { close(fd) }
                state.wakeWrite = nil
            }
            if wakeRead >= 0 { close(wakeRead) }
            stop()
        }
        guard wakeRead >= 0 else {
            continuation.yield(.error(.sourceUnavailable("gpsd at \(endpoint): cannot create a pipe: \(GPSDSocket.errorText())")))
            return
        }

        var delay = configuration.initialReconnectDelay
        while !isStopped {
            switch GPSDSocket.connect(host: configuration.host, port: configuration.port,
                                      timeout: configuration.connectTimeout, wake: wakeRead) {
            case .interrupted:
                return
            case .failed(let reason):
                continuation.yield(.error(.sourceUnavailable("gpsd at \(endpoint): \(reason)")))
            case .connected(let fd):
                let (reason, receivedAny) = session(fd)
                close(fd)
                guard let reason, !isStopped else { return }
                continuation.yield(.error(.deviceDisconnected("gpsd at \(endpoint): \(reason); reconnecting")))
                // A connection that worked resets the back-off: gpsd restarting should be picked up quickly.
                if receivedAny { delay = configuration.initialReconnectDelay }
            }
            if case .interrupted = GPSDSocket.wait(for: nil, events: 0, timeout: delay, wake: wakeRead) { return }
            delay = min(delay * 2, max(configuration.maxReconnectDelay, configuration.initialReconnectDelay))
        }
    }

    /// Watches and reads one connection until it ends. Returns why it ended (`nil` when stopped)
    /// and whether gpsd sent anything at all.
    private func session(_ fd: Int32) -> (String?, Bool) {
        if let failure = GPSDSocket.send("?WATCH={\"enable\":true,\"json\":true}\n", to: fd, wake: wakeRead) {
            return (isStopped ? nil : "cannot send WATCH: \(failure)", false)
        }
        var lines = GPSDLineBuffer()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var receivedAny = false
        while true {
            switch GPSDSocket.wait(for: fd, events: Int16(POLLIN), timeout: configuration.silenceTimeout, wake: wakeRead) {
            case .interrupted:
                return (nil, receivedAny)
            case .timedOut:
                let seconds = configuration.silenceTimeout.map { "\($0)" } ?? "?"
                return ("no report for \(seconds) s (gpsd stays silent when its device stops sending)", receivedAny)
            case .ready:
                break
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return ("gpsd closed the connection", receivedAny) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return ("read failed: \(GPSDSocket.errorText())", receivedAny)
            }
            receivedAny = true
            let (complete, overlong) = lines.append(buffer[0..<n])
            if overlong {
                continuation.yield(.error(.parse("gpsd at \(endpoint): line longer than \(GPSDLineBuffer.maximumLineLength) bytes dropped")))
            }
            let now = Date()
            for line in complete {
                if isStopped { return (nil, receivedAny) }
                handle(line, receivedAt: now)
            }
        }
    }

    private func handle(_ line: String, receivedAt: Date) {
        let report: GPSDReport
        do {
            report = try GPSDReport.parse(line)
        } catch {
            continuation.yield(.error(.parse(error.description)))
            return
        }
        switch report {
        case .tpv(let tpv):
            continuation.yield(.location(tpv.location(receivedAt: receivedAt,
                                                      assumedHorizontalAccuracy: configuration.assumedHorizontalAccuracy)))
        case .device(let path, active: false):
            // gpsd stays up and reopens the device when it returns; the TCP connection is fine.
            continuation.yield(.error(.deviceDisconnected("gpsd at \(endpoint) closed device \(path ?? "?")")))
        case .error(let message):
            continuation.yield(.error(.sourceUnavailable("gpsd at \(endpoint) reports an error: \(message)")))
        case .device, .other:
            break
        }
    }
}
