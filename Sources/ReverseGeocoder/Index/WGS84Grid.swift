import CHotPath

/// Answers WGS-84 queries against a GCJ-02 dataset without converting them, where that is safe.
///
/// A GPS fix in China has to be shifted into GCJ-02 before it can be looked up in Amap-derived
/// boundaries, and the shift (the published formula, eleven sines) costs twice what the lookup does.
/// But for most of the country it does not matter exactly where in its neighbourhood a point lands: this
/// grid, in WGS-84 coordinates, stores for each cell the dataset's answer when every point of the cell
/// gets the same one. A cell's image in GCJ-02 lies inside the cell moved by the offset's bounds over
/// the cell (``OffsetBounds``, rigorous), so if every cell of every layer's quadtree overlapping that
/// image agrees (``CellIndex/boxAnswer(x0:y0:x1:y1:)``), that is the answer for the whole cell.
/// Other cells say "unknown" and the query converts as before. Same answers, by construction; the
/// tests and the benchmark's exactness check compare them with the converting path.
final class WGS84Grid: Sendable {

    let originX: Double, originY: Double, cell: Double
    let columns: Int, rows: Int
    /// Each cell's ``WGS84GridEntry``, as its raw bits (the index cache maps them as they are).
    nonisolated(unsafe) let entries: UnsafeBufferPointer<UInt32>
    /// One bit per entry, set where it is `none`: most of the grid (sea, neighbouring countries), and the
    /// entries are megabytes, a likely cache miss per query, where these bits stay in the L2 cache.
    nonisolated(unsafe) private let noneBits: UnsafeMutableBufferPointer<UInt64>
    private let owner: (any AnyObject & Sendable)?

    /// `readEntries`: false for entries not checked yet (``DatasetFirstUse`` checks each before a lookup
    /// reads it); the `none` bits are then left clear, and every lookup reads its entry.
    init(originX: Double, originY: Double, cell: Double, columns: Int, rows: Int, entries: UnsafeBufferPointer<UInt32>,
         owner: (any AnyObject & Sendable)?, readEntries: Bool = true) {
        self.originX = originX; self.originY = originY; self.cell = cell
        self.columns = columns; self.rows = rows
        self.entries = entries
        self.owner = owner
        noneBits = .allocate(capacity: max(1, (entries.count + 63) / 64))
        noneBits.initialize(repeating: 0)
        guard readEntries else { return }
        for (i, e) in entries.enumerated() where WGS84GridEntry(rawValue: e) == .none { noneBits[i >> 6] |= 1 << UInt64(i & 63) }
    }

    deinit {
        noneBits.deallocate()
        if owner == nil { UnsafeMutableRawPointer(mutating: entries.baseAddress)?.deallocate() }
    }

    /// The entry for a WGS-84 point (`unknown` outside the grid). Out of line: inlined into the query, the
    /// compiler computed it (two divisions) for every query, whatever the datum.
    @inline(never)
    func lookup(x: Double, y: Double) -> WGS84GridEntry {
        let fx = (x - originX) / cell, fy = (y - originY) / cell
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return .unknown }
        // Bounded by the guard: no need of Int()'s range check (see CHotPath), as the mask and cells do.
        let i = hot_path_truncate(fy) &* columns &+ hot_path_truncate(fx)
        if noneBits[i &>> 6] & (1 &<< UInt64(i & 63)) != 0 { return .none }
        return WGS84GridEntry(rawValue: entries[i])
    }

    /// Builds the grid over `box` (WGS-84) for a GCJ-02 dataset's layers (finest first, each with cells,
    /// none wrapped across the antimeridian); nil when there is nothing to build.
    static func build(layers: [LayerIndex], box: Box, cell: Double) -> WGS84Grid? {
        guard !layers.isEmpty, layers.count <= WGS84GridEntry.maxLayers, layers.allSatisfy({ $0.cells != nil && !$0.hasWrappedParts }) else { return nil }
        // Only where the GCJ-02 formula applies to every point of a cell (inside its rectangle).
        let x0 = max(box.minX, 72.004 + 1e-9), y0 = max(box.minY, 0.8293 + 1e-9)
        let x1 = min(box.maxX, 137.8347 - 1e-9), y1 = min(box.maxY, 55.8271 - 1e-9)
        guard x1 > x0, y1 > y0, cell > 0 else { return nil }
        let columns = Int(((x1 - x0) / cell).rounded(.down)), rows = Int(((y1 - y0) / cell).rounded(.down))
        guard columns > 0, rows > 0, columns * rows < 1 << 26 else { return nil }
        let entries = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: columns * rows)
        entries.initialize(repeating: WGS84GridEntry.unknown.rawValue)
        // Cell (i, j) holds the points with floor((x - x0) / cell) == i, which may reach a hair past its
        // nominal edges by rounding: bound a slightly larger box.
        let slack = 1e-9
        /// The longitudes of columns i0 ..< i1, and the latitudes of rows j0 ..< j1, with the slack.
        @inline(__always) func longitudes(_ i0: Int, _ i1: Int) -> ClosedRange<Double> {
            (x0 + Double(i0) * cell - slack)...(x0 + Double(i1) * cell + slack)
        }
        @inline(__always) func latitudes(_ j0: Int, _ j1: Int) -> ClosedRange<Double> {
            (y0 + Double(j0) * cell - slack)...(y0 + Double(j1) * cell + slack)
        }
        /// The image in GCJ-02 of the box (`lon`, `lat`) moved by the offset's bounds `off` over it, grown for
        /// the rounding of adding the offset.
        @inline(__always) func image(_ lon: ClosedRange<Double>, _ lat: ClosedRange<Double>,
                                     _ off: (lat: OffsetBounds.Interval, lon: OffsetBounds.Interval)) -> Box {
            Box(minX: lon.lowerBound + off.lon.lo - slack, minY: lat.lowerBound + off.lat.lo - slack,
                maxX: lon.upperBound + off.lon.hi + slack, maxY: lat.upperBound + off.lat.hi + slack)
        }
        let columnTerms = (0..<columns).map { i in OffsetBounds.terms(longitudes: longitudes(i, i + 1)) }
        // The layers' cell indexes unretained (`layers` holds them): a retain and a release per box and
        // layer were 0.1 G instructions of a bundled build.
        let indexes = layers.map { Unmanaged.passUnretained($0.cells!) }
        /// The entry for `box` from layer `from` on: the first layer not empty over it gives its unit, or
        /// `unknown` when it is mixed there (`mixedAt`: that layer); `none` when every layer is empty.
        @inline(__always) func entry(_ box: Box, from: Int) -> (entry: WGS84GridEntry, mixedAt: Int?) {
            for l in from..<indexes.count {
                switch indexes[l]._withUnsafeGuaranteedRef({ $0.boxAnswer(x0: box.minX, y0: box.minY, x1: box.maxX, y1: box.maxY) }) {
                case .empty: continue
                case .unit(let u): return (WGS84GridEntry(layer: l, unit: u) ?? .unknown, nil)
                case .mixed: return (.unknown, l)
                }
            }
            return (.none, nil)
        }
        // Cells in blocks of `block` × `block`: the box answer of a box holding every cell's image is asked
        // first. It is the fold of every tree cell that box overlaps, a superset of those each image
        // overlaps (the spans are monotone in the box), so "empty" or "unit u" for it is that answer for
        // every image, and the block is done in one question per layer; only a mixed block asks cell by
        // cell, from the layer where it was mixed (every earlier layer was empty for all of its cells). Most
        // blocks lie inside one unit or outside all: the same entries, for about a tenth of the questions.
        // The box is the block moved by the offset's bounds over the whole block, not the union of the
        // cells' images: those are bounds too (rigorous over any range), so it holds every point's image,
        // and a block needs its cells' own offsets (eleven sines each, a third of the grid's build) only
        // when it is mixed. A looser box changes no entry: it can only send a block cell by cell, where
        // each cell's image, inside the cells' union, gets the answer the union had.
        let block = 4
        let blockColumnTerms = stride(from: 0, to: columns, by: block).map { bi in
            OffsetBounds.terms(longitudes: longitudes(bi, min(columns, bi + block)))
        }
        var rowTerms = [OffsetBounds.LatitudeTerms]()
        rowTerms.reserveCapacity(block)
        for bj in stride(from: 0, to: rows, by: block) {
            let jEnd = min(rows, bj + block)
            let blockLat = latitudes(bj, jEnd)
            let blockRowTerms = OffsetBounds.terms(latitudes: blockLat)
            rowTerms.removeAll(keepingCapacity: true)
            for bi in stride(from: 0, to: columns, by: block) {
                let iEnd = min(columns, bi + block)
                let blockLon = longitudes(bi, iEnd)
                let common = entry(image(blockLon, blockLat, OffsetBounds.offset(blockColumnTerms[bi / block], blockRowTerms)), from: 0)
                if common.mixedAt != nil && rowTerms.isEmpty {
                    for j in bj..<jEnd { rowTerms.append(OffsetBounds.terms(latitudes: latitudes(j, j + 1))) }
                }
                for j in bj..<jEnd {
                    for i in bi..<iEnd {
                        var cellEntry = common.entry
                        if let first = common.mixedAt {
                            let off = OffsetBounds.offset(columnTerms[i], rowTerms[j - bj])
                            cellEntry = entry(image(longitudes(i, i + 1), latitudes(j, j + 1), off), from: first).entry
                        }
                        entries[j * columns + i] = cellEntry.rawValue
                    }
                }
            }
        }
        return WGS84Grid(originX: x0, originY: y0, cell: cell, columns: columns, rows: rows,
                         entries: UnsafeBufferPointer(entries), owner: nil)
    }
}
