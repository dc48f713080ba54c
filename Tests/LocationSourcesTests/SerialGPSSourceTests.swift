#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import LocationSources

/// The serial source against real pseudo-terminals.
///
/// Reconnection needs a device that disappears and comes back *at the same path*. A pty cannot be
/// reopened once its master is closed (its `/dev/pts/N` goes away), so the source is pointed at a
/// symlink in a temporary directory, as users point it at `/dev/serial/by-id/…` symlinks that udev
/// recreates when a receiver is plugged back in. "Unplugging" closes the pty's master; "plugging back
/// in" creates a new pty and atomically re-points the symlink (a new symlink renamed over the old).
/// The source reopens the path on its own back-off and must find the new device. In between the link
/// dangles (udev has removed the node), so the source also has to survive "no such device".
@Suite(.serialized)
struct SerialGPSSourceTests {
    /// A temporary directory holding the `gps0` symlink the source opens.
    final class DeviceLink {
        let directory: URL
        var path: String { directory.appendingPathComponent("gps0").path }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        /// Points `gps0` at `target`, atomically.
        func point(to target: String) throws {
            let temporary = directory.appendingPathComponent("gps0.new").path
            unlink(temporary)
            guard symlink(target, temporary) == 0, rename(temporary, path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// One cycle as a receiver sends it: GGA, GSA, RMC, at `second` past noon, latitude minutes `minutes`.
    static func cycle(second: Int, minutes: Int) -> String {
        let time = String(format: "1200%02d.00", second % 60)
        let lat = String(format: "48%02d.0000", minutes)
        return NMEAChecksum.sentence("GPGGA,\(time),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") + "\r\n"
            + NMEAChecksum.sentence("GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,0.9,1.5") + "\r\n"
            + NMEAChecksum.sentence("GPRMC,\(time),A,\(lat),N,01131.000,E,0.5,54.7,230394,,,A") + "\r\n"
    }

    /// Sends a cycle every 50 ms until cancelled, as a receiver would (the source may open the
    /// device at any moment, and flushes what was buffered before).
    static func feed(_ pty: SerialTestPTY, minutes: Int) -> Task<Void, Never> {
        Task.detached {
            var second = 0
            while !Task.isCancelled {
                pty.send(cycle(second: second, minutes: minutes))
                second += 1
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static func configuration(_ path: String) -> SerialGPSSource.Configuration {
        SerialGPSSource.Configuration(path: path, baudRate: .b38400, reconnectDelay: .milliseconds(50),
                                      maximumReconnectDelay: .milliseconds(400), idleFlush: .milliseconds(200))
    }

    /// Waits for the first event matching `match`, failing after `timeout`.
    static func next(_ iterator: inout AsyncStream<LocationSourceEvent>.Iterator, timeout: Duration = .seconds(900),
                     where match: (LocationSourceEvent) -> Bool) async -> LocationSourceEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let event = await iterator.next() else { return nil }
            if match(event) { return event }
        }
        return nil
    }

    @Test func fixesArriveFromAPseudoTerminal() async throws {
        let pty = try SerialTestPTY()
        let source = SerialGPSSource(configuration: Self.configuration(pty.slavePath))
        let feeder = Self.feed(pty, minutes: 7)
        defer { feeder.cancel(); source.stop(); pty.hangUp() }

        var fixes: [Location] = []
        for await event in source.events() {
            guard case .location(let location) = event else { continue }
            fixes.append(location)
            if fixes.count == 3 { break }
        }
        #expect(fixes.count == 3)
        #expect(fixes.allSatisfy { $0.isValid && abs($0.coordinate.latitude - (48 + 7.0 / 60)) < 1e-12 })
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(fixes.first.map { abs($0.horizontalAccuracy - 0.9 * 5) < 1e-9 } == true)

        // The device was set up as asked: raw, 38400 baud, exclusive.
        let settings = pty.settings()
        #expect(cfgetispeed([settings]) == speed_t(B38400))
        #expect(settings.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(pty.isExclusive())
    }

    @Test func theDeviceGoingAwayIsReportedAndItsReturnIsFound() async throws {
        let link = try DeviceLink()
        let first = try SerialTestPTY()
        try link.point(to: first.slavePath)
        let source = SerialGPSSource(configuration: Self.configuration(link.path))
        var events = source.events().makeAsyncIterator()
        var feeder = Self.feed(first, minutes: 7)
        defer { source.stop() }

        // Plugged in: fixes from the first device.
        let before = await Self.next(&events) { if case .location = $0 { true } else { false } }
        guard case .location(let fix)? = before else {
            Issue.record("no fix from the first device")
            feeder.cancel()
            return
        }
        #expect(abs(fix.coordinate.latitude - (48 + 7.0 / 60)) < 1e-12)

        // Unplugged mid-sentence: half a GGA, then the master closes.
        feeder.cancel()
        await feeder.value
        first.send("$GPGGA,120059.00,4807.00")
        try await Task.sleep(for: .milliseconds(100))
        first.hangUp()
        // udev removes the device node: the link dangles while the receiver is away.
        try link.point(to: link.directory.appendingPathComponent("unplugged").path)
        var sawDisconnect = false
        let disconnected = await Self.next(&events) { event in
            if case .location(let location) = event {
                // The last complete cycle may still arrive; nothing from the cut-off sentence.
                #expect(abs(location.coordinate.latitude - (48 + 7.0 / 60)) < 1e-12)
                return false
            }
            if case .error(.deviceDisconnected(let message)) = event {
                sawDisconnect = true
                #expect(message.hasPrefix(link.path))
                return true
            }
            return false  // .sourceUnavailable while it retries is fine
        }
        #expect(disconnected != nil && sawDisconnect)
        // While it is away, the source says why it cannot reopen (once), and keeps trying.
        let away = await Self.next(&events) { if case .error(.sourceUnavailable) = $0 { true } else { false } }
        if case .error(.sourceUnavailable(let message))? = away {
            #expect(message.contains("No such file or directory"))
        } else {
            Issue.record("no sourceUnavailable while the device was away: \(String(describing: away))")
        }

        // Plugged back in (a different pty, the same path): fixes resume, from the new device.
        let second = try SerialTestPTY()
        try link.point(to: second.slavePath)
        feeder = Self.feed(second, minutes: 9)
        defer { feeder.cancel(); second.hangUp() }
        let after = await Self.next(&events) { event in
            if case .location(let location) = event { return abs(location.coordinate.latitude - (48 + 9.0 / 60)) < 1e-12 }
            return false
        }
        #expect(after != nil, "no fix after the device came back")
    }

    @Test func aHangUpMidSentenceIsADisconnectNotAFix() async throws {
        let pty = try SerialTestPTY()
        let source = SerialGPSSource(configuration: Self.configuration(pty.slavePath))
        var events = source.events().makeAsyncIterator()
        let feeder = Self.feed(pty, minutes: 7)
        defer { source.stop() }
        let fix = await Self.next(&events) { if case .location = $0 { true } else { false } }
        #expect(fix != nil)
        feeder.cancel()
        await feeder.value
        // Half a sentence with a different position, then the line hangs up under the reader while
        // the node stays (another process still has it open). Linux answers the read with end of file
        // (other kernels and USB drivers with EIO; both mean "gone").
        pty.send("$GPGGA,120059.00,4859.000,N,01131.000,E,1,08,0.9,545.4,M,4")
        try await Task.sleep(for: .milliseconds(100))
        pty.hangUp(keepingSlave: true)
        let disconnected = await Self.next(&events) { event in
            if case .location(let location) = event {
                #expect(abs(location.coordinate.latitude - (48 + 7.0 / 60)) < 1e-12, "a fix from the cut-off sentence")
            }
            return event.isDisconnect
        }
        guard case .error(.deviceDisconnected(let message))? = disconnected else {
            Issue.record("no disconnect: \(String(describing: disconnected))")
            return
        }
        #expect(message == "\(pty.slavePath): Input/output error" || message == "\(pty.slavePath): end of file")
    }

    /// Issue 18: `track --serial /dev/nonexistent` waited forever. With a retry budget the source gives up,
    /// says so, and its stream ends. The budget counts back-off waits, not wall time, so a busy machine
    /// gives the same sequence of events.
    @Test func aDeviceThatNeverAppearsIsGivenUpOnOnceTheRetryBudgetIsSpent() async throws {
        let link = try DeviceLink()  // gps0 does not exist
        var configuration = Self.configuration(link.path)
        configuration.reconnectDelay = .milliseconds(5)
        configuration.maximumReconnectDelay = .milliseconds(20)
        configuration.retryFor = .milliseconds(60)
        let source = SerialGPSSource(configuration: configuration)
        var events: [LocationSourceEvent] = []
        for await event in source.events() { events.append(event) }  // ends by itself
        // Once per distinct reason, then the give-up: nothing else.
        #expect(events.count == 2, "\(events)")
        guard case .error(.sourceUnavailable(let first))? = events.first,
              case .error(.sourceUnavailable(let last))? = events.last else {
            Issue.record("expected two sourceUnavailable errors: \(events)")
            return
        }
        #expect(first.contains(link.path) && !first.contains("gave up"))
        #expect(last.contains("\(link.path): gave up after retrying for 0.06 s"), "\(last)")
    }

    @Test func aZeroRetryBudgetGivesUpAtTheFirstFailure() async throws {
        var configuration = Self.configuration("/dev/nonexistent-gps-\(getpid())")
        configuration.retryFor = .zero
        let source = SerialGPSSource(configuration: configuration)
        var events: [LocationSourceEvent] = []
        for await event in source.events() { events.append(event) }
        #expect(events.count == 2)
        if case .error(.sourceUnavailable(let last))? = events.last { #expect(last.contains("gave up after retrying for 0 s")) }
        else { Issue.record("\(events)") }
    }

    /// The budget applies after a disconnect too, and starts from the moment data stopped flowing: a
    /// receiver unplugged for good ends the run instead of being waited for forever.
    @Test func anUnpluggedReceiverIsGivenUpOnAfterTheBudget() async throws {
        let pty = try SerialTestPTY()
        let link = try DeviceLink()
        try link.point(to: pty.slavePath)
        var configuration = Self.configuration(link.path)
        configuration.reconnectDelay = .milliseconds(5)
        configuration.maximumReconnectDelay = .milliseconds(20)
        configuration.retryFor = .milliseconds(100)
        let source = SerialGPSSource(configuration: configuration)
        var events = source.events().makeAsyncIterator()
        let feeder = Self.feed(pty, minutes: 7)
        defer { source.stop() }
        #expect(await Self.next(&events) { if case .location = $0 { true } else { false } } != nil)
        feeder.cancel()
        await feeder.value
        pty.hangUp()
        try link.point(to: link.directory.appendingPathComponent("unplugged").path)
        let gaveUp = await Self.next(&events) { event in
            if case .error(.sourceUnavailable(let s)) = event { return s.contains("gave up") }
            return false
        }
        guard case .error(.sourceUnavailable(let message))? = gaveUp else {
            Issue.record("the source did not give up")
            return
        }
        #expect(message.contains("gave up after retrying for 0.1 s"), "\(message)")
        // And the stream ends.
        #expect(await events.next() == nil)
    }

    @Test func unsupportedBaudRatesAreAClearError() throws {
        #expect(throws: SerialPortError.unsupportedBaudRate(12345)) {
            try SerialGPSSource(path: "/dev/ttyUSB0", baudRate: 12345)
        }
        #expect(throws: SerialPortError.unsupportedBaudRate(0)) { try SerialBaudRate(0) }
        #expect(SerialPortError.unsupportedBaudRate(12345).description
                == "unsupported baud rate 12345 (supported: 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)")
        for rate in [4800, 9600, 38400, 115_200] {
            #expect(try SerialBaudRate(rate).bitsPerSecond == rate)
        }
        #expect(try SerialBaudRate(4800) == .b4800)
    }

    @Test func theCallerIsNeverBlocked() async throws {
        let clock = ContinuousClock()
        // Hang guards, not speed claims: a blocking events() or stop() would wait for ever (the reader polls
        // with no timeout; stop() only writes a byte down its wake-up pipe), so a generous bound tells a
        // block from a busy machine's scheduling. One second failed once at load 25 (1.26 s).
        let prompt = Duration.seconds(15)

        // A FIFO: a plain blocking open() would wait forever for a writer. The source opens it on its
        // own thread, finds it is no terminal, and says so.
        let link = try DeviceLink()
        guard mkfifo(link.path, 0o600) == 0 else { throw POSIXError(.EIO) }
        let fifo = SerialGPSSource(configuration: Self.configuration(link.path))
        var start = clock.now
        var events = fifo.events().makeAsyncIterator()
        #expect(clock.now - start < prompt)
        let error = await Self.next(&events) { if case .error = $0 { true } else { false } }
        #expect(error == .error(.sourceUnavailable("\(link.path): not a serial device (not a terminal)")))
        start = clock.now
        fifo.stop()
        #expect(clock.now - start < prompt)
        #expect(await events.next() == nil)

        // A silent device: events() returns at once, the caller keeps working, and stop() ends the
        // stream promptly though the reading thread is waiting in poll(2).
        let pty = try SerialTestPTY()
        defer { pty.hangUp() }
        let silent = SerialGPSSource(configuration: Self.configuration(pty.slavePath))
        start = clock.now
        let stream = silent.events()
        #expect(clock.now - start < prompt)
        let consumer = Task { () -> Int in
            var n = 0
            for await _ in stream { n += 1 }
            return n
        }
        var work = 0
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(20))
            work += 1
        }
        #expect(work == 10)
        start = clock.now
        silent.stop()
        #expect(clock.now - start < prompt)
        #expect(await consumer.value == 0)

        // A missing device: one clear error, retried quietly, stoppable.
        let missing = SerialGPSSource(configuration: Self.configuration("/dev/nonexistent-gps-\(UUID().uuidString)"))
        var missingEvents = missing.events().makeAsyncIterator()
        let missingError = await Self.next(&missingEvents) { _ in true }
        if case .error(.sourceUnavailable(let message))? = missingError {
            #expect(message.contains("No such file or directory"))
        } else {
            Issue.record("expected sourceUnavailable, got \(String(describing: missingError))")
        }
        missing.stop()
        #expect(await missingEvents.next() == nil)
    }
}

extension LocationSourceEvent {
    var isDisconnect: Bool {
        if case .error(.deviceDisconnected) = self { return true }
        return false
    }
}
