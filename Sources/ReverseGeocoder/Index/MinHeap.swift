/// A binary min-heap of search-frontier entries keyed by a lower bound, for the best-first nearest-unit
/// search over the packed R-tree (nodes and items come off it nearest first).
struct MinHeap {
    /// A tree slot at a level (0: an item) and the least distance anything under it can have.
    struct Entry {
        var bound: Double
        var slot: Int
        var level: Int
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Empties the heap, keeping its storage (a heap reused query after query allocates once).
    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    mutating func push(_ e: Entry) {
        entries.append(e)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if entries[parent].bound <= entries[i].bound { break }
            entries.swapAt(parent, i)
            i = parent
        }
    }

    /// The entry with the smallest bound, removed; nil when empty.
    mutating func pop() -> Entry? {
        guard let last = entries.popLast() else { return nil }
        guard !entries.isEmpty else { return last }
        let top = entries[0]
        entries[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < entries.count && entries[l].bound < entries[m].bound { m = l }
            if r < entries.count && entries[r].bound < entries[m].bound { m = r }
            if m == i { break }
            entries.swapAt(i, m)
            i = m
        }
        return top
    }
}
