#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One run of a ``SerialGPSSource``: a dedicated thread that opens the device, reads it, decodes and
/// yields, and when the device goes away reports it and reopens with back-off, until stopped.
///
/// The thread only ever blocks in `poll(2)` on the device and a wake-up pipe, so ``stop()`` (a byte
/// down the pipe) ends it promptly whatever the device is doing, and no caller ever waits for it.
final class SerialGPSReader: Sendable {
    private let configuration: SerialGPSSource.Configuration
    private let continuation: AsyncStream<LocationSourceEvent>.Continuation
    private let stopped = Mutex(false)
    /// Read and write ends of the wake-up pipe. Closed in `deinit`, after both the thread and the
    /// source have let go, so `stop()` can never write to a descriptor that was closed (and reused).
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(configuration: SerialGPSSource.Configuration, continuation: AsyncStream<LocationSourceEvent>.Continuation) {
        self.configuration = configuration
        self.continuation = continuation
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Starts the reading thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "SerialGPSSource \(configuration.path)"
        thread.start()
    }

    /// Asks the thread to finish and ends the stream now; returns at once.
    func stop() {
        let wasStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !wasStopped else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        continuation.finish()
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    // MARK: The thread

    private enum Ending {
        case stopped
        case disconnected(String)
    }

    private func run() {
        defer { continuation.finish() }
        guard wakeRead >= 0 else {
            continuation.yield(.error(.sourceUnavailable("\(configuration.path): cannot create a wake-up pipe")))
            return
        }
        var delay = configuration.reconnectDelay
        // Back-off waited since data last flowed, against configuration.retryFor.
        var waited: Duration = .zero
        var lastOpenError: SerialPortError?
        var lastReason = ""
        /// Waits before the next attempt, unless stopped or out of retry budget; false ends the run.
        func backOff() -> Bool {
            if let budget = configuration.retryFor, waited >= budget {
                continuation.yield(.error(.sourceUnavailable("\(configuration.path): gave up after retrying for "
                                                             + "\(Self.seconds(budget)) (\(lastReason))")))
                return false
            }
            let wait = configuration.retryFor.map { min(delay, $0 - waited) } ?? delay
            guard pause(wait) else { return false }
            waited += wait
            delay = min(delay * 2, configuration.maximumReconnectDelay)
            return true
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }

        while !isStopped {
            let port: SerialPort
            do {
                port = try SerialPort(path: configuration.path, baudRate: configuration.baudRate,
                                      exclusive: configuration.exclusive)
            } catch {
                // Said once per distinct reason, not at every retry.
                if error != lastOpenError { continuation.yield(.error(.sourceUnavailable(error.description))) }
                lastOpenError = error
                lastReason = error.description
                guard backOff() else { return }
                continue
            }
            lastOpenError = nil
            var decoder = NMEALocationDecoder(parser: NMEAParser(options: configuration.parser),
                                              assembler: configuration.assembler)
            let ending = read(port, &decoder, buffer, resetDelay: { delay = configuration.reconnectDelay; waited = .zero })
            _ = consume port  // closed now, before any reopening
            switch ending {
            case .stopped:
                return
            case .disconnected(let reason):
                // Report the last complete cycle; the sentence cut off mid-way is dropped.
                yield(decoder.disconnect())
                continuation.yield(.error(.deviceDisconnected("\(configuration.path): \(reason)")))
                lastReason = reason
                guard backOff() else { return }
            }
        }
    }

    /// Reads until the device goes away or the run is stopped.
    private func read(_ port: borrowing SerialPort, _ decoder: inout NMEALocationDecoder,
                      _ buffer: UnsafeMutableRawBufferPointer, resetDelay: () -> Void) -> Ending {
        var fds = [pollfd(fd: port.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let idleMilliseconds = Int32(configuration.idleFlush.components.seconds * 1000
            + configuration.idleFlush.components.attoseconds / 1_000_000_000_000_000)
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            // With a cycle half-reported, wake up when the line goes quiet to deliver it.
            let ready = poll(&fds, 2, decoder.hasPendingCycle ? max(idleMilliseconds, 1) : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .disconnected(SerialPortError.text(errno))
            }
            if fds[1].revents != 0 || isStopped { return .stopped }
            if ready == 0 {
                yield(decoder.flushCycle())
                continue
            }
            let events = Int32(fds[0].revents)
            if events & Int32(POLLIN) != 0 {
                switch port.readAvailable(into: buffer) {
                case .bytes(let n):
                    resetDelay()
                    yield(decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<n])))
                case .nothing:
                    continue
                case .gone(let reason):
                    return .disconnected(reason)
                }
            } else if events & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 {
                return .disconnected("hang-up")
            }
        }
    }

    private func yield(_ outputs: [NMEALocationDecoder.Output]) {
        for output in outputs {
            switch output {
            case .location(let location):
                continuation.yield(.location(location))
            case .rejected(let error, _, let text):
                if configuration.reportsRejectedLines {
                    continuation.yield(.error(.parse("\(configuration.path): \(error): \(text)")))
                }
            }
        }
    }

    /// "30 s", "0.25 s".
    static func seconds(_ d: Duration) -> String {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

    /// Waits `duration` unless stopped first; false when stopped.
    private func pause(_ duration: Duration) -> Bool {
        var fd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + duration
        while !isStopped {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return true }
            let ms = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1,
                               Int64(Int32.max)))
            if poll(&fd, 1, ms) > 0 { return false }
        }
        return false
    }
}
