import Synchronization

/// Proves the bytes of an index cache file are the ones its writer wrote, block by block, before they
/// are used.
///
/// Every section (array) of the file is cut into blocks of ``blockSize`` bytes, and the file's checksum
/// table holds one ``ContentHash`` per block (see ``IndexCache``). A block is checked the first time a
/// reader asks for a range that covers it, and remembered as checked, so a start that answers one point
/// reads (and maps into memory) only the few blocks that point needs, while a flipped byte anywhere is
/// still found before the data around it is used: ContentHash changes whenever the bytes of one 8-byte
/// word change (each step is a bijection of the lane's state), so a damage confined to one word is
/// always detected, and any other with the chance of a 64-bit collision.
///
/// ``verifyAll(_:)`` checks whole sections at once, side by side, for loads that will answer many points.
final class CacheVerifier: Sendable {
    /// 16 KB: small enough that one point's path (a few tree nodes, one border cell, a dozen edges) costs
    /// microseconds, large enough that the table is 0.05 % of the file.
    static let blockSize = 16 * 1024

    /// A section as the verifier sees it: where its bytes are, and where its block checksums start.
    struct Region: Sendable {
        var name: String
        nonisolated(unsafe) var base: UnsafeRawPointer?
        var bytes: Int
        var firstBlock: Int
        var blocks: Int { (bytes + CacheVerifier.blockSize - 1) / CacheVerifier.blockSize }
    }

    nonisolated(unsafe) private let table: UnsafeBufferPointer<UInt64>
    /// One bit per block of the file, set once the block matched its checksum.
    private let checked: Mutex<[UInt64]>
    /// Keeps the mapping alive.
    private let owner: any AnyObject & Sendable

    init(table: UnsafeBufferPointer<UInt64>, owner: any AnyObject & Sendable) {
        self.table = table
        self.owner = owner
        checked = Mutex([UInt64](repeating: 0, count: (table.count + 63) / 64))
    }

    /// The checksums of a section's bytes, one per block: what the writer stores.
    static func checksums(of bytes: UnsafeRawBufferPointer) -> [UInt64] {
        stride(from: 0, to: bytes.count, by: blockSize).map { start in
            ContentHash.of(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + blockSize)]))
        }
    }

    /// Whether the region's blocks lie inside the table.
    func covers(_ r: Region) -> Bool {
        r.firstBlock >= 0 && r.firstBlock <= table.count && r.blocks <= table.count - r.firstBlock
    }

    private func matches(_ r: Region, block b: Int) -> Bool {
        let start = b * Self.blockSize, end = min(r.bytes, start + Self.blockSize)
        return ContentHash.of(bytes: UnsafeRawBufferPointer(start: r.base! + start, count: end - start)) == table[r.firstBlock + b]
    }

    /// Checks the blocks holding bytes `range` of the region (once each); throws on a mismatch.
    func verify(_ r: Region, bytes range: Range<Int>) throws(IndexCache.CacheDamage) {
        guard !range.isEmpty else { return }
        guard range.lowerBound >= 0, range.upperBound <= r.bytes else {
            throw IndexCache.CacheDamage(reason: "\(r.name): index out of bounds")
        }
        let first = range.lowerBound / Self.blockSize, last = (range.upperBound - 1) / Self.blockSize
        let bad: Int? = checked.withLock { bits in
            for b in first...last {
                let g = r.firstBlock + b
                if bits.has(block: g) { continue }
                guard matches(r, block: b) else { return b }
                bits.mark(block: g)
            }
            return nil
        }
        if let bad { throw IndexCache.CacheDamage(reason: "checksum mismatch in \(r.name) (block \(bad))") }
    }

    /// How many of the region's blocks have been checked so far (for the tests of what a query reads).
    func checkedBlocks(_ r: Region) -> Int {
        checked.withLock { bits in
            (r.firstBlock..<(r.firstBlock + r.blocks)).reduce(0) { $0 + (bits.has(block: $1) ? 1 : 0) }
        }
    }

    /// Checks elements `range` of a region of `T`s.
    @inline(__always)
    func verify<T>(_ r: Region, _ type: T.Type, _ range: Range<Int>) throws(IndexCache.CacheDamage) {
        let s = MemoryLayout<T>.stride
        let (lo, o1) = range.lowerBound.multipliedReportingOverflow(by: s)
        let (hi, o2) = range.upperBound.multipliedReportingOverflow(by: s)
        guard !o1, !o2 else { throw IndexCache.CacheDamage(reason: "\(r.name): index out of bounds") }
        try verify(r, bytes: lo..<hi)
    }

    /// Checks every block of every region, the regions side by side; throws the first mismatch found
    /// (in region order).
    func verifyAll(_ regions: [Region]) throws(IndexCache.CacheDamage) {
        // Blocks already checked (by a query, or an earlier call) are not hashed again: a caller that asks
        // for a section once per item it reads (a layer's placemark names, once per unit a region file's
        // areas list) hashed the whole section once per item, 1 ms a unit for the localities' names.
        let done = checked.withLock { $0 }
        // Work in pieces of about 1 MB, so two cores share a file of a few large sections evenly.
        var work: [(region: Int, blocks: Range<Int>)] = []
        for (i, r) in regions.enumerated() {
            for start in stride(from: 0, to: r.blocks, by: 64) {
                let blocks = start..<min(r.blocks, start + 64)
                if !blocks.allSatisfy({ done.has(block: r.firstBlock + $0) }) { work.append((i, blocks)) }
            }
        }
        guard !work.isEmpty else { return }
        let failures = Mutex<[Int: (String, Int)]>([:])
        let pieces = work
        let piece: @Sendable (Int) -> Void = { [self] k in
            let (i, blocks) = pieces[k]
            for b in blocks where !matches(regions[i], block: b) {
                failures.withLock { $0[k] = (regions[i].name, b) }
                return
            }
        }
        // A couple of pieces (a few small sections, as the coast fallback's first search checks) are
        // checked here: starting worker threads for them cost a one-point run more memory
        // (their stacks and malloc arenas) and time than the checksums.
        if pieces.count <= 2 {
            for k in pieces.indices { piece(k) }
        } else {
            Workers.perform(iterations: pieces.count, piece)
        }
        if let first = failures.withLock({ $0.min { $0.key < $1.key } }) {
            throw IndexCache.CacheDamage(reason: "checksum mismatch in \(first.value.0) (block \(first.value.1))")
        }
        checked.withLock { bits in
            for r in regions where r.blocks > 0 {
                for g in r.firstBlock..<(r.firstBlock + r.blocks) { bits.mark(block: g) }
            }
        }
    }
}

/// The verifier's table of checked blocks: one bit per block of the file, block g in word g / 64.
private extension Array where Element == UInt64 {
    func has(block g: Int) -> Bool { self[g >> 6] & (1 << UInt64(g & 63)) != 0 }
    mutating func mark(block g: Int) { self[g >> 6] |= 1 << UInt64(g & 63) }
}
