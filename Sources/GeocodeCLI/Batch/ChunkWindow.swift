import Foundation

/// Puts processed chunks back in input order and bounds how many chunks are in flight.
///
/// The reader may only cut chunk `s` while `s < next + capacity`, where `next` is the chunk the writer
/// waits for. So however fast the reader and however slow one worker, at most `capacity` chunks (raw or
/// processed) are held: memory stays flat for any input size, and order costs only this buffer.
final class ChunkWindow: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.
    enum Next {
        case chunk(ProcessedChunk)
        case end
        case failed(CLIError)
    }

    private let condition = NSCondition()
    private let capacity: Int
    private var completed: [Int: ProcessedChunk] = [:]
    private var next = 0
    private var total: Int?
    private var readerError: CLIError?
    private(set) var isCancelled = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Blocks the reader until chunk `sequence` may be cut. False when the run was cancelled.
    func waitForSlot(_ sequence: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while sequence >= next + capacity && !isCancelled { condition.wait() }
        return !isCancelled
    }

    /// A worker hands in a processed chunk.
    func complete(_ chunk: ProcessedChunk) {
        condition.lock()
        completed[chunk.sequence] = chunk
        condition.broadcast()
        condition.unlock()
    }

    /// The reader is done: `total` chunks were cut, then input ended (or failed with `error`).
    func finish(total: Int, error: CLIError?) {
        condition.lock()
        self.total = total
        readerError = error
        condition.broadcast()
        condition.unlock()
    }

    /// The writer's side: the next chunk in order, blocking until it is done.
    func nextInOrder() -> Next {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let chunk = completed.removeValue(forKey: next) {
                next += 1
                condition.broadcast()
                return .chunk(chunk)
            }
            if let total, next >= total {
                if let readerError { return .failed(readerError) }
                return .end
            }
            condition.wait()
        }
    }

    /// Stops the run: the reader stops cutting, workers skip what is left.
    func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
