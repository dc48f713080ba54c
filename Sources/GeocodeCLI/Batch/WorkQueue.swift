import Foundation

/// A blocking FIFO between the reader and the workers. It needs no capacity of its own: ``ChunkWindow``
/// already bounds how many chunks exist at once.
final class WorkQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false

    /// Adds an item; ignored once the queue is closed (a cancelled run drops the reader's last chunk).
    func push(_ item: Element) {
        condition.lock()
        if closed {
            condition.unlock()
            return
        }
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    /// The next item; nil once the queue is closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// No more pushes; wakes every waiting worker.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
