import Foundation

/// Runs the batch: one reader thread frames chunks, `threads` workers process them, and the calling
/// thread receives them in input order.
///
///     reader ──▶ WorkQueue ──▶ workers ×N ──▶ ChunkWindow (reorder, bounded) ──▶ caller (writer)
///
/// The caller's `deliver` returns false to stop early (`--strict`, a write error); the pipeline then
/// cancels and joins its threads before returning, so nothing keeps running behind the caller's back.
struct BatchPipeline {
    var threads: Int
    /// Chunks in flight at most; 2 per worker keeps every worker busy while the writer drains.
    var capacity: Int { threads * 2 + 2 }
    /// Target chunk size: big enough to amortise the hand-offs, small enough to spread over workers and
    /// keep memory low (a few MiB in flight in all).
    var chunkBytes = 256 << 10
    var chunkRecords = 8192

    /// Runs to the end of input. `pending` are chunks already cut (the first record, read while deciding
    /// the schema) that come before anything the framer still has.
    ///
    /// Returns whether the reader thread has finished. It always has, except after a cancelled run whose
    /// reader stayed blocked reading a pipe: then the caller must leave the input descriptor open (closing
    /// it under a pending read(2) could hand the number to another file).
    @discardableResult
    func run(framer: any RecordFramer, pending: [RawChunk], processor: ChunkProcessor,
             deliver: (ProcessedChunk) throws(CLIError) -> Bool) throws(CLIError) -> Bool {
        let window = ChunkWindow(capacity: capacity)
        let queue = WorkQueue<RawChunk>()
        // Workers and reader are joined separately: a cancelled run must not wait for a reader that may
        // be blocked in read(2) on a pipe that never ends (`tail -f log | geocode batch --strict`).
        let group = DispatchGroup(), readerGroup = DispatchGroup()
        let stackSize = 4 << 20   // JSON validation recurses; be generous rather than rely on defaults

        for _ in 0..<max(1, threads) {
            group.enter()
            let worker = Thread {
                var cache = processor.makeCache()
                while let chunk = queue.pop() {
                    if window.isCancelled { continue }
                    window.complete(processor.process(chunk, cache: &cache))
                }
                group.leave()
            }
            worker.stackSize = stackSize
            worker.name = "geocode-worker"
            worker.start()
        }

        let reader = ReaderJob(framer: framer, pending: pending, window: window, queue: queue,
                               chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        readerGroup.enter()
        let readerThread = Thread {
            reader.run()
            readerGroup.leave()
        }
        readerThread.stackSize = stackSize
        readerThread.name = "geocode-reader"
        readerThread.start()

        var failure: CLIError?
        var cancelled = false
        loop: while true {
            switch window.nextInOrder() {
            case .chunk(let chunk):
                do {
                    if try !deliver(chunk) {
                        cancelled = true
                        break loop
                    }
                } catch {
                    failure = error
                    cancelled = true
                    break loop
                }
            case .end:
                break loop
            case .failed(let error):
                failure = error
                break loop
            }
        }
        var readerFinished = true
        if cancelled {
            // Stop the reader at its next chunk and release the workers now. A reader reading a file
            // stops within a chunk; one blocked on a pipe is left to finish on its own (it only touches
            // the framer, the window and the closed queue).
            window.cancel()
            queue.close()
            readerFinished = readerGroup.wait(timeout: .now() + .milliseconds(500)) == .success
        } else {
            readerGroup.wait()
        }
        group.wait()
        if let failure { throw failure }
        return readerFinished
    }
}

/// The reader thread's work, in a class so the thread closure can share it safely.
private final class ReaderJob: @unchecked Sendable {
    // @unchecked: the framer is used by the reader thread only, from start to finish.
    let framer: any RecordFramer
    let pending: [RawChunk]
    let window: ChunkWindow
    let queue: WorkQueue<RawChunk>
    let chunkBytes: Int
    let chunkRecords: Int

    init(framer: any RecordFramer, pending: [RawChunk], window: ChunkWindow, queue: WorkQueue<RawChunk>,
         chunkBytes: Int, chunkRecords: Int) {
        self.framer = framer
        self.pending = pending
        self.window = window
        self.queue = queue
        self.chunkBytes = chunkBytes
        self.chunkRecords = chunkRecords
    }

    func run() {
        var sequence = 0
        var error: CLIError?
        for var chunk in pending {
            guard window.waitForSlot(sequence) else { break }
            chunk.sequence = sequence
            queue.push(chunk)
            sequence += 1
        }
        while window.waitForSlot(sequence) {
            do {
                guard var chunk = try framer.nextChunk(targetBytes: chunkBytes, maxRecords: chunkRecords) else { break }
                chunk.sequence = sequence
                queue.push(chunk)
                sequence += 1
            } catch let e {
                error = e
                break
            }
        }
        queue.close()
        window.finish(total: sequence, error: error)
    }
}
