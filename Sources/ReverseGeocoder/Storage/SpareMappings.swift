/// Freed mappings of ``LargeAllocation`` kept for reuse, by address and length (whole huge pages), up
/// to `limit` bytes in all. A request takes the smallest spare that holds it, cut to its length: the
/// rest stays a spare. Spares that touch are one spare: the kernel maps a build's buffers one below the
/// other, so what one phase frees together holds the next phase's largest buffer (the bundled
/// districts' 40 MB of records, larger than any one buffer freed before them). A value, so the rules are
/// tested without touching memory; ``LargeAllocation`` keeps one behind a mutex.
struct SpareMappings {
    struct Spare: Equatable {
        var address: Int
        var length: Int
    }

    let limit: Int
    private(set) var list: [Spare] = []
    private(set) var bytes = 0

    init(limit: Int) { self.limit = limit }

    /// Keeps a freed mapping; false (the caller unmaps it) when that would pass the limit.
    mutating func keep(address: Int, length: Int) -> Bool {
        guard bytes + length <= limit else { return false }
        var merged = Spare(address: address, length: length)
        if let below = list.firstIndex(where: { $0.address + $0.length == address }) {
            merged = Spare(address: list[below].address, length: list[below].length + length)
            list.remove(at: below)
        }
        if let above = list.firstIndex(where: { $0.address == merged.address + merged.length }) {
            merged.length += list[above].length
            list.remove(at: above)
        }
        list.append(merged)
        bytes += length
        return true
    }

    /// The address of `length` bytes of spare memory, or nil when no spare holds that many.
    mutating func take(length: Int) -> Int? {
        var best: Int?
        for (i, spare) in list.enumerated() where spare.length >= length {
            if best.map({ spare.length < list[$0].length }) ?? true { best = i }
        }
        guard let i = best else { return nil }
        let spare = list[i]
        if spare.length == length {
            list.remove(at: i)
        } else {
            list[i] = Spare(address: spare.address + length, length: spare.length - length)
        }
        bytes -= length
        return spare.address
    }

    /// Every spare, for the caller to unmap; none is kept after.
    mutating func drain() -> [Spare] {
        defer { list = []; bytes = 0 }
        return list
    }
}
