import Foundation
import Testing
import GeoModel
@testable import LocationSources

@Suite("gpsd reports")
struct GPSDReportTests {
    // Lines as gpsd 3.22 wrote them, fed GGA + RMC through a pty.
    static let tpvNoTime = #"{"class":"TPV","device":"/dev/pts/0","mode":3,"lat":48.117800000,"lon":11.517700000,"altHAE":592.3000,"altMSL":545.4000,"alt":545.4000,"magvar":3.3,"geoidSep":46.900,"eph":17.100}"#
    static let tpv = #"{"class":"TPV","device":"/dev/pts/0","mode":3,"time":"2023-11-14T22:13:26.000Z","ept":0.005,"lat":48.117900000,"lon":11.517900000,"altHAE":592.3000,"altMSL":545.4000,"alt":545.4000,"track":84.4000,"magtrack":87.7267,"magvar":3.3,"speed":11.524,"climb":0.000,"geoidSep":46.900,"eph":17.100}"#
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    static let device = #"{"class":"DEVICE","path":"/dev/pts/0","driver":"NMEA0183","activated":"2026-11-29T12:00:05.533Z","native":0,"bps":38400,"parity":"N","stopbits":1,"cycle":1.00}"#

    @Test("a 3-D TPV maps to a valid location with gpsd's values")
    func tpv3D() throws {
        guard case .tpv(let tpv) = try GPSDReport.parse(Self.tpv) else { Issue.record("not a TPV"); return }
        #expect(tpv.mode == 3)
        #expect(tpv.device == "/dev/pts/0")
        let received = Date(timeIntervalSince1970: 0)
        let location = tpv.location(receivedAt: received)
        #expect(location.coordinate == Coordinate(latitude: 48.1179, longitude: 11.5179))
        #expect(location.altitude == 545.4, "mean sea level, not HAE")
        #expect(location.horizontalAccuracy == 17.1)
        #expect(location.verticalAccuracy == -1, "no epv sent")
        #expect(location.speed == 11.524)
        #expect(location.course == 84.4)
        #expect(location.timestamp == GPXFixtures.date(2023, 11, 14, 22, 13, 26))
        #expect(location.quality == .fix3D)
        #expect(location.isValid)
    }

    @Test("before RMC gives the date, gpsd omits time: the reception time stands in")
    func tpvWithoutTime() throws {
        guard case .tpv(let tpv) = try GPSDReport.parse(Self.tpvNoTime) else { Issue.record("not a TPV"); return }
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let location = tpv.location(receivedAt: received)
        #expect(location.timestamp == received)
        #expect(location.speed == -1 && location.course == -1)
        #expect(location.isValid)
    }

    @Test("mode 1 is an invalid location, with or without a stale position")
    func noFix() throws {
        guard case .tpv(let bare) = try GPSDReport.parse(#"{"class":"TPV","device":"/dev/ttyUSB0","mode":1}"#) else {
            Issue.record("not a TPV"); return
        }
        let a = bare.location(receivedAt: Date(), assumedHorizontalAccuracy: 10)
        #expect(!a.isValid && a.quality == .none && a.horizontalAccuracy < 0)
        #expect(a.coordinate.latitude.isNaN, "no position invented")

        guard case .tpv(let stale) = try GPSDReport.parse(#"{"class":"TPV","mode":1,"lat":1.5,"lon":2.5,"eph":3}"#) else {
            Issue.record("not a TPV"); return
        }
        let b = stale.location(receivedAt: Date())
        #expect(!b.isValid && b.quality == .none && b.horizontalAccuracy == -1)
        #expect(b.coordinate == Coordinate(latitude: 1.5, longitude: 2.5))
        #expect(b.altitude == nil)
    }

    @Test("accuracy: eph, else epx/epy, else the assumed value, else unknown (a valid fix all the same)")
    func accuracy() {
        var tpv = GPSDTPV(mode: 2, latitude: 1, longitude: 2, epx: 3, epy: 4)
        #expect(tpv.location(receivedAt: Date()).horizontalAccuracy == 5)
        #expect(tpv.location(receivedAt: Date()).quality == .fix2D)
        tpv.epx = nil
        #expect(tpv.location(receivedAt: Date()).horizontalAccuracy == -1)
        // gpsd has a fix but no error estimate: a position of unknown accuracy, which the manager delivers
        // under accuracyAny and drops under a finite desiredAccuracy (it used to be an invalid fix).
        #expect(tpv.location(receivedAt: Date()).isValid && !tpv.location(receivedAt: Date()).horizontalAccuracyIsKnown)
        #expect(tpv.location(receivedAt: Date(), assumedHorizontalAccuracy: 25).horizontalAccuracy == 25)
        // A negative eph is no estimate: the assumed value, else unknown (not -3 as if it were one).
        tpv.eph = -3
        #expect(tpv.location(receivedAt: Date(), assumedHorizontalAccuracy: 25).horizontalAccuracy == 25)
        #expect(tpv.location(receivedAt: Date()).horizontalAccuracy == -1)
    }

    @Test("status refines quality; altitude falls back from altMSL to alt to altHAE − geoidSep")
    func qualityAndAltitude() {
        let statuses: [(Int?, Location.FixQuality)] = [(nil, .fix3D), (1, .fix3D), (2, .differential), (3, .rtk),
                                                       (4, .rtk), (5, .estimated), (6, .estimated), (8, .simulated)]
        for (status, quality) in statuses {
            let tpv = GPSDTPV(mode: 3, status: status, latitude: 1, longitude: 2, eph: 1)
            #expect(tpv.location(receivedAt: Date()).quality == quality, "status \(String(describing: status))")
        }
        #expect(GPSDTPV(mode: 3, latitude: 1, longitude: 2, altitude: 100).location(receivedAt: Date()).altitude == 100)
        let hae = GPSDTPV(mode: 3, latitude: 1, longitude: 2, altitudeHAE: 150, geoidSeparation: 47, epv: 9)
        #expect(hae.location(receivedAt: Date()).altitude == 103)
        #expect(hae.location(receivedAt: Date()).verticalAccuracy == 9)
        #expect(GPSDTPV(mode: 3, latitude: 1, longitude: 2, altitudeHAE: 150).location(receivedAt: Date()).altitude == nil,
                "an ellipsoid height is not passed off as mean sea level")
    }

    @Test("other classes are recognised and ignored; DEVICE activation is read")
    func otherClasses() throws {
        #expect(try GPSDReport.parse(Self.version) == .other(className: "VERSION"))
        #expect(try GPSDReport.parse(#"{"class":"SKY","device":"/dev/pts/0","satellites":[]}"#) == .other(className: "SKY"))
        #expect(try GPSDReport.parse(Self.device) == .device(path: "/dev/pts/0", active: true))
        #expect(try GPSDReport.parse(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"#)
                == .device(path: "/dev/ttyUSB0", active: false))
        #expect(try GPSDReport.parse(#"{"class":"ERROR","message":"Unrecognized request '?FOO'"}"#)
                == .error(message: "Unrecognized request '?FOO'"))
    }

    @Test("bad lines are errors naming the field", arguments: [
        ("{\"class\":\"TPV\",\"mode\":3,\"lat\":\"48.1\"}", "TPV lat", "expected a number"),
        ("{\"class\":\"TPV\",\"mode\":true}", "TPV mode", "expected an integer"),
        ("{\"class\":\"TPV\",\"mode\":3,\"time\":\"noon\"}", "TPV time", "\"noon\" is not an ISO 8601 time"),
        ("{\"mode\":3}", "class", "missing"),
    ])
    func badFields(line: String, field: String, reason: String) {
        let error = #expect(throws: GPSDParseError.self) { try GPSDReport.parse(line) }
        #expect(error?.field == field)
        #expect(error?.reason == reason)
        #expect(error?.description.contains(line) == true)
    }

    @Test("lines that are not JSON objects")
    func notJSON() {
        for line in ["hello", "[1,2]", "{\"class\":\"TPV\",", "42"] {
            let error = #expect(throws: GPSDParseError.self) { try GPSDReport.parse(line) }
            #expect(error?.field == nil, "\(line)")
        }
    }

    @Test("lines split anywhere across reads, CR LF endings, even inside a multi-byte character")
    func lineBuffer() {
        var buffer = GPSDLineBuffer()
        let text = Array("\(Self.version)\r\n{\"class\":\"ERROR\",\"message\":\"Zürich\"}\r\n\r\n\(Self.tpv)\r\n".utf8)
        var lines: [String] = []
        var cut = 0
        for size in [1, 7, 60, 3, 100, 2, 500, 1000] where cut < text.count {
            let end = min(text.count, cut + size)
            lines += buffer.append(text[cut..<end]).lines
            cut = end
        }
        lines += buffer.append(text[cut...]).lines
        #expect(lines == [Self.version, "{\"class\":\"ERROR\",\"message\":\"Zürich\"}", Self.tpv])

        #expect(buffer.append(Array("{\"class\":".utf8)).lines.isEmpty, "a partial line waits")
        buffer.reset()
        #expect(buffer.append(Array("{}\n".utf8)).lines == ["{}"])
    }

    @Test("an endless line is dropped instead of growing without bound")
    func overlong() {
        var buffer = GPSDLineBuffer()
        let result = buffer.append([UInt8](repeating: UInt8(ascii: "x"), count: GPSDLineBuffer.maximumLineLength + 1))
        #expect(result.discardedOverlong)
        #expect(buffer.append(Array("ok\n".utf8)).lines == ["ok"])
    }

    @Test("host:port endpoints", arguments: [
        ("gpsd.local", "gpsd.local", UInt16(2947)), ("127.0.0.1:3000", "127.0.0.1", 3000), (":4000", "127.0.0.1", 4000),
        ("[::1]", "::1", 2947), ("[::1]:5000", "::1", 5000), ("::1", "::1", 2947),
    ])
    func endpoints(text: String, host: String, port: UInt16) throws {
        let configuration = try #require(GPSDClient.Configuration(endpoint: text))
        #expect(configuration.host == host)
        #expect(configuration.port == port)
    }

    @Test("bad endpoints", arguments: ["host:", "host:99999", "host:0", "[::1", "[::1]x"])
    func badEndpoints(text: String) {
        #expect(GPSDClient.Configuration(endpoint: text) == nil)
    }
}
