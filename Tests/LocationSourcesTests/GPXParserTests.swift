import Foundation
import Testing
import GeoModel
@testable import LocationSources

@Suite("GPX parser")
struct GPXParserTests {
    @Test("a recorded track: every trkpt exactly as written, extensions skipped, segments numbered")
    func trackWithTime() throws {
        let document = try GPXParser.parse(contentsOf: try GPXFixtures.url("track-with-time.gpx"))
        let points = document.trackPoints
        #expect(points.count == 7)
        #expect(document.waypoints.count == 1, "the point of interest stays a waypoint")
        #expect(document.playbackPoints == points, "tracks win over waypoints for playback")

        let first = try #require(points.first)
        #expect(first.kind == .trackPoint)
        #expect(first.coordinate == Coordinate(latitude: 48.152310, longitude: 11.591720))
        #expect(first.elevation == 519.2)
        #expect(first.time == GPXFixtures.date(2024, 5, 18, 7, 30, 0))
        #expect(first.hdop == 0.8)
        #expect(first.fix == .threeD)
        #expect(first.speed == nil, "a <speed> inside <extensions> is not the point's speed")
        #expect(first.segment == 1)
        #expect(first.line == 15)

        #expect(points[2].time == GPXFixtures.date(2024, 5, 18, 7, 30, 10.5), "fractional seconds kept")
        #expect(points[2].fix == nil)
        #expect(points[3].time == GPXFixtures.date(2024, 5, 18, 7, 30, 15), "+02:00 offset applied")
        #expect(points[3].coordinate == Coordinate(latitude: 48.153130, longitude: 11.593020))
        #expect(points[4].segment == 2)
        #expect(points[5].fix == .twoD)
        #expect(points[6].coordinate == Coordinate(latitude: -0.000001, longitude: -0.5))
        #expect(points[6].elevation == -3.5)
        #expect(points[6].fix == GPXPoint.Fix.none)

        let expected: [(Double, Double, Double)] = [
            (48.152310, 11.591720, 519.2), (48.152580, 11.592140, 519.6), (48.152870, 11.592590, 520.1),
            (48.153130, 11.593020, 520.3), (48.154020, 11.594410, 521.0), (48.154300, 11.594880, 521.4),
            (-0.000001, -0.5, -3.5),
        ]
        for (point, (lat, lon, ele)) in zip(points, expected) {
            #expect(point.coordinate.latitude == lat)
            #expect(point.coordinate.longitude == lon)
            #expect(point.elevation == ele)
        }
    }

    @Test("a planned route without times")
    func routeWithoutTime() throws {
        let document = try GPXParser.parse(contentsOf: try GPXFixtures.url("route-without-time.gpx"))
        #expect(document.trackPoints.isEmpty)
        let points = document.routePoints
        #expect(points.map(\.name) == ["Marienplatz", "Weinstrasse", "Theatinerstrasse", "Odeonsplatz"])
        #expect(points.allSatisfy { $0.time == nil && $0.kind == .routePoint && $0.segment == 1 })
        #expect(points[0].coordinate == Coordinate(latitude: 48.137430, longitude: 11.575490))
        #expect(points[2].elevation == 521)
        #expect(points[1].elevation == nil)
        #expect(document.playbackPoints == points)
    }

    @Test("an Xcode location-simulation file: timed wpt elements without a namespace")
    func xcodeWaypoints() throws {
        let document = try GPXParser.parse(contentsOf: try GPXFixtures.url("xcode-waypoints.gpx"))
        let points = document.waypoints
        #expect(points.count == 3)
        #expect(document.playbackPoints == points)
        #expect(points[0].name == "Cupertino")
        #expect(points[0].coordinate == Coordinate(latitude: 37.331705, longitude: -122.030237))
        #expect(points.map(\.time) == [GPXFixtures.date(2014, 9, 24, 14, 55, 37),
                                       GPXFixtures.date(2014, 9, 24, 14, 55, 39),
                                       GPXFixtures.date(2014, 9, 24, 14, 55, 41)])
    }

    @Test("malformed XML fails with the file and the line of the mismatched tag")
    func malformed() throws {
        let error = try #require(throws: GPXParseError.self) {
            try GPXParser.parse(contentsOf: try GPXFixtures.url("malformed.gpx"))
        }
        #expect(error.file == "malformed.gpx")
        #expect(error.line == 7, "</trkseg> closes while <trkpt> on line 6 is still open: \(error)")
        #expect(error.description.hasPrefix("malformed.gpx:7"))
        #expect(error.description.contains("malformed XML: closing tag does not match <trkpt> opened on line 6"),
                "\(error)")
    }

    @Test("a truncated file and a bare ampersand are XML errors with their line")
    func truncatedAndEntity() throws {
        let truncated = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">"
        let cut = try #require(throws: GPXParseError.self) { try GPXParser.parse(Data(truncated.utf8), fileName: "cut.gpx") }
        #expect(cut.line == 4, "\(cut)")
        #expect(cut.reason.hasPrefix("malformed XML: document ends before <trkpt> opened on line 4 is closed"), "\(cut)")

        let amp = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\"><name>Fish & Chips</name></wpt>\n</gpx>"
        let entity = try #require(throws: GPXParseError.self) { try GPXParser.parse(Data(amp.utf8), fileName: "amp.gpx") }
        #expect(entity.line == 3, "\(entity)")
        #expect(entity.description.hasPrefix("amp.gpx:3:"), "\(entity)")
        #expect(entity.reason == "malformed XML: bad entity reference (write a literal & as &amp;)", "\(entity)")
    }

    @Test("a latitude outside ±90 fails naming line and field")
    func badLatitude() throws {
        let error = try #require(throws: GPXParseError.self) {
            try GPXParser.parse(contentsOf: try GPXFixtures.url("bad-latitude.gpx"))
        }
        #expect(error.line == 6)
        #expect(error.field == "trkpt lat")
        #expect(error.description == "bad-latitude.gpx:6: trkpt lat: \"91.5\" is outside -90...90")
    }

    @Test("bad values fail with their line and field", arguments: [
        ("<wpt lat=\"abc\" lon=\"1\"/>", "wpt lat", "\"abc\" is not a number"),
        ("<wpt lat=\"1\"/>", "wpt lon", "missing attribute"),
        ("<wpt lat=\"1\" lon=\"180.5\"/>", "wpt lon", "\"180.5\" is outside -180...180"),
        ("<wpt lat=\"nan\" lon=\"1\"/>", "wpt lat", "\"nan\" is not a number"),
        ("<wpt lat=\"1\" lon=\"1\">\n<ele>high</ele></wpt>", "wpt ele", "\"high\" is not a number"),
        ("<wpt lat=\"1\" lon=\"1\">\n<time>yesterday</time></wpt>", "wpt time",
         "\"yesterday\" is not an ISO 8601 date-time like 2024-05-01T12:00:00Z"),
        ("<wpt lat=\"1\" lon=\"1\">\n<fix>4d</fix></wpt>", "wpt fix", "\"4d\" is not one of none, 2d, 3d, dgps, pps"),
        ("<wpt lat=\"1\" lon=\"1\">\n<hdop>-1</hdop></wpt>", "wpt hdop", "\"-1\" is not a non-negative number"),
    ])
    func badValues(element: String, field: String, reason: String) throws {
        let xml = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n\(element)\n</gpx>\n"
        let error = try #require(throws: GPXParseError.self) {
            try GPXParser.parse(Data(xml.utf8), fileName: "inline.gpx")
        }
        #expect(error.field == field)
        #expect(error.reason == reason)
        #expect(error.line == (element.contains("\n") ? 4 : 3))
    }

    @Test("a streaming read can hand each bad point over and go on with the rest, in document order")
    func rejectedPointsAndTheRest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-rejected-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("mixed.gpx")
        // Line 5: a bad attribute, whose bad child must not be reported again. Line 6: a bad child, with
        // an extension and a field after it that must not revive the point. Line 9: a bad waypoint.
        try """
            <?xml version="1.0"?>
            <gpx version="1.1">
            <trk><trkseg>
            <trkpt lat="1" lon="2"/>
            <trkpt lat="95" lon="2"><ele>high</ele><name>never</name></trkpt>
            <trkpt lat="1" lon="2.1"><time>yesterday</time><extensions><x/></extensions><ele>3</ele></trkpt>
            <trkpt lat="1" lon="2.2"><name>kept</name></trkpt>
            </trkseg></trk>
            <wpt lat="abc" lon="0"/>
            </gpx>

            """.write(to: url, atomically: true, encoding: .utf8)

        var log: [String] = []
        let counts = try GPXParser.read(contentsOf: url, onRejectedPoint: { log.append("rejected \($0)"); return true }) {
            log.append("point line \($0.line) \($0.name ?? "-")")
            return true
        }
        #expect(log == [
            "point line 4 -",
            "rejected mixed.gpx:5: trkpt lat: \"95\" is outside -90...90",
            "rejected mixed.gpx:6: trkpt time: \"yesterday\" is not an ISO 8601 date-time like 2024-05-01T12:00:00Z",
            "point line 7 kept",
            "rejected mixed.gpx:9: wpt lat: \"abc\" is not a number",
        ])
        #expect(counts == GPXPointCounts(trackPoints: 4, waypoints: 1), "rejected points still say what the file holds")

        // Without the handler the first bad value fails the read, as a parse does.
        let strict = try #require(throws: GPXParseError.self) { try GPXParser.read(contentsOf: url) { _ in true } }
        #expect(strict.description == "mixed.gpx:5: trkpt lat: \"95\" is outside -90...90")
        // The handler can stop the read, like `body`.
        var seen = 0
        try GPXParser.read(contentsOf: url, onRejectedPoint: { _ in false }) { _ in seen += 1; return true }
        #expect(seen == 1)
        // A broken document is no bad point: it still fails.
        let cut = dir.appendingPathComponent("cut.gpx")
        try Data(try Data(contentsOf: url).prefix(150)).write(to: cut)
        let error = try #require(throws: GPXParseError.self) {
            try GPXParser.read(contentsOf: cut, onRejectedPoint: { _ in true }) { _ in true }
        }
        #expect(error.reason.hasPrefix("malformed XML"), "\(error)")
    }

    @Test("a document that is not GPX is refused")
    func notGPX() throws {
        let error = try #require(throws: GPXParseError.self) {
            try GPXParser.parse(Data("<kml><Placemark/></kml>".utf8), fileName: "places.kml")
        }
        #expect(error.description.contains("root element is <kml>"))
        #expect(throws: GPXParseError.self) { try GPXParser.parse(Data(), fileName: "empty.gpx") }
    }

    @Test("a missing file is an error naming it")
    func missingFile() {
        let url = URL(fileURLWithPath: "/nonexistent/dir/ride.gpx")
        let error = #expect(throws: GPXParseError.self) { try GPXParser.parse(contentsOf: url) }
        #expect(error?.description.hasPrefix("ride.gpx: cannot read /nonexistent/dir/ride.gpx") == true)
    }

    @Test("ISO 8601 timestamps: fractions, offsets and junk")
    func timestamps() {
        let base = GPXFixtures.date(2024, 2, 29, 23, 59, 59)
        #expect(ISO8601Timestamp.parse("2024-02-29T23:59:59Z") == base)
        #expect(ISO8601Timestamp.parse("2024-02-29T23:59:59") == base, "no zone → UTC")
        #expect(ISO8601Timestamp.parse("2024-03-01T01:29:59+01:30") == base)
        #expect(ISO8601Timestamp.parse("2024-02-29T18:59:59-0500") == base)
        #expect(ISO8601Timestamp.parse("2024-02-29T23:59:59.125Z") == base.addingTimeInterval(0.125))
        #expect(ISO8601Timestamp.parse("1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
        for junk in ["", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-1-01T00:00:00Z",
                     "2024-01-01T00:00:00ZZ", "2024-01-01T25:00:00Z", "2024-01-01", "2024-01-01T00:00:00.Z"] {
            #expect(ISO8601Timestamp.parse(junk) == nil, "\(junk)")
        }
    }
}
