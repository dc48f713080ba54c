import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The on-disk queue: what survives a reopen, and what a crash at each step leaves behind.
@Suite struct ReporterQueueTests {
    static func report(_ seq: UInt64) -> PositionReport {
        PositionReport(seq: seq, location: courierFix(Int(seq)), placemark: .haidian,
                       recorded: Date(timeIntervalSince1970: 1_700_000_000.25))
    }

    static func appendN(_ queue: ReportQueue, _ n: Int) throws -> [PositionReport] {
        try (0..<n).map { _ in try queue.append { report($0) }.report }
    }

    static func segments(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix("segment-") }.sorted()
    }

    @Test func reportJSONRoundTripsAndHasTheDocumentedKeys() throws {
        var location = courierFix(3)
        location.altitude = 43.5
        location.speed = 13.9
        let report = PositionReport(id: "X", seq: 17, location: location, placemark: .haidian,
                                    recorded: Date(timeIntervalSince1970: 1_700_000_000.412))
        let json = try report.jsonData()
        #expect(try JSONDecoder().decode(PositionReport.self, from: json) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(Set(object.keys) == ["id", "seq", "time", "recorded", "latitude", "longitude", "horizontalAccuracy",
                                     "altitude", "speed", "placemark"])  // unknown course/verticalAccuracy left out
        #expect(object["time"] as? String == "2023-11-14T22:13:50.000Z")
        #expect(object["recorded"] as? String == "2023-11-14T22:13:20.412Z")
        let placemark = try #require(object["placemark"] as? [String: Any])
        #expect(placemark["subLocalityCode"] as? String == "110108")
        // A fix outside the data: "placemark": null, not absent.
        let nowhere = try PositionReport(seq: 1, location: courierFix(0), placemark: nil).jsonData()
        #expect(String(decoding: nowhere, as: UTF8.self).contains(#""placemark":null"#))
    }

    @Test func appendedReportsSurviveAReopenInOrderAndSeqContinues() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 5)
        #expect(written.map(\.seq) == [1, 2, 3, 4, 5])
        queue = nil
        let reopened = try ReportQueue(directory: dir)
        #expect(reopened.pending.map(\.report) == written)
        #expect(reopened.warnings.isEmpty)
        #expect(try reopened.append { Self.report($0) }.report.seq == 6)
    }

    @Test func acknowledgedReportsStayDelivered() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 5)
        try queue!.acknowledge(3)
        #expect(queue!.pending.map(\.report.seq) == [4, 5])
        queue = nil
        let reopened = try ReportQueue(directory: dir)
        #expect(reopened.pending.map(\.report) == Array(written[3...]))
        #expect(reopened.ack.seq == 3)
        try reopened.acknowledge(2)
        #expect(reopened.pendingCount == 0)
        #expect(try reopened.append { Self.report($0) }.report.seq == 6)
    }

    /// Ways a crash in the middle of `append` can leave the segment's last line.
    enum Tear: String, CaseIterable, Sendable {
        case half = "half a line"
        case noNewline = "a line without its newline"
        case zeros = "zeros (the size was extended, the data never written)"
        case badChecksum = "a whole line whose checksum does not match"

        func apply(_ line: Data) -> Data {
            switch self {
            case .half: return line.prefix(line.count / 2)
            case .noNewline: return line.dropLast()
            case .zeros: return Data(count: line.count)
            case .badChecksum:
                var bad = line
                bad[bad.count / 2] ^= 0x20
                return bad
            }
        }
    }

    /// What a crash in the middle of `append` can leave at the end of the segment: it is cut off, the
    /// good reports before it are kept, and appending carries on cleanly.
    @Test(arguments: Tear.allCases)
    func tornLastWriteIsCutOff(tear: Tear) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 3)
        let segment = queue!.segmentPath(1)
        queue = nil
        let goodSize = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        // A fourth line, torn.
        let json = try Self.report(4).jsonData()
        var line = Data(String(format: "%08x ", CRC32.checksum(json)).utf8) + json
        line.append(0x0A)
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(tear.apply(line))
        handle.closeFile()

        var reopened: ReportQueue? = try ReportQueue(directory: dir)
        #expect(reopened!.pending.map(\.report) == written, "\(tear.rawValue)")
        #expect(reopened!.warnings.count == 1 && reopened!.warnings[0].contains("torn"), "\(reopened!.warnings)")
        #expect(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int == goodSize)
        let next = try reopened!.append { Self.report($0) }.report
        #expect(next.seq == 4)
        reopened = nil
        let again = try ReportQueue(directory: dir)
        #expect(again.pending.map(\.report) == written + [next])
        #expect(again.warnings.isEmpty)
    }

    /// A bad line with good lines after it is not a torn write but damage: skipped, reported, and the
    /// reports after it kept.
    @Test func corruptLineInTheMiddleIsSkippedNotTheRest() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 4)
        let segment = queue!.segmentPath(1)
        queue = nil
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        let secondLine = try #require(bytes.firstIndex(of: 0x0A)) + 1
        bytes[secondLine + 20] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: segment))
        let reopened = try ReportQueue(directory: dir)
        #expect(reopened.pending.map(\.report.seq) == [1, 3, 4])
        #expect(reopened.pending.map(\.report) == [written[0], written[2], written[3]])
        #expect(reopened.warnings == ["\(segment): skipped a corrupt line at byte \(secondLine)"])
    }

    /// Small segments: the queue rolls over to new files, deletes each one once everything in it is
    /// delivered, and a reopen in between finds exactly the undelivered reports.
    @Test func segmentsRollOverAndDeliveredOnesAreDeleted() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 3 * (try Self.report(1).jsonData().count + 10)   // about three lines a segment
        var queue: ReportQueue? = try ReportQueue(directory: dir, segmentSize: size)
        let written = try Self.appendN(queue!, 10)
        /// The segment files must be exactly those holding undelivered reports, plus the one appended to.
        func expectOnlyLiveSegments(_ queue: ReportQueue, sourceLocation: SourceLocation = #_sourceLocation) {
            let live = Set(queue.pending.map(\.segment)).union([queue.pending.last?.segment ?? 0, Self.currentSegment(dir)])
            let files = Set(Self.segments(dir).compactMap(ReportQueue.segmentNumber))
            #expect(files == live.subtracting([0]), sourceLocation: sourceLocation)
        }
        let all = Self.segments(dir)
        #expect(all.count >= 3, "\(all)")
        for name in all {
            let bytes = try #require(try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as? Int)
            #expect(bytes <= size)
        }
        try queue!.acknowledge(4)
        expectOnlyLiveSegments(queue!)
        try queue!.acknowledge(2)
        expectOnlyLiveSegments(queue!)
        #expect(Self.segments(dir).count < all.count)
        queue = nil
        var reopened: ReportQueue? = try ReportQueue(directory: dir, segmentSize: size)
        #expect(reopened!.pending.map(\.report) == Array(written[6...]))
        try reopened!.acknowledge(4)                     // everything
        #expect(Self.segments(dir).count == 1)           // only the one being appended to
        let next = try reopened!.append { Self.report($0) }.report
        #expect(next.seq == 11)
        reopened = nil
        #expect(try ReportQueue(directory: dir, segmentSize: size).pending.map(\.report) == [next])
    }

    static func currentSegment(_ dir: URL) -> UInt64 {
        segments(dir).compactMap(ReportQueue.segmentNumber).max() ?? 0
    }

    /// A crash after the ack was written but before delivered segments were deleted: the next open
    /// deletes them and does not send their reports again.
    @Test func segmentsLeftBehindByACrashAfterTheAckAreDeleted() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let lineSize = try Self.report(1).jsonData().count + 10
        var queue: ReportQueue? = try ReportQueue(directory: dir, segmentSize: lineSize * 2)
        let written = try Self.appendN(queue!, 6)
        let first = queue!.segmentPath(1)
        let saved = try Data(contentsOf: URL(fileURLWithPath: first))
        try queue!.acknowledge(3)
        queue = nil
        try saved.write(to: URL(fileURLWithPath: first))   // the unlink "did not happen"
        let reopened = try ReportQueue(directory: dir, segmentSize: lineSize * 2)
        #expect(reopened.pending.map(\.report) == Array(written[3...]))
        #expect(!FileManager.default.fileExists(atPath: first))
    }

    /// A crash while the ack was being replaced leaves a temporary file and the old ack: the temporary
    /// file is removed and the reports the old ack does not cover are sent again (at least once).
    @Test func interruptedAckMeansResendingNotLosing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 4)
        try queue!.acknowledge(1)
        queue = nil
        let stray = dir.appendingPathComponent("ack.json.1234.99.tmp")
        try Data(#"{"format":"offline-geocoder.report-queue-ack","version":1,"segment":1,"off"#.utf8).write(to: stray)
        let reopened = try ReportQueue(directory: dir)
        #expect(reopened.pending.map(\.report) == Array(written[1...]))
        #expect(!FileManager.default.fileExists(atPath: stray.path))
    }

    @Test func unreadableAckResendsEverythingAndSaysSo() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: ReportQueue? = try ReportQueue(directory: dir)
        let written = try Self.appendN(queue!, 3)
        try queue!.acknowledge(2)
        queue = nil
        try Data("garbage".utf8).write(to: dir.appendingPathComponent("ack.json"))
        let reopened = try ReportQueue(directory: dir)
        #expect(reopened.pending.map(\.report) == written)
        #expect(reopened.warnings.first?.contains("unreadable") == true)
        #expect(try reopened.append { Self.report($0) }.report.seq == 4)
    }

    /// One queue per directory at a time; the lock goes with the queue.
    @Test func aDirectoryHasOneQueueAtATime() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        var first: ReportQueue? = try ReportQueue(directory: dir)
        #expect {
            _ = try ReportQueue(directory: dir)
        } throws: { error in
            (error as? ReportQueue.Failure)?.kind == .locked
        }
        first?.close()
        first = nil
        #expect(try ReportQueue(directory: dir).pendingCount == 0)
    }

    @Test func appendAfterCloseFails() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = try ReportQueue(directory: dir)
        queue.close()
        #expect(throws: ReportQueue.Failure.self) { try queue.append { Self.report($0) } }
    }
}
