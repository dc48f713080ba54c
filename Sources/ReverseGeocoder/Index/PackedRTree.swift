/// A static, packed Hilbert R-tree over axis-aligned boxes (the flatbush layout): items are sorted along
/// a Hilbert curve by box centre, packed `nodeSize` to a node, bottom level first, and stored in flat
/// arrays. No node objects, no pointers: a tree over n boxes is about 5·n·(1 + 1/nodeSize) numbers.
///
/// Use: `var b = PackedRTree.Builder(); b.add(...)` for each box, `let tree = b.finish()`, then
/// `tree.search(x:y:)` for the items whose box contains a point.
struct PackedRTree: Sendable {
    let count: Int
    let nodeSize: Int
    /// minX, minY, maxX, maxY for every leaf (item) then every node, level by level.
    private let boxes: [Double]
    /// For a leaf slot: the item's index as added. For a node slot: the slot where its children start.
    private let indices: [Int32]
    /// One past the last slot of each level (leaves first, root last).
    private let levelBounds: [Int]

    struct Builder {
        var nodeSize = 16
        private var items: [Double] = []

        init(nodeSize: Int = 16) {
            self.nodeSize = max(2, nodeSize)
        }

        /// Adds a box; items are numbered 0, 1, 2... in the order added.
        mutating func add(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            items += [minX, minY, maxX, maxY]
        }

        func finish() -> PackedRTree {
            PackedRTree(items: items, nodeSize: nodeSize)
        }
    }

    private init(items: [Double], nodeSize: Int) {
        let n = items.count / 4
        count = n
        self.nodeSize = nodeSize
        // Level sizes, bottom up, to know the total number of slots.
        var bounds: [Int] = []
        var levelCount = n
        var total = n
        bounds.append(total)
        repeat {
            levelCount = (levelCount + nodeSize - 1) / nodeSize
            total += levelCount
            bounds.append(total)
        } while levelCount > 1
        if n == 0 { bounds = [0] ; total = 0 }
        levelBounds = bounds

        var boxes = [Double](repeating: 0, count: total * 4)
        var indices = [Int32](repeating: 0, count: total)
        guard n > 0 else {
            self.boxes = boxes
            self.indices = indices
            return
        }

        // Sort items by the Hilbert value of their centre on a 65536 × 65536 grid over the extent.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for i in 0..<n {
            minX = min(minX, items[4 * i]); minY = min(minY, items[4 * i + 1])
            maxX = max(maxX, items[4 * i + 2]); maxY = max(maxY, items[4 * i + 3])
        }
        let width = maxX - minX, height = maxY - minY
        let hilbertMax = Double((1 << 16) - 1)
        var keyed = [(UInt32, Int32)]()
        keyed.reserveCapacity(n)
        for i in 0..<n {
            let cx = (items[4 * i] + items[4 * i + 2]) / 2, cy = (items[4 * i + 1] + items[4 * i + 3]) / 2
            let hx = width > 0 ? UInt32(hilbertMax * (cx - minX) / width) : 0
            let hy = height > 0 ? UInt32(hilbertMax * (cy - minY) / height) : 0
            keyed.append((PackedRTree.hilbert(hx, hy), Int32(i)))
        }
        // Stable order: ties broken by insertion index, so the tree is the same on every build.
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        for (slot, (_, item)) in keyed.enumerated() {
            for k in 0..<4 { boxes[4 * slot + k] = items[4 * Int(item) + k] }
            indices[slot] = item
        }

        // Build each node level from the one below: a node's box encloses its up to nodeSize children.
        var pos = 0
        for level in 0..<(bounds.count - 1) {
            let end = bounds[level]
            var out = end
            while pos < end {
                let first = pos
                var nMinX = Double.infinity, nMinY = Double.infinity
                var nMaxX = -Double.infinity, nMaxY = -Double.infinity
                var j = 0
                while j < nodeSize && pos < end {
                    nMinX = min(nMinX, boxes[4 * pos]); nMinY = min(nMinY, boxes[4 * pos + 1])
                    nMaxX = max(nMaxX, boxes[4 * pos + 2]); nMaxY = max(nMaxY, boxes[4 * pos + 3])
                    pos += 1
                    j += 1
                }
                boxes[4 * out] = nMinX; boxes[4 * out + 1] = nMinY
                boxes[4 * out + 2] = nMaxX; boxes[4 * out + 3] = nMaxY
                indices[out] = Int32(first)
                out += 1
            }
        }
        self.boxes = boxes
        self.indices = indices
    }

    /// Appends to `result` every item whose box contains (x, y), borders included. Order is tree order;
    /// callers that need a stable order sort the (short) result.
    func search(x: Double, y: Double, into result: inout [Int32]) {
        search(minX: x, minY: y, maxX: x, maxY: y, into: &result)
    }

    /// Appends to `result` every item whose box intersects the query box, borders included.
    func search(minX: Double, minY: Double, maxX: Double, maxY: Double, into result: inout [Int32]) {
        guard count > 0 else { return }
        boxes.withUnsafeBufferPointer { b in
            indices.withUnsafeBufferPointer { idx in
                // Explicit stack of (node slot, level); depth ≤ levels × nodeSize entries.
                var stack: [(Int, Int)] = [(levelBounds[levelBounds.count - 1] - 1, levelBounds.count - 1)]
                while let (node, level) = stack.popLast() {
                    let childStart = level == 0 ? node : Int(idx[node])
                    let childEnd = level == 0 ? node + 1 : min(childStart + nodeSize, levelBounds[level - 1])
                    for pos in childStart..<childEnd {
                        if b[4 * pos] > maxX || b[4 * pos + 1] > maxY || b[4 * pos + 2] < minX || b[4 * pos + 3] < minY {
                            continue
                        }
                        if level <= 1 {
                            result.append(idx[pos])
                        } else {
                            stack.append((pos, level - 1))
                        }
                    }
                }
            }
        }
    }

    /// Position of (x, y) along a Hilbert curve of order 16 (the classic bit-twiddling formulation of
    /// the curve: compute the curve's state per bit pair in parallel).
    static func hilbert(_ xIn: UInt32, _ yIn: UInt32) -> UInt32 {
        var a = xIn ^ yIn
        var b = 0xFFFF ^ a
        var c = 0xFFFF ^ (xIn | yIn)
        var d = xIn & (yIn ^ 0xFFFF)
        var A = a | (b >> 1), B = (a >> 1) ^ a
        var C = ((c >> 1) ^ (b & (d >> 1))) ^ c
        var D = ((a & (c >> 1)) ^ (d >> 1)) ^ d
        a = A; b = B; c = C; d = D
        A = ((a & (a >> 2)) ^ (b & (b >> 2))); B = ((a & (b >> 2)) ^ (b & ((a ^ b) >> 2)))
        C ^= ((a & (c >> 2)) ^ (b & (d >> 2))); D ^= ((b & (c >> 2)) ^ ((a ^ b) & (d >> 2)))
        a = A; b = B; c = C; d = D
        A = ((a & (a >> 4)) ^ (b & (b >> 4))); B = ((a & (b >> 4)) ^ (b & ((a ^ b) >> 4)))
        C ^= ((a & (c >> 4)) ^ (b & (d >> 4))); D ^= ((b & (c >> 4)) ^ ((a ^ b) & (d >> 4)))
        a = A; b = B; c = C; d = D
        C ^= ((a & (c >> 8)) ^ (b & (d >> 8))); D ^= ((b & (c >> 8)) ^ ((a ^ b) & (d >> 8)))
        a = C ^ (C >> 1); b = D ^ (D >> 1)
        var i0 = xIn ^ yIn, i1 = b | (0xFFFF ^ (i0 | a))
        i0 = (i0 | (i0 << 8)) & 0x00FF00FF; i0 = (i0 | (i0 << 4)) & 0x0F0F0F0F
        i0 = (i0 | (i0 << 2)) & 0x33333333; i0 = (i0 | (i0 << 1)) & 0x55555555
        i1 = (i1 | (i1 << 8)) & 0x00FF00FF; i1 = (i1 | (i1 << 4)) & 0x0F0F0F0F
        i1 = (i1 | (i1 << 2)) & 0x33333333; i1 = (i1 | (i1 << 1)) & 0x55555555
        return (i1 << 1) | i0
    }
}
