/// A static, packed Hilbert R-tree over axis-aligned boxes (the flatbush layout): items are sorted along
/// a Hilbert curve by box centre, packed `nodeSize` to a node, bottom level first, and stored in flat
/// arrays. No node objects, no pointers: a tree over n boxes is about 5·n·(1 + 1/nodeSize) numbers.
///
/// Use: `var b = PackedRTree.Builder(); b.add(box)` for each box, `let tree = b.finish()`, then
/// `tree.search(x:y:)` for the items whose box contains a point.
struct PackedRTree: Sendable {
    let count: Int
    let nodeSize: Int
    /// The box of every leaf (item) then every node, level by level. (Internal, not private: the
    /// nearest-unit search walks the same arrays, see PackedRTree+Nearest.swift.)
    let boxes: [Box]
    /// For a leaf slot: the item's index as added. For a node slot: the slot where its children start.
    let indices: [Int32]
    /// One past the last slot of each level (leaves first, root last).
    let levelBounds: [Int]

    struct Builder {
        var nodeSize = 16
        private var items: [Box] = []

        init(nodeSize: Int = 16) {
            self.nodeSize = max(2, nodeSize)
        }

        /// Adds a box; items are numbered 0, 1, 2... in the order added.
        mutating func add(_ box: Box) {
            items.append(box)
        }

        func finish() -> PackedRTree {
            PackedRTree(items: items, nodeSize: nodeSize)
        }
    }

    private init(items: [Box], nodeSize: Int) {
        let n = items.count
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

        var boxes = [Box](repeating: Box(minX: 0, minY: 0, maxX: 0, maxY: 0), count: total)
        var indices = [Int32](repeating: 0, count: total)
        guard n > 0 else {
            self.boxes = boxes
            self.indices = indices
            return
        }

        // Sort items by the Hilbert value of their centre on a 65536 × 65536 grid over the extent.
        let extent = items.reduce(Box.empty) { $0.union($1) }
        let width = extent.maxX - extent.minX, height = extent.maxY - extent.minY
        let hilbertMax = Double((1 << 16) - 1)
        var keyed = [(UInt32, Int32)]()
        keyed.reserveCapacity(n)
        for i in 0..<n {
            let cx = (items[i].minX + items[i].maxX) / 2, cy = (items[i].minY + items[i].maxY) / 2
            let hx = width > 0 ? UInt32(hilbertMax * (cx - extent.minX) / width) : 0
            let hy = height > 0 ? UInt32(hilbertMax * (cy - extent.minY) / height) : 0
            keyed.append((PackedRTree.hilbert(hx, hy), Int32(i)))
        }
        // Stable order: ties broken by insertion index, so the tree is the same on every build.
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        for (slot, (_, item)) in keyed.enumerated() {
            boxes[slot] = items[Int(item)]
            indices[slot] = item
        }

        // Build each node level from the one below: a node's box encloses its up to nodeSize children.
        var pos = 0
        for level in 0..<(bounds.count - 1) {
            let end = bounds[level]
            var out = end
            while pos < end {
                let first = pos
                var node = Box.empty
                var j = 0
                while j < nodeSize && pos < end {
                    node = node.union(boxes[pos])
                    pos += 1
                    j += 1
                }
                boxes[out] = node
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
        search(Box(minX: x, minY: y, maxX: x, maxY: y), into: &result)
    }

    /// Appends to `result` every item whose box intersects the query box, borders included.
    func search(_ query: Box, into result: inout [Int32]) {
        guard count > 0 else { return }
        boxes.withUnsafeBufferPointer { b in
            indices.withUnsafeBufferPointer { idx in
                // Explicit stack of (node slot, level); depth ≤ levels × nodeSize entries.
                var stack: [(Int, Int)] = [(levelBounds[levelBounds.count - 1] - 1, levelBounds.count - 1)]
                while let (node, level) = stack.popLast() {
                    let childStart = level == 0 ? node : Int(idx[node])
                    let childEnd = level == 0 ? node + 1 : min(childStart + nodeSize, levelBounds[level - 1])
                    for pos in childStart..<childEnd {
                        if b[pos].isDisjoint(from: query) { continue }
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
