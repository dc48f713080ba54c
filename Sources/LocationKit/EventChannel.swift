import Synchronization

/// The buffer behind one ``LocationManager/updates`` stream: the work queue puts events in without ever
/// blocking, the stream's consumer takes them out in order, and the manager's run task waits (see
/// ``waitForSpace(below:)``) while more than a bounded number are waiting. That is backpressure from
/// the consumer to the source: a slow consumer slows the replay down instead of the buffer growing
/// with the file (an `AsyncStream` with `.unbounded` held a 1 M-point replay's events in memory) or
/// events being dropped.
final class EventChannel: Sendable {
    private struct State {
        var buffer: [LocationEvent] = []
        /// Index of the next event to hand out; the consumed prefix is compacted away in bulk.
        var head = 0
        var finished = false
        /// The consumer went away (cancelled or dropped the stream): nothing is kept any more.
        var terminated = false
        var consumer: Consumer?
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []

        var count: Int { buffer.count - head }
    }

    /// A consumer waiting for the next event(s).
    private struct Consumer {
        let continuation: CheckedContinuation<[LocationEvent]?, Never>
    }

    private let state = Mutex(State())
    /// Called once when the consumer goes away (the manager forgets the subscriber).
    private let onTermination: @Sendable () -> Void

    init(onTermination: @escaping @Sendable () -> Void) {
        self.onTermination = onTermination
    }

    /// Events put in and not taken out yet.
    var count: Int { state.withLock { $0.count } }

    // MARK: Producer (the work queue)

    /// Appends `event` (never blocks, never drops while the consumer is there).
    func yield(_ event: LocationEvent) {
        let consumer = state.withLock { s -> Consumer? in
            guard !s.terminated, !s.finished else { return nil }
            if let c = s.consumer {
                s.consumer = nil
                return c
            }
            s.buffer.append(event)
            return nil
        }
        consumer?.continuation.resume(returning: [event])
    }

    /// No more events: the consumer gets what is buffered, then the end.
    func finish() {
        let (consumer, waiters) = state.withLock { s in
            s.finished = true
            let c = s.consumer
            s.consumer = nil
            let w = s.spaceWaiters
            s.spaceWaiters = []
            return (c, w)
        }
        consumer?.continuation.resume(returning: nil)
        for w in waiters { w.resume() }
    }

    /// Returns once fewer than `limit` events wait for the consumer, or the consumer is gone.
    func waitForSpace(below limit: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.terminated || s.finished || s.count < limit { return true }
                s.spaceWaiters.append(c)
                return false
            }
            if ready { c.resume() }
        }
    }

    /// How many events may wait for the consumer before the producer waits. A waiting producer is let
    /// go at half of it, so it refills in bursts rather than waking per event.
    static let limit = 256

    // MARK: Consumer (the stream)

    /// The next event in order; `nil` after the end (or once the consumer went away).
    func next() async -> LocationEvent? {
        await nextBatch(max: 1)?.first
    }

    /// The events waiting now, in order (at least one, at most `max`; waits when none is waiting);
    /// `nil` after the end (or once the consumer went away).
    func nextBatch(max: Int) async -> [LocationEvent]? {
        await withCheckedContinuation { (c: CheckedContinuation<[LocationEvent]?, Never>) in
            let (answer, waiters) = state.withLock { s -> ([LocationEvent]??, [CheckedContinuation<Void, Never>]) in
                if s.count > 0 {
                    let end = s.head + min(max, s.count)
                    let events = Array(s.buffer[s.head..<end])
                    s.head = end
                    if s.head == s.buffer.count {
                        s.buffer.removeAll(keepingCapacity: true)
                        s.head = 0
                    } else if s.head >= 1024 {
                        s.buffer.removeFirst(s.head)
                        s.head = 0
                    }
                    var woken: [CheckedContinuation<Void, Never>] = []
                    if !s.spaceWaiters.isEmpty, s.count <= Self.limit / 2 {
                        woken = s.spaceWaiters
                        s.spaceWaiters = []
                    }
                    return (.some(events), woken)
                }
                if s.finished || s.terminated { return (.some(nil), []) }
                s.consumer = Consumer(continuation: c)
                return (nil, [])
            }
            for w in waiters { w.resume() }
            if let answer { c.resume(returning: answer) }
        }
    }

    /// The consumer is gone (its task was cancelled, or the stream was released): drop what is
    /// buffered, let a waiting producer go, and tell the manager.
    func terminate() {
        let (consumer, waiters, first) = state.withLock { s in
            let first = !s.terminated
            s.terminated = true
            s.buffer = []
            s.head = 0
            let c = s.consumer
            s.consumer = nil
            let w = s.spaceWaiters
            s.spaceWaiters = []
            return (c, w, first)
        }
        consumer?.continuation.resume(returning: nil)
        for w in waiters { w.resume() }
        if first { onTermination() }
    }

    /// The public face: an `AsyncStream` that pulls from this channel. The stream owns a token whose
    /// release (the stream and its iterators all gone) terminates the channel, like `AsyncStream`'s
    /// own `onTermination` does for a dropped stream.
    func stream() -> AsyncStream<LocationEvent> {
        let token = Token(channel: self)
        return AsyncStream(unfolding: { await token.channel.next() },
                           onCancel: { [weak token] in token?.channel.terminate() })
    }

    /// The same events in batches: each element is every event waiting at that moment (up to
    /// `limit`), so a consumer that writes output can flush once per batch: promptly when it keeps up,
    /// rarely when it is behind.
    func batchStream() -> AsyncStream<[LocationEvent]> {
        let token = Token(channel: self)
        return AsyncStream(unfolding: { await token.channel.nextBatch(max: Self.limit) },
                           onCancel: { [weak token] in token?.channel.terminate() })
    }

    private final class Token: Sendable {
        let channel: EventChannel
        init(channel: EventChannel) { self.channel = channel }
        deinit { channel.terminate() }
    }
}
