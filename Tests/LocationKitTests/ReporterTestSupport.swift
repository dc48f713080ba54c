import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Child processes

/// A subprocess whose stdout is collected by a thread of its own (never by the cooperative pool).
/// Waits for its lines and its exit wake on the output and the exit themselves; their only bound is
/// the calling test's time limit. Its stdin is a pipe this object holds open, so a child that reads
/// stdin to its end lives exactly as long as its parent.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is configured before `run()` and only read afterwards.
    let process = Process()
    /// Output chunks as they arrive, then `nil` at end of output.
    private let output = Recorder<String?>()
    /// The exit, once.
    private let exit = Recorder<Int32>()
    private let input = Pipe()

    init(executable: URL, arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = input
        let exit = self.exit
        process.terminationHandler = { process in exit.append(process.terminationStatus) }
        try process.run()
        let handle = pipe.fileHandleForReading
        let output = self.output
        let reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.append(String(decoding: data, as: UTF8.self))
            }
            output.append(nil)
        }
        reader.start()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: Int32 { process.processIdentifier }
    var text: String { Self.text(output.values) }
    var lines: [String] { Self.lines(output.values) }

    private static func text(_ chunks: [String?]) -> String { chunks.compactMap { $0 }.joined() }
    /// Complete lines only (a line still being written is not one yet).
    private static func lines(_ chunks: [String?]) -> [String] {
        let text = text(chunks)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()   // after the last newline: empty, or a partial line
        return lines.filter { !$0.isEmpty }
    }

    /// Returns once the complete output lines satisfy `condition` or the output ended.
    func waitForLines(_ condition: @escaping @Sendable ([String]) -> Bool) async {
        await output.wait { chunks in chunks.last == .some(nil) || condition(Self.lines(chunks)) }
    }

    /// The first complete output line starting with `prefix`; `nil` if the output ended without one.
    func line(startingWith prefix: String) async -> String? {
        await waitForLines { $0.contains { $0.hasPrefix(prefix) } }
        return lines.first { $0.hasPrefix(prefix) }
    }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Returns once the process has ended.
    func waitForExit() async {
        await exit.wait(count: 1)
        process.waitUntilExit()   // already ended: only lets Process record the termination
    }
}

/// `python3` on the PATH, if there is one.
let python3: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("python3")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}()

// MARK: - The loopback server

/// `Fixtures/report_server.py` running on 127.0.0.1, and what its log says.
final class ReportServer: @unchecked Sendable {
    struct Entry: Equatable {
        var n: Int
        var event: String
        var reports: [(seq: UInt64, id: String)]
        static func == (a: Entry, b: Entry) -> Bool {
            a.n == b.n && a.event == b.event && a.reports.map(\.seq) == b.reports.map(\.seq)
                && a.reports.map(\.id) == b.reports.map(\.id)
        }
    }

    struct Options {
        var failFirst = 0
        var dropFirst = 0
        var stalls: [Int: Double] = [:]
        /// Request number → file: the request is held until the file exists (see ``release(_:)``).
        var holds: [Int: URL] = [:]
    }

    let port: Int
    let log: URL
    private let child: ChildProcess

    var url: URL { URL(string: "http://127.0.0.1:\(port)/reports")! }

    private init(port: Int, log: URL, child: ChildProcess) {
        self.port = port
        self.log = log
        self.child = child
    }

    /// libcurl sends even loopback requests through `http_proxy` unless
    /// `no_proxy` lists the host. When a proxy is set in the environment, add loopback to `no_proxy`,
    /// once, before the first request of any test.
    static let loopbackBypassesProxy: Void = {
        let environment = ProcessInfo.processInfo.environment
        guard ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"].contains(where: { environment[$0] != nil }) else { return }
        for name in ["no_proxy", "NO_PROXY"] {
            let existing = environment[name].map { $0 + "," } ?? ""
            setenv(name, existing + "127.0.0.1,localhost", 1)
        }
    }()

    /// Starts the server (on `port`, or any free port) logging to `log`; fails the test clearly when
    /// there is no python3.
    static func start(log: URL, port: Int = 0, options: Options = Options()) async throws -> ReportServer {
        _ = loopbackBypassesProxy
        let python = try #require(python3, "these tests need python3 on the PATH (for the loopback HTTP server)")
        let script = try #require(Bundle.module.url(forResource: "Fixtures/report_server", withExtension: "py"))
        var arguments = [script.path, "--log", log.path, "--port", String(port), "--fail-first", String(options.failFirst),
                         "--drop-first", String(options.dropFirst)]
        for (n, seconds) in options.stalls.sorted(by: { $0.key < $1.key }) { arguments += ["--stall", "\(n):\(seconds)"] }
        for (n, file) in options.holds.sorted(by: { $0.key < $1.key }) { arguments += ["--hold", "\(n):\(file.path)"] }
        let child = try ChildProcess(executable: python, arguments: arguments)
        let line = try #require(await child.line(startingWith: "PORT "), "server did not start")
        let port = try #require(Int(line.dropFirst(5)))
        return ReportServer(port: port, log: log, child: child)
    }

    /// Lets a held request go on (creates its release file).
    static func release(_ file: URL) {
        _ = FileManager.default.createFile(atPath: file.path, contents: Data())
    }

    /// Kills the server outright (the machine went away) and waits for it to be gone.
    func kill() async {
        child.signal(SIGKILL)
        await child.waitForExit()
    }

    /// Returns once this server's log satisfies `condition` (woken by each line the server logs).
    func waitForEntries(_ condition: @escaping @Sendable ([Entry]) -> Bool) async {
        let log = self.log
        await child.waitForLines { _ in condition(Self.entries(log)) }
    }

    var entries: [Entry] { Self.entries(log) }

    private static func entries(_ log: URL) -> [Entry] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let n = object["n"] as? Int, let event = object["event"] as? String else { return nil }
            let reports = (object["reports"] as? [[Any]] ?? []).compactMap { pair -> (UInt64, String)? in
                guard pair.count == 2, let seq = (pair[0] as? NSNumber)?.uint64Value, let id = pair[1] as? String else {
                    return nil
                }
                return (seq, id)
            }
            return Entry(n: n, event: event, reports: reports)
        }
    }

    /// Reports in accepted requests, in log order, with repeats.
    var accepted: [(seq: UInt64, id: String)] {
        entries.filter { $0.event == "accepted" }.flatMap(\.reports)
    }

    /// What a server that drops repeats by id keeps: first arrivals, in order.
    var deduplicated: [(seq: UInt64, id: String)] {
        var seen = Set<String>()
        return accepted.filter { seen.insert($0.id).inserted }
    }
}

// MARK: - Reports

/// A fix `i` of a made-up courier round: 150 m apart, 10 s apart.
func courierFix(_ i: Int) -> Location {
    fix(39.9 + Double(i) * 0.00135, 116.4, t: Double(i) * 10)
}

/// A reporter configuration for tests: short retries with jitter (they run on a test clock anyway),
/// and the production request timeout, so that only a test that means to see a timeout sees one.
func testConfiguration(_ destination: PositionReporter.Destination, queue: URL, batch: Int = 100,
                       timeout: TimeInterval = 30) -> PositionReporter.Configuration {
    PositionReporter.Configuration(
        destination: destination, queueDirectory: queue, maximumBatch: batch, requestTimeout: timeout,
        retry: .init(maximumRetries: 3, initialDelay: 0.05, multiplier: 2, maximumDelay: 0.2, jitter: 0.5))
}

/// Collects a reporter's events (from its `events` stream) without blocking anyone. With `retrying`,
/// it also plays the part of time: each `.deliveryFailed` moves that test clock forward by exactly the
/// announced wait, so the retry runs at once (the timer is armed before the event goes out).
final class ReporterEvents: Sendable {
    private let events = Recorder<PositionReporter.Event>()
    private let task: Task<Void, Never>

    init(_ reporter: PositionReporter, retrying clock: TestClock? = nil) {
        let stream = reporter.events
        let events = self.events
        task = Task {
            for await event in stream {
                events.append(event)
                if let clock, case .deliveryFailed(_, _, let wait) = event {
                    clock.advance(by: Duration(timeInterval: wait))
                }
            }
        }
    }

    deinit { task.cancel() }

    var all: [PositionReporter.Event] { events.values }

    /// Waits until the stream has brought `count` delivered reports. The stream is fed in order on the
    /// reporter's queue but consumed by a task that may lag behind it, so after `flush()` returns the
    /// last events may still be on their way; once the last `.delivered` is here, so is everything
    /// before it.
    func caughtUp(delivered count: Int) async {
        await events.wait { Self.delivered($0).count >= count }
    }

    /// Waits until the stream has brought `count` delivery failures.
    func waitForFailures(_ count: Int) async {
        await events.wait { Self.failures($0).count >= count }
    }

    var failures: [(reason: String, attempt: Int, retryIn: TimeInterval)] { Self.failures(all) }
    var delivered: [PositionReport] { Self.delivered(all) }
    var enqueued: [PositionReport] {
        all.compactMap { if case .enqueued(let report) = $0 { report } else { nil } }
    }

    private static func failures(_ all: [PositionReporter.Event]) -> [(reason: String, attempt: Int, retryIn: TimeInterval)] {
        all.compactMap { if case .deliveryFailed(let r, let a, let w) = $0 { (r, a, w) } else { nil } }
    }
    private static func delivered(_ all: [PositionReporter.Event]) -> [PositionReport] {
        all.flatMap { event -> [PositionReport] in
            if case .delivered(let batch) = event { return batch }
            return []
        }
    }
}

/// A flush timeout that a test clock never reaches unless the test advances it that far: waiting
/// for the queue to drain is waiting for the deliveries themselves.
let untilDrained: Duration = .seconds(86_400)
