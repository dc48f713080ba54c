import Dispatch
import Foundation
import LocationSources
import GeoModel
import Synchronization

/// Sends positions to a server (HTTP POST of JSON) or a local NDJSON file, losing none: every report
/// is queued on disk before it is sent and stays there until the destination has it.
///
/// ```swift
/// let reporter = try PositionReporter(configuration: .init(
///     destination: .http(URL(string: "https://example.com/positions")!),
///     queueDirectory: URL(fileURLWithPath: "/var/lib/courier/report-queue")))
/// reporter.attach(to: manager)       // accepted fixes, with their placemarks
/// manager.startUpdatingLocation()
/// ...
/// _ = await reporter.flush(timeout: .seconds(10))   // before exiting: give the queue a chance
/// ```
///
/// ## What is reported
/// Of the fixes the attached manager accepts (or you pass to ``record(_:placemark:)``), one is queued
/// when it is at least ``Configuration/minimumDistance`` metres from the last one queued, or at least
/// ``Configuration/maximumInterval`` seconds (fix timestamps) after it; the first fix always is. The
/// report carries the fix and its placemark (see ``PositionReport`` for the JSON).
///
/// ## Delivery
/// - **At least once, in order.** One request is in flight at a time. It carries the oldest unsent
///   reports (up to ``Configuration/maximumBatch`` of them, so a reporter that fell behind catches up in
///   batches). Only a success (HTTP 2xx; the file written and fsynced) removes them from the queue; a
///   failure sends the same reports again, with more appended if more were queued meanwhile. A server
///   sees every report, first arrivals in seq order, and drops repeats by `id`.
/// - **Retries** follow ``RetryPolicy``: exponential back-off with jitter, never giving up.
/// - **Durable.** A report that ``enqueue(_:placemark:)`` returned (or an `.enqueued` event announced)
///   is fsynced to the queue directory's append-only log. It survives a crash, a kill or a power cut
///   and is sent by the next reporter opened on the same directory. Delivery is recorded in an ack
///   file that is replaced atomically; a crash between delivery and that record means the reports
///   are sent again (same ids). A torn last write is detected by its checksum and cut off on open
///   (``recoveryWarnings``). Layout and crash analysis: `Reporter/ReportQueue.swift`.
///
/// ## Threading
/// `Sendable`. State lives on a private serial queue; fixes are handled in the order they arrive.
/// ``events`` streams are fed from that queue; ``onEvent`` runs on ``delegateQueue``. Nothing runs on
/// the Swift concurrency pool except ``flush(timeout:)``'s await. Releasing the reporter (or ``close()``)
/// stops sending and releases the queue directory; what was unsent stays queued.
public final class PositionReporter: @unchecked Sendable {
    // @unchecked: the state below "Queue state" is only touched on `queue` (asserted).

    /// Where reports go.
    public enum Destination: Sendable, Hashable, CustomStringConvertible {
        /// POST a JSON array of reports to the URL, with these extra headers (e.g. Authorization).
        ///
        /// Sent with libcurl, loaded when the first request is made (a system without libcurl gets
        /// each delivery failing with that reason, and the reports stay queued). libcurl takes proxies
        /// from the `http_proxy`, `https_proxy` and `no_proxy` environment variables: a collector on
        /// the local network behind a proxied environment must be listed in `no_proxy`. Redirects are
        /// followed with the POST kept.
        case http(URL, headers: [String: String] = [:])
        /// Append one report per line (NDJSON) to a local file, fsynced.
        case file(URL)

        /// A command-line argument: an `http://` or `https://` URL, else a file path.
        public init(argument: String) {
            if let url = URL(string: argument), let scheme = url.scheme?.lowercased(),
               scheme == "http" || scheme == "https" {
                self = .http(url)
            } else {
                self = .file(URL(fileURLWithPath: argument))
            }
        }

        public var description: String {
            switch self {
            case .http(let url, _): return url.absoluteString
            case .file(let url): return url.path
            }
        }
    }

    /// When a failed delivery is tried again: the first ``maximumRetries`` retries wait
    /// `initialDelay · multiplier^(n-1)` seconds (n = 1, 2, ...), capped at ``maximumDelay``; after that
    /// every retry waits ``maximumDelay``. Each wait is shortened by a random fraction of up to
    /// ``jitter`` of itself, so many devices coming back from one outage do not retry in lockstep. There
    /// is no last retry: reports are never dropped. A success resets the count.
    public struct RetryPolicy: Sendable, Hashable {
        /// Retries on the exponential schedule (default 3: 1 s, 2 s, 4 s).
        public var maximumRetries: Int
        /// Seconds before the first retry (default 1).
        public var initialDelay: TimeInterval
        /// Growth per retry (default 2).
        public var multiplier: Double
        /// Longest wait, and the wait after the exponential retries (default 60 s).
        public var maximumDelay: TimeInterval
        /// 0...1: fraction of each wait that is random (default 0.5).
        public var jitter: Double

        public init(maximumRetries: Int = 3, initialDelay: TimeInterval = 1, multiplier: Double = 2,
                    maximumDelay: TimeInterval = 60, jitter: Double = 0.5) {
            self.maximumRetries = max(0, maximumRetries)
            self.initialDelay = initialDelay.isFinite ? max(0, initialDelay) : 1
            self.multiplier = multiplier.isFinite ? max(1, multiplier) : 2
            self.maximumDelay = maximumDelay.isFinite ? max(self.initialDelay, maximumDelay) : 60
            self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0.5
        }

        public static let `default` = RetryPolicy()

        /// The wait before retry `failures` (1 for the first retry), with `random` in 0..<1.
        public func delay(afterFailures failures: Int, random: Double) -> TimeInterval {
            let n = max(1, failures)
            let base = n <= maximumRetries
                ? min(maximumDelay, initialDelay * pow(multiplier, Double(n - 1)))
                : maximumDelay
            return base * (1 - jitter * min(max(random, 0), 1))
        }
    }

    public struct Configuration: Sendable, Hashable {
        public var destination: Destination
        /// The on-disk queue (created if needed); one reporter at a time per directory.
        public var queueDirectory: URL
        /// Metres a fix must be from the last queued one to be queued (default 100; ≤ 0: every fix).
        public var minimumDistance: Double
        /// Seconds after the last queued fix when the next fix is queued even without movement
        /// (default 10; `nil`: only movement counts).
        public var maximumInterval: TimeInterval?
        /// Most reports per request (default 100).
        public var maximumBatch: Int
        /// Seconds an HTTP request may take, connecting included (default 30).
        public var requestTimeout: TimeInterval
        public var retry: RetryPolicy
        /// Bytes after which the queue starts a new segment file (default 1 MiB).
        public var segmentSize: Int

        public init(destination: Destination, queueDirectory: URL, minimumDistance: Double = 100,
                    maximumInterval: TimeInterval? = 10, maximumBatch: Int = 100, requestTimeout: TimeInterval = 30,
                    retry: RetryPolicy = .default, segmentSize: Int = 1 << 20) {
            self.destination = destination
            self.queueDirectory = queueDirectory
            self.minimumDistance = minimumDistance
            self.maximumInterval = maximumInterval
            self.maximumBatch = max(1, maximumBatch)
            self.requestTimeout = requestTimeout > 0 && requestTimeout.isFinite ? requestTimeout : 30
            self.retry = retry
            self.segmentSize = max(1, segmentSize)
        }
    }

    /// What the reporter did.
    public enum Event: Sendable, Hashable {
        /// A report was queued durably.
        case enqueued(PositionReport)
        /// A fix to be reported could not be queued (disk full, queue closed); it is lost.
        case enqueueFailed(reason: String)
        /// These reports reached the destination (oldest first).
        case delivered([PositionReport])
        /// A delivery failed; it is retried after `retryIn` seconds. `attempt` counts failures in a row.
        case deliveryFailed(reason: String, attempt: Int, retryIn: TimeInterval)
        /// Delivered, but recording that failed: those reports will be sent again after a restart.
        case acknowledgementNotSaved(reason: String)
    }

    /// Why a reporter could not start or a report could not be queued.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        /// The queue directory is used by another reporter (this or another process).
        public var isQueueLocked: Bool
        public var description: String { message }
    }

    public let configuration: Configuration
    /// Where ``onEvent`` runs.
    public let delegateQueue: DispatchQueue
    /// What retry waits and ``flush(timeout:)`` are measured on, and the `recorded` date of reports.
    public let clock: any LocationClock

    private let queue = DispatchQueue(label: "LocationKit.PositionReporter")
    private let queueKey = DispatchSpecificKey<UInt8>()
    private let onEventSlot = Mutex<(@Sendable (Event) -> Void)?>(nil)
    private let attachment = Mutex<(manager: WeakManager, token: UInt64)?>(nil)
    private let ids = Mutex<UInt64>(0)
    private let sink: any ReportSink

    // MARK: Queue state (only on `queue`)

    private var store: ReportQueue?
    private var throttle: ReportThrottle
    private var inFlight: UInt64?
    private var retryTimer: (any ClockTimer)?
    private var failures = 0
    private var subscribers: [UInt64: AsyncStream<Event>.Continuation] = [:]
    private var drainWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]

    /// Opens the queue (recovering what an earlier run left) and starts sending what is pending.
    /// `clock`: the time retry waits and flush timeouts run on; tests pass a manual one.
    public init(configuration: Configuration, delegateQueue: DispatchQueue? = nil,
                clock: any LocationClock = SystemClock()) throws(Failure) {
        self.configuration = configuration
        self.clock = clock
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "LocationKit.PositionReporter.delegate")
        self.throttle = ReportThrottle(minimumDistance: configuration.minimumDistance,
                                       maximumInterval: configuration.maximumInterval)
        do {
            store = try ReportQueue(directory: configuration.queueDirectory, segmentSize: configuration.segmentSize)
        } catch {
            throw Failure(message: error.message, isQueueLocked: error.kind == .locked)
        }
        switch configuration.destination {
        case .http(let url, let headers):
            sink = HTTPReportSink(url: url, headers: headers, timeout: configuration.requestTimeout)
        case .file(let url):
            sink = FileReportSink(url: url)
        }
        queue.setSpecific(key: queueKey, value: 1)
        queue.async { self.kick() }
    }

    deinit {
        // No other reference exists, so the queue state can be touched directly.
        if let attached = attachment.withLock({ $0 }) { attached.manager.value?.removeFixObserver(attached.token) }
        retryTimer?.cancel()
        sink.invalidate()
        store?.close()
        for continuation in subscribers.values { continuation.finish() }
        for waiter in drainWaiters.values { waiter.resume(returning: false) }
    }

    /// Stops sending and releases the queue directory (another reporter may open it). Unsent reports
    /// stay queued; a request in flight is abandoned (its reports are sent again by the next reporter).
    /// Later fixes are not queued. Idempotent.
    public func close() {
        detach()
        onQueue {
            guard let store else { return }
            retryTimer?.cancel()
            retryTimer = nil
            inFlight = nil
            sink.invalidate()
            store.close()
            self.store = nil
            resolveDrainWaiters()
            for continuation in subscribers.values { continuation.finish() }
            subscribers = [:]
        }
    }

    // MARK: - Input

    /// Reports every fix `manager` accepts (subject to the distance/interval rule), with the placemark
    /// the manager resolved. Attaching again detaches from the previous manager. The manager does not
    /// keep the reporter alive.
    public func attach(to manager: LocationManager) {
        let token = manager.addFixObserver { [weak self] fix in
            self?.record(fix.location, placemark: fix.placemark)
        }
        let previous = attachment.withLock { current -> (manager: WeakManager, token: UInt64)? in
            defer { current = (WeakManager(manager), token) }
            return current
        }
        if let previous { previous.manager.value?.removeFixObserver(previous.token) }
    }

    /// Stops reporting the attached manager's fixes.
    public func detach() {
        let previous = attachment.withLock { current -> (manager: WeakManager, token: UInt64)? in
            defer { current = nil }
            return current
        }
        if let previous { previous.manager.value?.removeFixObserver(previous.token) }
    }

    /// Considers one fix: queued if it moved ``Configuration/minimumDistance`` or
    /// ``Configuration/maximumInterval`` passed (see the type's documentation). Returns at once; the
    /// outcome is an `.enqueued` (or `.enqueueFailed`) event.
    public func record(_ location: Location, placemark: Placemark?) {
        queue.async {
            guard self.store != nil, location.isValid, self.throttle.shouldReport(location) else { return }
            _ = try? self.append(location, placemark)
        }
    }

    /// Queues a report for `location` now, whatever the distance/interval rule says, and returns it
    /// once it is on disk. (It also becomes the reference for the rule.)
    @discardableResult
    public func enqueue(_ location: Location, placemark: Placemark?) throws(Failure) -> PositionReport {
        let result: Result<PositionReport, Failure> = onQueue {
            throttle.reported(location)
            do throws(Failure) {
                return .success(try append(location, placemark))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Ends a back-off wait and sends now (for example when the app learns the network is back, or
    /// before a last ``flush(timeout:)`` at exit). The failure count is kept, so if this attempt fails
    /// too the next wait is as long as the schedule says. Does nothing when nothing waits.
    public func retryNow() {
        queue.async {
            guard let timer = self.retryTimer else { return }
            timer.cancel()
            self.retryTimer = nil
            self.kick()
        }
    }

    // MARK: - State

    /// Reports queued and not yet delivered.
    public var pendingCount: Int { onQueue { store?.pendingCount ?? 0 } }

    /// The reports queued and not yet delivered, oldest first.
    public var pendingReports: [PositionReport] { onQueue { store?.pending.map(\.report) ?? [] } }

    /// Waits until every queued report has been delivered (true), or `timeout` passes or the reporter
    /// closes (false). Does not hurry a pending retry.
    public func flush(timeout: Duration) async -> Bool {
        let id = ids.withLock { $0 += 1; return $0 }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            queue.async {
                if self.isDrained {
                    continuation.resume(returning: self.store != nil)
                    return
                }
                self.drainWaiters[id] = continuation
                // Not cancelled when the queue drains first: it then finds no waiter under `id`.
                _ = self.clock.schedule(after: timeout, on: self.queue) { [weak self] in
                    self?.drainWaiters.removeValue(forKey: id)?.resume(returning: false)
                }
            }
        }
    }

    // MARK: - Listening

    /// Called on ``delegateQueue`` with each event, in order.
    public var onEvent: (@Sendable (Event) -> Void)? {
        get { onEventSlot.withLock { $0 } }
        set { onEventSlot.withLock { $0 = newValue } }
    }

    /// A new sequence of every event from now on, in order; it finishes when the reporter closes or
    /// goes away. (What the queue held when it was opened: ``pendingReports``, ``recoveryWarnings``.)
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let id = ids.withLock { $0 += 1; return $0 }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.subscribers[id] = nil }
        }
        onQueue {
            if store == nil { continuation.finish() } else { subscribers[id] = continuation }
        }
        return stream
    }

    /// What recovery found when the queue was opened (torn last write cut off, corrupt lines skipped).
    public var recoveryWarnings: [String] { onQueue { store?.warnings ?? [] } }

    // MARK: - Work (on `queue`)

    private var isDrained: Bool { (store?.pendingCount ?? 0) == 0 && inFlight == nil }

    private func append(_ location: Location, _ placemark: Placemark?) throws(Failure) -> PositionReport {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let store else {
            emit(.enqueueFailed(reason: "the reporter is closed"))
            throw Failure(message: "the reporter is closed", isQueueLocked: false)
        }
        do {
            let recorded = clock.now
            let queued = try store.append {
                PositionReport(seq: $0, location: location, placemark: placemark, recorded: recorded)
            }
            emit(.enqueued(queued.report))
            kick()
            return queued.report
        } catch {
            emit(.enqueueFailed(reason: error.message))
            throw Failure(message: error.message, isQueueLocked: false)
        }
    }

    /// Sends the next batch if nothing is in flight or waiting to be retried.
    private func kick() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let store, inFlight == nil, retryTimer == nil else { return }
        guard store.pendingCount > 0 else {
            resolveDrainWaiters()
            return
        }
        let batch = store.peek(configuration.maximumBatch)
        let attempt = ids.withLock { $0 += 1; return $0 }
        inFlight = attempt
        sink.send(batch) { [weak self] result in
            guard let self else { return }
            self.queue.async { self.finished(attempt, batch, result) }
        }
    }

    private func finished(_ attempt: UInt64, _ batch: [QueuedReport], _ result: Result<Void, DeliveryFailure>) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard inFlight == attempt, let store else { return }
        inFlight = nil
        switch result {
        case .success:
            failures = 0
            do throws(ReportQueue.Failure) {
                try store.acknowledge(batch.count)
            } catch {
                emit(.acknowledgementNotSaved(reason: error.message))
            }
            emit(.delivered(batch.map(\.report)))
            kick()
        case .failure(let failure):
            failures += 1
            let delay = configuration.retry.delay(afterFailures: failures, random: Double.random(in: 0..<1))
            // Armed before the event goes out, so whoever sees the event finds the retry scheduled.
            let attempts = failures
            retryTimer = clock.schedule(after: Duration(timeInterval: delay), on: queue) { [weak self] in
                guard let self, self.failures == attempts, self.retryTimer != nil else { return }
                self.retryTimer = nil
                self.kick()
            }
            emit(.deliveryFailed(reason: failure.message, attempt: failures, retryIn: delay))
        }
    }

    private func resolveDrainWaiters() {
        guard isDrained || store == nil else { return }
        let waiting = drainWaiters
        drainWaiters = [:]
        for waiter in waiting.values { waiter.resume(returning: store != nil) }
    }

    private func emit(_ event: Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        for continuation in subscribers.values { continuation.yield(event) }
        delegateQueue.async { self.onEventSlot.withLock({ $0 })?(event) }
    }

    private func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: queueKey) != nil { return body() }
        return queue.sync(execute: body)
    }
}

/// Whether a fix is worth a report: moved far enough, or enough time passed, since the last one.
struct ReportThrottle: Sendable {
    var minimumDistance: Double
    var maximumInterval: TimeInterval?
    private(set) var last: Location?

    init(minimumDistance: Double, maximumInterval: TimeInterval?) {
        self.minimumDistance = minimumDistance
        self.maximumInterval = maximumInterval
    }

    /// True (and `location` becomes the reference) for the first fix, a fix ≥ `minimumDistance` metres
    /// from the reference, or one ≥ `maximumInterval` seconds after it (or before it: the clock went back).
    mutating func shouldReport(_ location: Location) -> Bool {
        if let last {
            let moved = location.coordinate.distance(to: last.coordinate) >= minimumDistance
            let elapsed = location.timestamp.timeIntervalSince(last.timestamp)
            let due = maximumInterval.map { elapsed >= $0 || elapsed < 0 } ?? false
            guard moved || due else { return false }
        }
        last = location
        return true
    }

    mutating func reported(_ location: Location) {
        last = location
    }
}

/// A weak reference to a manager that can sit inside a `Mutex`.
private final class WeakManager: @unchecked Sendable {
    // @unchecked: `weak` needs a var; it is written only in init.
    weak var value: LocationManager?
    init(_ value: LocationManager) { self.value = value }
}
