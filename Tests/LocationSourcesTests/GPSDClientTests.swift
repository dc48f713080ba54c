import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// The client against a scripted fake gpsd on loopback: protocol details and failure handling.
@Suite("gpsd client (scripted server)", .serialized, .timeLimit(.minutes(30)))
struct GPSDClientTests {
    /// Longest wait for something that normally takes milliseconds. Generous because in the full
    /// suite other tests can hold Swift's cooperative threads (which the recorder and these waits run
    /// on) for seconds; waits end as soon as their condition holds, so this costs nothing when all is well.
    static let patience: Duration = .seconds(900)
    static let watch = #"?WATCH={"enable":true,"json":true}"#

    static func tpv(_ lat: Double, _ lon: Double, second: Int = 0) -> String {
        #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"2024-01-01T00:00:\#(String(format: "%02d", second)).000Z","lat":\#(lat),"lon":\#(lon),"eph":4.5}"#
    }

    static func client(port: UInt16, silence: Double? = nil) -> GPSDClient {
        GPSDClient(configuration: .init(host: "127.0.0.1", port: port, connectTimeout: 2,
                                        initialReconnectDelay: 0.05, maxReconnectDelay: 0.2, silenceTimeout: silence))
    }

    @Test("sends WATCH, reassembles lines split across reads, ignores other classes")
    func protocolBasics() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port)
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        let peer = try #require(await server.accept(timeout: Self.patience))
        defer { peer.close() }
        #expect(await peer.readLine(timeout: Self.patience) == Self.watch)

        peer.send(GPSDReportTests.version + "\r\n")
        let first = Self.tpv(48.1, 11.5, second: 1) + "\r\n"
        let cut1 = first.index(first.startIndex, offsetBy: 20), cut2 = first.index(cut1, offsetBy: 30)
        peer.send(String(first[..<cut1]))
        try await Task.sleep(for: .milliseconds(60))
        peer.send(String(first[cut1..<cut2]))
        try await Task.sleep(for: .milliseconds(60))
        peer.send(String(first[cut2...]) + #"{"class":"SKY","satellites":[]}"# + "\r\n")
        peer.send(#"{"class":"DEVICES","devices":[]}"# + "\r\n" + Self.tpv(-33.5, 151.25, second: 2) + "\r\n")

        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.locations($0).count >= 2 })
        let locations = recorder.locations
        #expect(locations.map(\.coordinate) == [Coordinate(latitude: 48.1, longitude: 11.5),
                                                Coordinate(latitude: -33.5, longitude: 151.25)])
        #expect(locations.allSatisfy { $0.horizontalAccuracy == 4.5 && $0.quality == .fix3D })
        #expect(recorder.errors.isEmpty, "\(recorder.errors)")
    }

    @Test("a dropped connection is reported, then the client reconnects and watches again")
    func reconnects() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port)
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        let first = try #require(await server.accept(timeout: Self.patience))
        #expect(await first.readLine(timeout: Self.patience) == Self.watch)
        first.send(Self.tpv(1, 2) + "\n")
        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.locations($0).count == 1 })
        first.close()

        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.errors($0).contains(where: GPSDEvents.isDisconnect) })
        let second = try #require(await server.accept(timeout: Self.patience), "no reconnection")
        defer { second.close() }
        #expect(await second.readLine(timeout: Self.patience) == Self.watch)
        second.send(Self.tpv(3, 4) + "\n")
        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.locations($0).count == 2 })
        #expect(recorder.locations.last?.coordinate == Coordinate(latitude: 3, longitude: 4))
        let message = recorder.errors.first(where: GPSDEvents.isDisconnect)?.description ?? ""
        #expect(message.contains("127.0.0.1:\(server.port)") && message.contains("closed the connection"), "\(message)")
    }

    @Test("nobody listening: sourceUnavailable with back-off, then connects when gpsd appears")
    func unavailableThenUp() async throws {
        let port = try GPSDFakeServer.freePort()
        let client = Self.client(port: port)
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.errors($0).filter(GPSDEvents.isUnavailable).count >= 3 })
        let message = recorder.errors.first?.description ?? ""
        #expect(message.contains("Connection refused"), "\(message)")
        #expect(recorder.locations.isEmpty)

        let server = try GPSDFakeServer(port: port)
        defer { server.close() }
        let peer = try #require(await server.accept(timeout: Self.patience), "client gave up")
        defer { peer.close() }
        #expect(await peer.readLine(timeout: Self.patience) == Self.watch)
        peer.send(Self.tpv(5, 6) + "\n")
        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.locations($0).count == 1 })
    }

    @Test("a silent gpsd counts as disconnected after the silence timeout")
    func silence() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port, silence: 0.3)
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        let first = try #require(await server.accept(timeout: Self.patience))
        defer { first.close() }
        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.errors($0).contains(where: GPSDEvents.isDisconnect) })
        #expect(recorder.errors.first?.description.contains("no report for 0.3 s") == true, "\(recorder.errors)")
        let second = await server.accept(timeout: Self.patience)
        #expect(second != nil, "reconnects after silence")
        second?.close()
    }

    @Test("garbage lines are parse errors and reading goes on; a closed device is reported")
    func garbageAndDevice() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port)
        let recorder = GPSDEventRecorder(client.events())
        defer { client.stop() }

        let peer = try #require(await server.accept(timeout: Self.patience))
        defer { peer.close() }
        _ = await peer.readLine(timeout: Self.patience)
        peer.send("this is not json\r\n" + #"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"# + "\r\n"
                  + Self.tpv(7, 8) + "\r\n")
        #expect(await recorder.wait(timeout: Self.patience) { GPSDEvents.locations($0).count == 1 })
        let errors = recorder.errors
        #expect(errors.count == 2)
        #expect(errors.first.map(GPSDEvents.isParse) == true && errors.first?.description.contains("this is not json") == true)
        #expect(errors.last == .deviceDisconnected("gpsd at 127.0.0.1:\(server.port) closed device /dev/ttyUSB0"))
    }

    @Test("stop() ends the stream at once, even while backing off")
    func stopPromptly() async throws {
        let port = try GPSDFakeServer.freePort()
        let client = GPSDClient(configuration: .init(host: "127.0.0.1", port: port, initialReconnectDelay: 30))
        let recorder = GPSDEventRecorder(client.events())
        #expect(await recorder.wait(timeout: Self.patience) { !GPSDEvents.errors($0).isEmpty })
        client.stop()
        // stop() finishes the stream and wakes the thread synchronously; nothing waits for the 30 s back-off.
        #expect(client.runs.count == 0)
        #expect(await recorder.wait(timeout: Self.patience) { _ in recorder.streamEnded })
    }

    @Test("cancelling the consumer closes the connection")
    func cancelClosesConnection() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port)
        let recorder = GPSDEventRecorder(client.events())
        let peer = try #require(await server.accept(timeout: Self.patience))
        defer { peer.close() }
        _ = await peer.readLine(timeout: Self.patience)
        recorder.cancel()
        // The client closing its end shows up as EOF here.
        let eof = await GPSDBlocking.run { [fd = peer.fd] in
            guard GPSDBlocking.poll(fd, events: Int16(POLLIN), timeout: Self.patience) else { return false }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, 0) == 0
        }
        #expect(eof)
    }

    @Test("a stream dropped unread closes its connection and leaves no run behind")
    func droppedStream() async throws {
        let server = try GPSDFakeServer()
        defer { server.close() }
        let client = Self.client(port: server.port)
        var stream: AsyncStream<LocationSourceEvent>? = client.events()
        let peer = try #require(await server.accept(timeout: Self.patience))
        defer { peer.close() }
        #expect(await peer.readLine(timeout: Self.patience) == Self.watch)
        #expect(client.runs.count == 1)
        stream = nil
        _ = stream
        let eof = await GPSDBlocking.run { [fd = peer.fd] in
            guard GPSDBlocking.poll(fd, events: Int16(POLLIN), timeout: Self.patience) else { return false }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, 0) == 0
        }
        #expect(eof, "the connection of a dropped stream stayed open")
        let gone = await GPSDEventRecorder.waitUntil(timeout: Self.patience) { client.runs.count == 0 }
        #expect(gone)
    }
}
