import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// GPX files past libxml2's 10,000,000-byte lookahead limit, which `XMLParser(data:)` hit (a
/// 10 MB file played nothing: "malformed XML: XML error 1"). The file is generated here, into a
/// temporary folder, and read the way a user's file is.
@Suite("GPX at any size", .timeLimit(.minutes(30)))
struct GPXLargeFileTests {
    /// 125,000 track points, about 12.3 MB.
    static let count = 125_000

    /// Point `i` of the generated track: a line north-east from Beijing, one second apart.
    static func coordinate(_ i: Int) -> (lat: String, lon: String) {
        (String(format: "%.7f", 39.9 + Double(i) * 1e-6), String(format: "%.7f", 116.3 + Double(i) * 1e-6))
    }

    static let start = Date(timeIntervalSince1970: 1_714_521_600)  // 2024-05-01T00:00:00Z

    private static func time(_ i: Int) -> String {
        let t = Int(start.timeIntervalSince1970) + i
        let seconds = t % 86_400
        let day = 1 + (t - Int(start.timeIntervalSince1970)) / 86_400
        return String(format: "2024-05-%02dT%02d:%02d:%02dZ", day, seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    /// Writes the file in pieces (never the whole text in memory) and returns its URL and size.
    static func makeFile(points count: Int = count) throws -> (url: URL, bytes: Int) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("day.gpx")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="GPXLargeFileTests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>a day at 1 Hz &amp; more</name><trkseg>

            """
        for i in 0..<count {
            let c = coordinate(i)
            text += "<trkpt lat=\"\(c.lat)\" lon=\"\(c.lon)\"><ele>\(50 + i % 7).5</ele><time>\(time(i))</time><hdop>0.9</hdop></trkpt>\n"
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        text += "</trkseg></trk>\n</gpx>\n"
        try handle.write(contentsOf: Data(text.utf8))
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        return (url, size)
    }

    @Test("a 12 MB track reads completely, streaming, every point exact")
    func readsPastTheLookaheadLimit() throws {
        let (url, bytes) = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        #expect(bytes > 12_000_000, "past libxml2's 10,000,000-byte limit: \(bytes)")

        var seen = 0
        var first: GPXPoint?
        var last: GPXPoint?
        let counts = try GPXParser.read(contentsOf: url) { point in
            if first == nil { first = point }
            last = point
            seen += 1
            return true
        }
        #expect(counts == GPXPointCounts(trackPoints: Self.count))
        #expect(seen == Self.count)
        let (lat0, lon0) = Self.coordinate(0), (latN, lonN) = Self.coordinate(Self.count - 1)
        #expect(first?.coordinate == Coordinate(latitude: Double(lat0)!, longitude: Double(lon0)!))
        #expect(first?.time == Self.start)
        #expect(first?.line == 4)
        #expect(last?.coordinate == Coordinate(latitude: Double(latN)!, longitude: Double(lonN)!))
        #expect(last?.time == Self.start.addingTimeInterval(Double(Self.count - 1)))
        #expect(last?.elevation == Double(50 + (Self.count - 1) % 7) + 0.5)
        #expect(last?.line == Self.count + 3)
    }

    @Test("a 12 MB track plays every point, in order, with the file's times")
    func playsPastTheLookaheadLimit() async throws {
        let (url, _) = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible))
        var played = 0
        var first: Location?
        var last: Location?
        var ordered = true
        for await event in source.events() {
            guard case .location(let location) = event else {
                Issue.record("unexpected \(event)")
                continue
            }
            if let last, location.timestamp <= last.timestamp { ordered = false }
            if first == nil { first = location }
            last = location
            played += 1
        }
        #expect(played == Self.count)
        #expect(ordered)
        let (lat0, lon0) = Self.coordinate(0), (latN, lonN) = Self.coordinate(Self.count - 1)
        #expect(first?.coordinate == Coordinate(latitude: Double(lat0)!, longitude: Double(lon0)!))
        #expect(first?.timestamp == Self.start)
        #expect(last?.coordinate == Coordinate(latitude: Double(latN)!, longitude: Double(lonN)!))
        #expect(last?.timestamp == Self.start.addingTimeInterval(Double(Self.count - 1)))
        #expect(last?.horizontalAccuracy == 0.9 * 5)
    }

    /// One bad point at the end of 2,000 used to refuse the whole file. It is now reported in its place
    /// and the rest plays; what still refuses a file before anything plays is a broken document.
    @Test("a bad value at the end is one error event after the good points; a file cut off at the end plays nothing")
    func lateErrors() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-late-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func play(_ name: String, _ text: String) async throws -> [LocationSourceEvent] {
            let url = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            var events: [LocationSourceEvent] = []
            for await event in GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible)).events() {
                events.append(event)
            }
            return events
        }
        var points = "<gpx version=\"1.1\"><trk><trkseg>\n"
        for i in 0..<2_000 { points += "<trkpt lat=\"1.\(i)\" lon=\"2\"/>\n" }

        let late = try await play("late.gpx", points + "<trkpt lat=\"95\" lon=\"2\"/>\n</trkseg></trk></gpx>\n")
        #expect(late.count == 2_001)
        #expect(late.dropLast().allSatisfy { if case .location = $0 { true } else { false } })
        #expect(late.last == .error(.parse("late.gpx:2002: trkpt lat: \"95\" is outside -90...90")))

        let cut = try await play("cut.gpx", points + "<trkpt lat=\"1.5\" lo")
        #expect(cut.count == 1)
        guard case .error(.invalidFile(let message))? = cut.first else {
            Issue.record("expected one invalid-file error, got \(cut.prefix(3))…")
            return
        }
        #expect(message.hasPrefix("cut.gpx:2002:"), "\(message)")
    }

    @Test("stop() ends a run that is still reading its file")
    func stopWhileReading() async throws {
        let (url, _) = try Self.makeFile(points: 5_000)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible))
        var iterator = source.events().makeAsyncIterator()
        #expect(await iterator.next() != nil)
        source.stop()
        var after = 0
        while await iterator.next() != nil { after += 1 }
        #expect(after <= 256, "at most what was already handed over: \(after)")
        #expect(source.runs.count == 0)
    }
}
