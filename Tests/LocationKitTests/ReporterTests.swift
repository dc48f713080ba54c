import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The reporter without a network: which fixes become reports, the retry schedule, and the NDJSON file
/// destination (exactly once, even across a crash between writing and acknowledging).
@Suite struct ReporterTests {
    // MARK: - What gets reported

    @Test func throttleReportsOnDistanceOrTime() {
        var throttle = ReportThrottle(minimumDistance: 100, maximumInterval: 10)
        // 0.0009° of latitude ≈ 100.08 m; 0.00089 ≈ 98.96 m.
        let fixes = [
            fix(39.5, t: 0),             // first: yes
            fix(39.50089, t: 5),         // 99 m, 5 s: no
            fix(39.5009, t: 6),          // 100 m from the last *reported*: yes
            fix(39.5009, t: 15.9),       // no
            fix(39.5009, t: 16),         // 10 s, parked: yes
            fix(39.5009, t: 3),          // the receiver's clock went back: yes (resync)
        ]
        #expect(fixes.map { throttle.shouldReport($0) } == [true, false, true, false, true, true])
        var everyFix = ReportThrottle(minimumDistance: 0, maximumInterval: nil)
        #expect([fix(39.5, t: 0), fix(39.5, t: 0)].map { everyFix.shouldReport($0) } == [true, true])
        var distanceOnly = ReportThrottle(minimumDistance: 100, maximumInterval: nil)
        #expect([fix(39.5, t: 0), fix(39.5, t: 1e6)].map { distanceOnly.shouldReport($0) } == [true, false])
    }

    @Test func retryScheduleIsExponentialCappedAndJittered() {
        let policy = PositionReporter.RetryPolicy()
        #expect((1...6).map { policy.delay(afterFailures: $0, random: 0) } == [1, 2, 4, 60, 60, 60])
        #expect(policy.delay(afterFailures: 2, random: 0.999_999) > 1)             // at most half taken off
        #expect(policy.delay(afterFailures: 2, random: 0.5) == 1.5)
        let fast = PositionReporter.RetryPolicy(maximumRetries: 10, initialDelay: 0.5, multiplier: 3, maximumDelay: 5, jitter: 0)
        #expect((1...5).map { fast.delay(afterFailures: $0, random: 0.7) } == [0.5, 1.5, 4.5, 5, 5])
    }

    @Test func destinationFromACommandLineArgument() {
        #expect(PositionReporter.Destination(argument: "https://example.com/p") == .http(URL(string: "https://example.com/p")!))
        #expect(PositionReporter.Destination(argument: "HTTP://127.0.0.1:8080/") == .http(URL(string: "HTTP://127.0.0.1:8080/")!))
        #expect(PositionReporter.Destination(argument: "out/positions.ndjson")
                == .file(URL(fileURLWithPath: "out/positions.ndjson")))
    }

    // MARK: - Attached to a manager, into a file

    /// Attached to a manager: a courier moving 20 m/s for 30 s, then parked for 30 s. Reports every
    /// 100 m while moving and every 10 s while parked, with the placemark the manager resolved, all
    /// in the NDJSON file in order.
    @Test func attachedReporterWritesTheThrottledFixesToAFile() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let moving = (0...30).map { fix(39.45 + Double($0) * 20 / 111_195, 116.9, t: Double($0)) }
        let parked = (31...60).map { fix(moving.last!.coordinate.latitude, 116.9, t: Double($0)) }
        let fixes = moving + parked
        let manager = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        let output = dir.appendingPathComponent("out/positions.ndjson")
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        let clock = TestClock(start: epoch.addingTimeInterval(1000))
        let reporter = try PositionReporter(configuration: testConfiguration(.file(output), queue: dir.appendingPathComponent("queue")),
                                            clock: clock)
        reporter.attach(to: manager)
        _ = await drive(manager)
        #expect(await reporter.flush(timeout: untilDrained))

        var throttle = ReportThrottle(minimumDistance: 100, maximumInterval: 10)
        let expected = fixes.filter { throttle.shouldReport($0) }
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let reports = try lines.map { try JSONDecoder().decode(PositionReport.self, from: Data($0.utf8)) }
        #expect(reports.map(\.time) == expected.map(\.timestamp))
        #expect(reports.map(\.seq) == Array(1...UInt64(expected.count)))
        #expect(reports.map(\.placemark) == expected.map { RegionProvider.answer($0.coordinate) })
        // Moving: every 5 fixes (100 m); parked: every 10 s.
        #expect(expected.map { Int($0.timestamp.timeIntervalSince(epoch)) } == [0, 5, 10, 15, 20, 25, 30, 40, 50, 60])
        #expect(Set(reports.map(\.id)).count == reports.count)
        #expect(reports.allSatisfy { $0.recorded == epoch.addingTimeInterval(1000) }, "recorded on the reporter's clock")
        #expect(reporter.pendingCount == 0)
    }

    /// A crash after the file got a batch but before the queue recorded it: the next reporter sends the
    /// batch again, and the file destination recognises the reports it already has (by the last line's
    /// id) and writes each exactly once. A torn last line from the crash is cut off first.
    @Test func fileDestinationIsExactlyOnceAcrossACrash() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let queueDir = dir.appendingPathComponent("queue")
        let output = dir.appendingPathComponent("positions.ndjson")
        // The state the crash left: 6 reports queued, none acknowledged; the file has reports 1–3 and
        // half of report 4.
        do {
            let queue = try ReportQueue(directory: queueDir)
            for i in 0..<6 { try queue.append { PositionReport(seq: $0, location: courierFix(i), placemark: nil) } }
            var bytes = Data()
            for item in queue.peek(3) { bytes.append(item.json); bytes.append(0x0A) }
            bytes.append(queue.peek(4)[3].json.prefix(40))
            try bytes.write(to: output)
            queue.close()
        }
        let reporter = try PositionReporter(configuration: testConfiguration(.file(output), queue: queueDir), clock: TestClock())
        #expect(await reporter.flush(timeout: untilDrained))
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")  // ends with a newline
        let seqs = try lines.dropLast().map { try JSONDecoder().decode(PositionReport.self, from: Data($0.utf8)).seq }
        #expect(seqs == [1, 2, 3, 4, 5, 6])
    }

    /// The destination cannot be written (its folder is missing): deliveries fail and are retried on
    /// the back-off schedule, nothing is lost, and once the folder exists everything arrives in order.
    @Test func failedDeliveriesAreRetriedUntilTheyWork() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("later/positions.ndjson")
        let clock = TestClock()
        let reporter = try PositionReporter(configuration: testConfiguration(.file(output), queue: dir.appendingPathComponent("q")),
                                            clock: clock)
        let events = ReporterEvents(reporter)
        let sent = try (0..<5).map { try reporter.enqueue(courierFix($0), placemark: .haidian) }
        // Each failure arms exactly one timer, for the wait it announces (0.05 · 2^(n-1) capped at
        // 0.2 s, less up to half of jitter); nothing is retried before the clock gets there.
        let policy = testConfiguration(.file(output), queue: dir).retry
        for attempt in 1...5 {
            await events.waitForFailures(attempt)
            let wait = events.failures[attempt - 1].retryIn
            let base = policy.delay(afterFailures: attempt, random: 0)
            #expect(wait <= base && wait > base / 2, "attempt \(attempt): \(wait) s")
            #expect(clock.pending == [Duration(timeInterval: wait)], "attempt \(attempt)")
            clock.advance(by: Duration(timeInterval: wait) - .nanoseconds(1))
            #expect(clock.pending == [.nanoseconds(1)], "attempt \(attempt): not retried before its wait is over")
            if attempt < 5 { clock.advance(by: .nanoseconds(1)) }
        }
        #expect(events.failures.prefix(5).map(\.attempt) == [1, 2, 3, 4, 5])
        #expect(events.failures[0].reason.contains("No such file or directory"))
        #expect(reporter.pendingCount == 5)
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        clock.advance(by: .nanoseconds(1))   // the fifth wait is over: the sixth attempt finds the folder
        #expect(await reporter.flush(timeout: untilDrained))
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        #expect(try lines.map { try JSONDecoder().decode(PositionReport.self, from: Data($0.utf8)) } == sent)
        await events.caughtUp(delivered: sent.count)
        #expect(events.delivered.map(\.id) == sent.map(\.id))
    }

    /// `retryNow()` cuts a long back-off short.
    @Test func retryNowEndsTheBackOffWait() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("later/positions.ndjson")
        var config = testConfiguration(.file(output), queue: dir.appendingPathComponent("q"))
        config.retry = .init(maximumRetries: 3, initialDelay: 600, maximumDelay: 600, jitter: 0)
        let clock = TestClock()
        let reporter = try PositionReporter(configuration: config, clock: clock)
        let events = ReporterEvents(reporter)
        let sent = try reporter.enqueue(courierFix(0), placemark: nil)
        await events.waitForFailures(1)
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A flush with a short timeout gives up: the reporter is waiting out the 600 s.
        let shortFlush = Task { await reporter.flush(timeout: .milliseconds(300)) }
        await clock.waitForTimers(2)                       // the retry's and the flush's
        #expect(clock.pending == [.milliseconds(300), .seconds(600)])
        clock.advance(by: .milliseconds(300))
        #expect(await shortFlush.value == false)
        #expect(clock.pending == [.milliseconds(599_700)], "the retry still waits")
        reporter.retryNow()
        #expect(await reporter.flush(timeout: untilDrained))
        #expect(clock.pending.allSatisfy { $0 > .seconds(3600) }, "the retry's timer was cancelled")
        await events.caughtUp(delivered: 1)
        #expect(events.delivered == [sent])
    }

    // MARK: - Life cycle

    @Test func aQueueDirectoryServesOneReporterAtATime() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = testConfiguration(.file(dir.appendingPathComponent("out.ndjson")), queue: dir.appendingPathComponent("q"))
        let first = try PositionReporter(configuration: config)
        #expect {
            _ = try PositionReporter(configuration: config)
        } throws: { error in
            (error as? PositionReporter.Failure)?.isQueueLocked == true
        }
        first.close()
        let second = try PositionReporter(configuration: config)
        second.close()
    }

    @Test func closingStopsQueueingAndFinishesStreams() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let reporter = try PositionReporter(configuration: testConfiguration(.file(dir.appendingPathComponent("o")),
                                                                             queue: dir.appendingPathComponent("q")),
                                            clock: TestClock())
        let stream = reporter.events
        let finished = Task { for await _ in stream {}; return true }
        reporter.close()
        #expect(await finished.value)
        #expect(throws: PositionReporter.Failure.self) { try reporter.enqueue(courierFix(0), placemark: nil) }
        #expect(await reporter.flush(timeout: .seconds(1)) == false)
        reporter.close()  // idempotent
    }
}
