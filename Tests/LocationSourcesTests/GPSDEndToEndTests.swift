import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// The client against a real gpsd on loopback, fed NMEA through a pseudo-terminal.
@Suite("gpsd end to end", .serialized, .timeLimit(.minutes(30)),
       .enabled(if: GPSDDaemon.executable != nil,
                "gpsd is not installed (apt-get install gpsd): skipping the end-to-end gpsd test"))
struct GPSDEndToEndTests {
    /// Positions gpsd reports must equal the sentences' to this many degrees (≈ 1 cm).
    static let tolerance = 1e-7
    /// Bound on each phase's wait. A phase normally takes under 2 s; the bound is generous because in
    /// the full suite other tests can stall Swift's cooperative threads (which the recorder runs on)
    /// for seconds, and waits end as soon as their condition holds.
    static let patience: Duration = .seconds(900)

    @Test("TPVs carry the NMEA positions; gpsd killed → disconnect; restarted → reconnected; receiver silent → noticed")
    func positionsDisconnectReconnect() async throws {
        let clock = ContinuousClock()
        let began = clock.now
        let terminal = try GPSDPseudoTerminal()
        defer { terminal.close() }
        let feeder = GPSDNMEAFeeder(terminal: terminal, interval: 0.2)
        feeder.start()
        defer { feeder.stop() }

        let port = try GPSDFakeServer.freePort()
        var daemons = [try GPSDDaemon(port: port, device: terminal.path)]
        defer { daemons.forEach { $0.kill() } }

        // gpsd answers a new client only after about a second of hunting the device's speed, so the
        // silence timeout must be longer than that.
        let client = GPSDClient(configuration: .init(host: "127.0.0.1", port: port, connectTimeout: 2,
                                                     initialReconnectDelay: 0.1, maxReconnectDelay: 0.5,
                                                     silenceTimeout: 2.5))
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        // 1. gpsd identifies the pty as NMEA0183 after about a second of sentences, then reports a
        //    TPV per cycle. Wait for four with receiver time.
        let firstFixes = await recorder.wait(timeout: Self.patience) { Self.timed(GPSDEvents.locations($0)).count >= 4 }
        #expect(firstFixes, "no TPVs from gpsd; events: \(recorder.events)\ngpsd log:\n\(daemons[0].log)")
        let firstFixAfter = clock.now - began
        try #require(firstFixes)
        check(recorder.locations, against: feeder)

        // 2. Kill gpsd: the connection closes, the client must say so.
        let beforeKill = recorder.events.count
        await daemons[0].terminate()
        #expect(!daemons[0].isRunning)
        let disconnected = await recorder.wait(timeout: Self.patience) {
            GPSDEvents.errors($0.dropFirst(beforeKill)).contains(where: GPSDEvents.isDisconnect)
        }
        #expect(disconnected, "no disconnect after gpsd exited: \(recorder.events.dropFirst(beforeKill))")

        // 3. Restart gpsd on the same port and device: the client reconnects on its own.
        let afterKill = recorder.events.count
        let restartedAt = clock.now
        daemons.append(try GPSDDaemon(port: port, device: terminal.path))
        let reconnected = await recorder.wait(timeout: Self.patience) {
            Self.timed(GPSDEvents.locations($0.dropFirst(afterKill))).count >= 3
        }
        #expect(reconnected, "no fixes after restart; events: \(recorder.events.dropFirst(afterKill))\ngpsd log:\n\(daemons[1].log)")
        let reconnectAfter = clock.now - restartedAt
        check(GPSDEvents.locations(recorder.events.dropFirst(afterKill)), against: feeder)

        // While gpsd was down the client retried and said why.
        let downErrors = GPSDEvents.errors(recorder.events[beforeKill..<afterKill])
            + GPSDEvents.errors(recorder.events.dropFirst(afterKill))
        #expect(downErrors.allSatisfy { GPSDEvents.isDisconnect($0) || GPSDEvents.isUnavailable($0) }, "\(downErrors)")

        // 4. The receiver goes quiet: gpsd keeps the device and the connection open and tells its
        //    clients nothing, so only the client's silence timeout can notice.
        feeder.stop()
        let beforeSilence = recorder.events.count
        let noticed = await recorder.wait(timeout: Self.patience) {
            GPSDEvents.errors($0.dropFirst(beforeSilence)).contains {
                GPSDEvents.isDisconnect($0) && $0.description.contains("no report for 2.5 s")
            }
        }
        #expect(noticed, "silence not reported: \(recorder.events.dropFirst(beforeSilence))")

        await daemons[1].terminate()
        print("gpsd end-to-end: first fix \(firstFixAfter) after start, fixes again \(reconnectAfter) after restart, "
              + "\(recorder.locations.count) fixes, \(recorder.errors.count) errors, total \(clock.now - began)")
    }

    /// Locations stamped with the feeder's receiver time (gpsd's first report of a session has none:
    /// it won't use GGA's time of day until an RMC has told it the date).
    static func timed(_ locations: [Location]) -> [Location] {
        locations.filter { GPSDNMEAFeeder.isReceiverTime($0.timestamp) }
    }

    private func check(_ locations: [Location], against feeder: GPSDNMEAFeeder,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        for location in locations {
            #expect(location.isValid && location.quality == .fix3D, "\(location)", sourceLocation: sourceLocation)
            #expect(location.altitude == 545.4, sourceLocation: sourceLocation)
            let expected: Coordinate?
            if GPSDNMEAFeeder.isReceiverTime(location.timestamp) {
                expected = feeder.sentPosition(at: location.timestamp)
                #expect(expected != nil, "gpsd reported a time we never sent: \(location.timestamp)",
                        sourceLocation: sourceLocation)
            } else {
                // Untimed first report: it must still be one of the positions sent.
                expected = feeder.sentPositions.first {
                    abs($0.latitude - location.coordinate.latitude) <= Self.tolerance
                        && abs($0.longitude - location.coordinate.longitude) <= Self.tolerance
                }
                #expect(expected != nil, "position never sent: \(location.coordinate)", sourceLocation: sourceLocation)
            }
            guard let expected else { continue }
            #expect(abs(location.coordinate.latitude - expected.latitude) <= Self.tolerance,
                    "lat \(location.coordinate.latitude) vs sent \(expected.latitude)", sourceLocation: sourceLocation)
            #expect(abs(location.coordinate.longitude - expected.longitude) <= Self.tolerance,
                    "lon \(location.coordinate.longitude) vs sent \(expected.longitude)", sourceLocation: sourceLocation)
        }
    }
}
