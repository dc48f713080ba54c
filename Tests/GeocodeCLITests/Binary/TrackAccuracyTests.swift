import Foundation
@testable import GeocodeCLI
import Testing

/// `geocode track` prints the accuracy a fix has, and none it does not: a GPX point without `<hdop>`
/// printed "±5m" (GPX playback made the 5 m up), an NMEA fix without DOP "±50m". Through the binary on
/// the test grid, whose cities are 5° of longitude wide (Cell 0 west of 5° E, Cell 1 east of it).
@Suite struct TrackAccuracyTests {
    /// A timed track along latitude 45.5 across 5° E, 0.001° (78 m) a step, one point a second;
    /// `hdop` on every point, or on none.
    static func gpx(hdop: Double?) throws -> URL {
        let file = TemporaryDirectory.shared.uniqueURL("across-5E", extension: "gpx")
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<gpx version=\"1.1\" creator=\"TrackAccuracyTests\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        for i in 0..<21 {
            let lon = String(format: "%.3f", 4.99 + Double(i) * 0.001)
            text += "<trkpt lat=\"45.5\" lon=\"\(lon)\"><time>2024-05-01T00:00:\(String(format: "%02d", i))Z</time>"
                + (hdop.map { "<hdop>\($0)</hdop>" } ?? "") + "</trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        try Data(text.utf8).write(to: file)
        return file
    }

    /// The same track as an NMEA log, one cycle a second: RMC only (no HDOP, no GST: no error estimate),
    /// or RMC and a GGA carrying `hdop`.
    static func nmea(hdop: Double?) throws -> URL {
        let file = TemporaryDirectory.shared.uniqueURL("across-5E", extension: "nmea")
        var text = ""
        for i in 0..<21 {
            let lon = 4.99 + Double(i) * 0.001
            let degrees = Int(lon)
            let position = "4530.0000,N," + String(format: "%03d%07.4f", degrees, (lon - Double(degrees)) * 60) + ",E"
            let time = String(format: "0000%02d", i)
            text += sentence("GPRMC,\(time),A,\(position),0.0,90.0,010524,,,A")
            if let hdop { text += sentence("GPGGA,\(time),\(position),1,08,\(hdop),100.0,M,0.0,M,,") }
        }
        try Data(text.utf8).write(to: file)
        return file
    }

    /// `$body*hh` and CR LF, the checksum the XOR of the body's bytes.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$\(body)*\(String(format: "%02X", checksum))\r\n"
    }

    /// An NMEA receiver that sends no DOP (RMC only) printed "±50m": the fix assembler made the 50 m up.
    /// gpsd gives such a fix no error estimate, and neither does track now; with a GGA's HDOP it does.
    @Test func anNMEALogWithoutDOPPrintsNoAccuracy() async throws {
        let file = try Self.nmea(hdop: nil)
        let text = try await GeocodeBinary.run(["track", "--nmea", file.path, "--speed", "max"])
        #expect(text.status == 0, "\(text.err)")
        let locations = text.out.split(separator: "\n").filter { $0.contains(" location ") }
        #expect(locations.count == 21)
        #expect(locations.first == "2024-05-01T00:00:00Z location 45.500000,4.990000", "no accuracy, not ±50m")
        #expect(!text.out.contains("±"))
        let json = try await GeocodeBinary.run(["track", "--nmea", file.path, "--speed", "max", "--json"])
        #expect(json.status == 0, "\(json.err)")
        #expect(json.out.hasPrefix("{\"accuracy\":null,\"course\":90"), "\(json.out.prefix(120))")

        let withHDOP = try await GeocodeBinary.run(["track", "--nmea", try Self.nmea(hdop: 1.5).path, "--speed", "max"])
        #expect(withHDOP.status == 0, "\(withHDOP.err)")
        #expect(withHDOP.out.hasPrefix("2024-05-01T00:00:00Z location 45.500000,4.990000 ±8m\n"), "\(withHDOP.out.prefix(80))")
    }

    @Test func aTrackWithoutAccuracyPrintsNoneAndStillChangesCity() async throws {
        let file = try Self.gpx(hdop: nil)
        let text = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max"])
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n").map(String.init)
        let locations = lines.filter { $0.contains(" location ") }
        #expect(locations.count == 21)
        #expect(locations.first == "2024-05-01T00:00:00Z location 45.500000,4.990000", "no accuracy, not ±5m")
        #expect(!text.out.contains("±"))
        #expect(lines.filter { $0.contains("city changed") } == ["2024-05-01T00:00:12Z city changed Cell 0 → Cell 1"])

        let json = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max", "--json"])
        #expect(json.status == 0, "\(json.err)")
        let objects = try json.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let jsonLocations = objects.filter { $0["event"] as? String == "location" }
        #expect(jsonLocations.count == 21)
        #expect(jsonLocations.allSatisfy { $0["accuracy"] is NSNull }, "accuracy: null, present on every location line")
        #expect(json.out.hasPrefix("{\"accuracy\":null,\"course\":"), "\(json.out.prefix(120))")
        #expect(objects.filter { $0["event"] as? String == "city_changed" }.count == 1)
    }

    /// `--desired-accuracy` asks for fixes known to be that good: a track without accuracies then plays
    /// nothing, and says why once, instead of ending without a line.
    @Test func aDesiredAccuracyDropsThemWithOneWarning() async throws {
        let file = try Self.gpx(hdop: nil)
        let r = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max", "--desired-accuracy", "20"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "warning fixes of unknown accuracy are dropped: desired accuracy is 20.0 m (accept any accuracy to keep them)\n")
    }

    /// Where the file gives `<hdop>`, the accuracy is hdop × 5 m, as before.
    @Test func aTrackWithHDOPPrintsItsAccuracy() async throws {
        let file = try Self.gpx(hdop: 1.5)
        let text = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.hasPrefix("2024-05-01T00:00:00Z location 45.500000,4.990000 ±8m\n"), "\(text.out.prefix(80))")
        let json = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max", "--json"])
        #expect(json.out.hasPrefix("{\"accuracy\":7.5,"), "\(json.out.prefix(80))")
    }

    /// `<hdop>1e300</hdop>` is a non-negative number, so a valid point; its accuracy (5e300 m) stopped
    /// track with a trap converting it to Int for the text line (exit 132). Now it is printed.
    @Test func anAbsurdAccuracyIsPrintedNotATrap() async throws {
        let file = try Self.gpx(hdop: 1e300)
        let text = try await GeocodeBinary.run(["track", "--gpx", file.path, "--speed", "max"])
        #expect(text.status == 0, "\(text.err)")
        let first = try #require(text.out.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("2024-05-01T00:00:00Z location 45.500000,4.990000 ±5") && first.hasSuffix("m") && first.count > 300,
                "\(first.prefix(80))")
        #expect(TrackCommand.metres(7.5) == "8" && TrackCommand.metres(1e18) == "1000000000000000000")
    }
}
