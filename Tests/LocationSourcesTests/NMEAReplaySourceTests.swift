import Foundation
import Testing
@testable import LocationSources

/// Log replay: everything in order, at the asked pace (on a ``VirtualPlaybackClock``: exact moments, no
/// wall-clock waits).
struct NMEAReplaySourceTests {
    func corpusURL(_ name: String) throws -> URL {
        try NMEACorpus.directory.appendingPathComponent("\(name).log")
    }

    /// A temporary log of `count` GGA+RMC cycles `spacing` seconds apart (plus `gapAfter` extra
    /// seconds after the given fix index).
    func writeLog(count: Int, spacing: Double = 1, gapAfter: (index: Int, seconds: Double)? = nil) throws -> URL {
        var text = ""
        var t = 12 * 3600.0
        for i in 0..<count {
            let hh = Int(t) / 3600, mm = Int(t) / 60 % 60, ss = Int(t) % 60
            let cs = Int((t - t.rounded(.down)) * 100)
            let time = String(format: "%02d%02d%02d.%02d", hh, mm, ss, cs)
            let lat = String(format: "4807.%03d", i)
            text += NMEAChecksum.sentence("GPGGA,\(time),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") + "\r\n"
            text += NMEAChecksum.sentence("GPRMC,\(time),A,\(lat),N,01131.000,E,0.5,54.7,230394,,,A") + "\r\n"
            t += spacing
            if let gap = gapAfter, gap.index == i { t += gap.seconds }
        }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("nmea-replay-\(UUID().uuidString).log")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func collect(_ source: NMEAReplaySource) async -> (locations: [Location], errors: [LocationSourceError]) {
        var locations: [Location] = []
        var errors: [LocationSourceError] = []
        for await event in source.events() {
            switch event {
            case .location(let location): locations.append(location)
            case .error(let error): errors.append(error)
            }
        }
        return (locations, errors)
    }

    @Test func asFastAsPossibleDeliversEveryFixInOrder() async throws {
        let source = NMEAReplaySource(contentsOf: try corpusURL("telit-he910"),
                                      configuration: .init(pacing: .asFastAsPossible))
        // No wall-clock bound: that it does not wait is the schedule's business (asFastAsPossible has no
        // waits, checked in GPXPlaybackSourceTests.pacingSchedule), and speed is measured in Benchmarks/.
        let (locations, errors) = await collect(source)
        #expect(errors.isEmpty)
        #expect(locations.count == 187)
        // Exactly what the decoder gives for the same bytes, in the same order. (Not sorted by time:
        // the Telit's first fix is stamped 10:51:53.71, its second 10:51:53.408, and replay does not
        // second-guess the receiver.)
        var decoder = NMEALocationDecoder()
        let bytes = try [UInt8](Data(contentsOf: try corpusURL("telit-he910")))
        let direct = (decoder.decode(bytes) + decoder.finish()).compactMap { output -> Location? in
            if case .location(let l) = output { return l }
            return nil
        }
        #expect(locations == direct)
    }

    @Test func aSpeedFactorSpacesFixesByTheirTimestamps() async throws {
        // 11 fixes one second apart = 10 recorded seconds; at 8x, fix i is due i/8 s after the first.
        let url = try writeLog(count: 11)
        defer { try? FileManager.default.removeItem(at: url) }
        let clock = VirtualPlaybackClock()
        let source = NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .realTime(speedFactor: 8)), clock: clock)
        let (locations, _) = await collect(source)
        #expect(locations.count == 11)
        #expect(zip(locations, locations.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // Fix i is due at its recorded offset / 8 from the first (deadlines from the run's start, so
        // waits do not drift). The deadlines, not the consumer's clock readings: the replay pushes
        // fixes into a buffered stream, so on a clock whose sleeps take no time it runs ahead.
        let due = clock.deadlines
        #expect(due.count == 10)
        for (k, deadline) in due.enumerated() {
            let offset = locations[k + 1].timestamp.timeIntervalSince(locations[0].timestamp) / 8
            #expect(abs(deadline / .seconds(1) - offset) < 1e-6, "fix \(k + 1) due at \(deadline), recorded offset / 8 = \(offset) s")
        }
    }

    @Test func recordingGapsWaitAtMostTheMaximumPause() async throws {
        // An hour's gap between fix 1 and 2, in real time, capped at 0.3 s.
        let url = try writeLog(count: 3, spacing: 0.1, gapAfter: (index: 0, seconds: 3600))
        defer { try? FileManager.default.removeItem(at: url) }
        let clock = VirtualPlaybackClock()
        let source = NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .realTime, maximumPause: .milliseconds(300)),
                                      clock: clock)
        let (locations, _) = await collect(source)
        #expect(locations.count == 3)
        // Fix 1 waits the capped 0.3 s (not the hour and 0.1 s), fix 2 its recorded gap after that.
        let waits = clock.deadlines.map { $0 / .seconds(1) }
        let recorded = locations[2].timestamp.timeIntervalSince(locations[1].timestamp)
        #expect(waits.count == 2, "\(clock.deadlines)")
        #expect(abs(waits[0] - 0.3) < 1e-9 && abs(waits[1] - waits[0] - recorded) < 1e-6, "\(clock.deadlines), recorded \(recorded) s")
    }

    @Test func rejectedLinesAreReportedWithFileAndLine() async throws {
        let source = NMEAReplaySource(contentsOf: try corpusURL("ublox-8"),
                                      configuration: .init(pacing: .asFastAsPossible))
        let (locations, errors) = await collect(source)
        #expect(locations.count == 72)
        #expect(errors == [.parse("ublox-8.log:1019: no *hh checksum: $GNRMC,001053.00,A,4404.14083,N,12118.85886,W,0.")])
        let quiet = NMEAReplaySource(contentsOf: try corpusURL("ublox-8"),
                                     configuration: .init(pacing: .asFastAsPossible, reportsRejectedLines: false))
        #expect(await collect(quiet).errors.isEmpty)
    }

    /// `hello world` between two sentences was skipped without an event, while a bad checksum had one.
    @Test func aTextLineThatIsNoSentenceIsReportedAndReplayGoesOn() async throws {
        let clean = try writeLog(count: 3)
        defer { try? FileManager.default.removeItem(at: clean) }
        var lines = try String(contentsOf: clean, encoding: .utf8).components(separatedBy: "\r\n")
        lines.insert("hello world", at: 2)  // line 3, between the first cycle and the second
        let url = clean.deletingPathExtension().appendingPathExtension("noisy.log")
        defer { try? FileManager.default.removeItem(at: url) }
        try lines.joined(separator: "\r\n").write(to: url, atomically: true, encoding: .utf8)

        let (locations, errors) = await collect(NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible)))
        #expect(errors == [.parse("\(url.lastPathComponent):3: does not start with '$' or '!': hello world")])
        #expect(locations.count == 3, "the fixes of the clean log, all of them")
    }

    @Test func aMissingFileIsOneClearError() async {
        let url = URL(fileURLWithPath: "/nonexistent/nmea-\(UUID().uuidString).log")
        let (locations, errors) = await collect(NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible)))
        #expect(locations.isEmpty)
        #expect(errors.count == 1)
        guard case .sourceUnavailable(let message)? = errors.first else {
            Issue.record("\(errors)")
            return
        }
        #expect(message.contains(url.path))
    }

    @Test func stopEndsTheStreamAndANewRunStartsOver() async throws {
        let url = try writeLog(count: 50)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .realTime))
        var received = 0
        for await event in source.events() {
            if case .location = event { received += 1 }
            if received == 2 { source.stop() }
        }
        #expect(received == 2)  // 50 seconds of log, stopped after the second fix (one second in)

        // A second events() call starts a fresh run from the start; it ends the first one.
        let first = source.events()
        let second = source.events()
        var firstCount = 0
        for await _ in first { firstCount += 1 }
        #expect(firstCount <= 1)
        var iterator = second.makeAsyncIterator()
        if case .location(let location)? = await iterator.next() {
            #expect(abs(location.coordinate.latitude - (48 + 7.0 / 60)) < 1e-12)
        } else {
            Issue.record("the new run did not start from the first fix")
        }
        source.stop()
    }

    @Test func cancellingTheConsumerStopsPlayback() async throws {
        let url = try writeLog(count: 50)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = NMEAReplaySource(contentsOf: url, configuration: .init(pacing: .realTime))
        let (firstFix, signal) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var n = 0
            for await _ in source.events() {
                n += 1
                signal.yield()
            }
            return n
        }
        var started = firstFix.makeAsyncIterator()
        _ = await started.next()  // playing: the first fix is in
        consumer.cancel()
        let n = await consumer.value
        #expect(n >= 1 && n < 50)
    }
}
