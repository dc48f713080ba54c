import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The index cache: one file per dataset holding everything a load produces (resolved placemarks,
/// polygons, cell quadtree, crossing lists), so a start maps it instead of re-reading the shapefiles,
/// repairing polygons and rebuilding the cells.
///
/// - **Where**: `directory/<dataset name>-<key>.geoidx`, the key a hash of the manifest's location, the
///   cell size and the format version (``ReverseGeocoder/Options/cacheDirectory``; the CLI uses
///   `$GEOCODE_CACHE_DIR`, else `$XDG_CACHE_HOME/geocode`, else `~/.cache/geocode`).
/// - **Fresh or stale**: the file records the manifest's content hash and each source file's (`.shp`,
///   `.shx`, `.dbf`, `.cpg`, `.prj`) size, modification time and content hash. A source whose size or
///   time differs is hashed again; any real difference (or a format change) makes the cache stale, and
///   the load rebuilds it from the shapefiles and replaces it.
/// - **Safety**: written to a temporary file and renamed (see ``CacheTemporaryFile``, which also removes
///   the temporary files of killed writers), so readers see the old file or the new, never
///   a torn one. On load the body's checksum is verified, every array is checked against the file's size
///   and its indices against the arrays they index, so a truncated or damaged file is rebuilt, never
///   trusted.
/// - **Memory**: the file is read whole into huge-page memory (see ``FileInMemory``): about 20 ms per
///   100 MB, and the arrays are used in place, never decoded.
struct IndexCache {
    let directory: URL
    /// Load into 2 MB pages (see ``FileInMemory``).
    var hugePages = false

    /// Bumped whenever what is stored, or what the engine computes from it, changes.
    /// 6: placemarks laid out by the field table (Placemark v2: sub-administrative area, time zone,
    /// water, provenance and languages per level).
    /// 7: overlay datasets (layers without a level) and each unit's place (nearest-place layers).
    static let formatVersion: UInt32 = 7
    private static let magic: [UInt8] = Array("GEOIDX\0\0".utf8)
    private static let headerSize = 64

    /// One source file's identity.
    struct SourceStamp: Codable, Equatable {
        var path: String
        /// -1 when the file does not exist (a `.cpg` added later must invalidate the cache).
        var size: Int64
        var mtimeNanos: Int64
        var hash: UInt64
    }

    /// Where an array lies in the file (byte offset, element count).
    struct Section: Codable {
        var offset: Int
        var count: Int
    }

    struct CellsMeta: Codable {
        var originX: Double, originY: Double, size: Double
        var depth: Int, topLevels: Int, unitCells: Int, emptyCells: Int, mixedCells: Int
        var nodes: Section, mixedStart: Section, top: Section, borders: Section
    }

    struct LayerMeta: Codable {
        /// nil in an overlay dataset.
        var level: AdminLevel?
        var file: String
        var units: Int
        /// Each unit's place as latitude, longitude (nearest-place layers only).
        var places: Section?
        var placemarkSlots: Section
        var text: Section
        var partUnit: Section
        var vertices: Section, ringStart: Section, partRings: Section, envelopes: Section
        var cells: CellsMeta?
    }

    struct GridMeta: Codable {
        var originX: Double, originY: Double, cell: Double
        var columns: Int, rows: Int
        var entries: Section
    }

    struct MaskMeta: Codable {
        var originX: Double, originY: Double, scaleX: Double, scaleY: Double
        var words: Section
    }

    struct Meta: Codable {
        var format: UInt32
        var wgsGrid: GridMeta?
        var emptyMask: MaskMeta?
        var dataset: String
        var manifestHash: UInt64
        var cellSize: Double?
        var sources: [SourceStamp]
        var info: DatasetInfo
        var layers: [LayerMeta]
    }

    /// Why a cache was not used (for `geocode info` and the tests); nil when it was.
    enum Miss: Error, Equatable, CustomStringConvertible {
        case absent
        case stale(String)
        case damaged(String)

        var description: String {
            switch self {
            case .absent: return "no cache file yet"
            case .stale(let why): return "stale: \(why)"
            case .damaged(let why): return "damaged: \(why)"
            }
        }
    }

    // MARK: - Naming and fingerprints

    /// The cache file for a dataset.
    func file(for manifest: DatasetManifest, directory manifestDirectory: URL?, cellSize: Double?) -> URL {
        let location = manifestDirectory?.standardizedFileURL.path ?? manifest.layers.map(\.file).joined(separator: "\n")
        let key = "\(location)\n\(cellSize.map { "\($0)" } ?? "off")\n\(Self.formatVersion)"
        let hash = ContentHash.of(data: Data(key.utf8))
        return directory.appendingPathComponent("\(Self.safeName(manifest))-\(String(hash, radix: 16)).geoidx")
    }

    private static func safeName(_ manifest: DatasetManifest) -> String {
        String(manifest.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(40))
    }

    /// Deletes this dataset's cache files written by another format version: their names differ from the
    /// current one's (the key includes the version), so nothing else would ever replace them, and an
    /// upgrade would leave tens of megabytes behind for good. Files of this version are left alone, even
    /// under other keys: another data folder or cell size may still use them.
    func removeOtherFormats(of manifest: DatasetManifest) {
        let prefix = Self.safeName(manifest) + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".geoidx") {
            let path = directory.appendingPathComponent(name).path
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            let head = (try? handle.read(upToCount: 12)) ?? Data()
            try? handle.close()
            // Not ours (no magic): keep.
            guard let format = head.withUnsafeBytes(Self.format(ofHeader:)), format != Self.formatVersion else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    static func manifestHash(_ manifest: DatasetManifest) -> UInt64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ContentHash.of(data: (try? encoder.encode(manifest)) ?? Data())
    }

    /// The files a dataset is built from (each layer's shapefile and its sidecars, and its names table).
    static func sourcePaths(_ manifest: DatasetManifest, directory: URL?) -> [String] {
        var paths: [String] = []
        for layer in manifest.layers {
            let shp = DatasetLoader.resolve(layer.file, in: directory)
            let base = shp.deletingPathExtension()
            for ext in ["shp", "shx", "dbf", "cpg", "prj"] { paths.append(base.appendingPathExtension(ext).path) }
        }
        // The names table is resolved into the cached placemarks: a changed table makes the cache stale.
        if let names = manifest.names { paths.append(DatasetLoader.resolve(names, in: directory).path) }
        return paths
    }

    static func fileStamp(_ path: String) -> (size: Int64, mtimeNanos: Int64) {
        var st = stat()
        guard stat(path, &st) == 0 else { return (-1, 0) }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    static func stamps(_ paths: [String]) throws -> [SourceStamp] {
        try paths.map { path in
            let (size, mtime) = fileStamp(path)
            return SourceStamp(path: path, size: size, mtimeNanos: mtime, hash: size < 0 ? 0 : try ContentHash.of(file: path))
        }
    }

    // MARK: - Reading

    /// The dataset from its cache file, or why not.
    func load(manifest: DatasetManifest, directory manifestDirectory: URL?, cellSize: Double?,
              partOffset: Int) -> Result<LoadedDataset, Miss> {
        let url = file(for: manifest, directory: manifestDirectory, cellSize: cellSize)
        guard FileManager.default.fileExists(atPath: url.path) else { return .failure(.absent) }
        let mapped: FileInMemory
        do { mapped = try FileInMemory(path: url.path, hugePages: hugePages) } catch { return .failure(.damaged("\(error)")) }
        do {
            let meta = try Self.readMeta(mapped)
            if let why = Self.staleness(meta, manifest: manifest, directory: manifestDirectory, cellSize: cellSize) {
                return .failure(.stale(why))
            }
            return .success(try Self.dataset(meta, mapped: mapped, manifest: manifest, partOffset: partOffset))
        } catch let e as CacheDamage {
            return .failure(.damaged(e.reason))
        } catch {
            return .failure(.damaged("\(error)"))
        }
    }

    struct CacheDamage: Error { var reason: String }

    /// The format version a file's first bytes declare, or nil when they do not start an index cache.
    private static func format(ofHeader raw: UnsafeRawBufferPointer) -> UInt32? {
        guard raw.count >= 12, Array(raw[0..<8]) == magic else { return nil }
        return raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
    }

    private static func readMeta(_ mapped: FileInMemory) throws -> Meta {
        let raw = UnsafeRawBufferPointer(start: mapped.base, count: mapped.count)
        guard raw.count >= headerSize, let format = format(ofHeader: raw) else { throw CacheDamage(reason: "not an index cache file") }
        guard format == formatVersion else { throw CacheDamage(reason: "format \(format), this engine writes \(formatVersion)") }
        guard raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == 0x0102_0304 else { throw CacheDamage(reason: "other byte order") }
        let metaOffset = Int(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        let metaLength = Int(raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        let fileLength = Int(raw.loadUnaligned(fromByteOffset: 32, as: UInt64.self))
        let metaHash = raw.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
        let bodyHash = raw.loadUnaligned(fromByteOffset: 48, as: UInt64.self)
        guard fileLength == raw.count else { throw CacheDamage(reason: "\(raw.count) bytes, expected \(fileLength) (truncated?)") }
        guard metaOffset >= headerSize, metaLength >= 0, metaOffset <= raw.count - metaLength else {
            throw CacheDamage(reason: "metadata out of bounds")
        }
        // The whole body is hashed (about 20 ms per 100 MB): a flipped bit in a coordinate would pass every
        // structural check and answer wrongly, silently.
        guard ContentHash.of(bytes: UnsafeRawBufferPointer(rebasing: raw[headerSize..<metaOffset])) == bodyHash else {
            throw CacheDamage(reason: "checksum mismatch")
        }
        let metaBytes = UnsafeRawBufferPointer(rebasing: raw[metaOffset..<(metaOffset + metaLength)])
        guard ContentHash.of(bytes: metaBytes) == metaHash else { throw CacheDamage(reason: "metadata checksum mismatch") }
        do {
            return try JSONDecoder().decode(Meta.self, from: Data(metaBytes))
        } catch {
            throw CacheDamage(reason: "metadata unreadable: \(error)")
        }
    }

    /// Why the cache does not describe the current sources, or nil when it does.
    private static func staleness(_ meta: Meta, manifest: DatasetManifest, directory: URL?, cellSize: Double?) -> String? {
        if meta.cellSize != cellSize { return "built with cell size \(meta.cellSize.map { "\($0)" } ?? "off")" }
        if meta.manifestHash != manifestHash(manifest) { return "the manifest changed" }
        let paths = sourcePaths(manifest, directory: directory)
        guard paths == meta.sources.map(\.path) else { return "the dataset's files moved" }
        for stamp in meta.sources {
            let (size, mtime) = fileStamp(stamp.path)
            if size == stamp.size && mtime == stamp.mtimeNanos { continue }
            if size != stamp.size {
                return size < 0 ? "\(stamp.path) is gone" : stamp.size < 0 ? "\(stamp.path) appeared" : "\(stamp.path) changed size"
            }
            // Same size, new time: only the contents can tell.
            guard let hash = try? ContentHash.of(file: stamp.path), hash == stamp.hash else { return "\(stamp.path) changed" }
        }
        return nil
    }

    private static func dataset(_ meta: Meta, mapped: FileInMemory, manifest: DatasetManifest, partOffset: Int) throws -> LoadedDataset {
        let raw = UnsafeRawBufferPointer(start: mapped.base, count: mapped.count)
        func array<T>(_ s: Section, _ type: T.Type, _ what: String) throws -> UnsafeBufferPointer<T> {
            let stride = MemoryLayout<T>.stride
            guard s.offset >= headerSize, s.count >= 0, s.offset % MemoryLayout<T>.alignment == 0,
                  s.count <= (raw.count - s.offset) / stride else {
                throw CacheDamage(reason: "\(what) out of bounds")
            }
            return UnsafeBufferPointer(start: (raw.baseAddress! + s.offset).assumingMemoryBound(to: T.self), count: s.count)
        }
        func check(_ ok: Bool, _ what: @autoclosure () -> String) throws {
            if !ok { throw CacheDamage(reason: what()) }
        }
        let levels = manifest.role == .overlay ? manifest.layers.map(\.level)
            : manifest.layers.compactMap(\.level).sorted(by: >).map(Optional.some)
        guard meta.layers.map(\.level) == levels else {
            throw CacheDamage(reason: "its layers are not the manifest's")
        }
        var layers: [LayerIndex] = []
        var offset = partOffset
        for (i, l) in meta.layers.enumerated() {
            let name = "layer \(i)"
            let vertices = try array(l.vertices, Double.self, "\(name) vertices")
            let ringStart = try array(l.ringStart, UInt32.self, "\(name) rings")
            let partRings = try array(l.partRings, UInt32.self, "\(name) polygons")
            let envelopes = try array(l.envelopes, Double.self, "\(name) boxes")
            let partUnit = try array(l.partUnit, Int32.self, "\(name) units")
            let parts = partRings.count - 1
            try check(vertices.count % 2 == 0 && ringStart.count >= 1 && parts >= 0, "\(name): empty arrays")
            try check(envelopes.count == 4 * parts && partUnit.count == parts, "\(name): array sizes disagree")
            try check(ringStart[0] == 0 && Int(ringStart[ringStart.count - 1]) == vertices.count / 2, "\(name): ring table")
            for r in 0..<(ringStart.count - 1) {
                let a = Int(ringStart[r]), b = Int(ringStart[r + 1])
                // GEOS rebuilds rings from these: each closed, at least 4 vertices.
                try check(b - a >= 4 && b <= vertices.count / 2, "\(name): ring \(r) malformed")
                try check(vertices[2 * a] == vertices[2 * b - 2] && vertices[2 * a + 1] == vertices[2 * b - 1], "\(name): ring \(r) not closed")
            }
            try check(parts == 0 || (partRings[0] == 0 && Int(partRings[parts]) == ringStart.count - 1), "\(name): polygon table")
            // Boxes feed the R-tree's Hilbert sort and vertices GEOS: both must be the degrees the loader
            // produces (|x| <= 720 after antimeridian unwrapping, |y| <= 90 and a hair), never NaN, never
            // so large that a box's width overflows (the fuzzer found that one).
            var sane = true
            for v in envelopes { sane = sane && abs(v) <= 720 }
            for k in stride(from: 0, to: vertices.count, by: 2) { sane = sane && abs(vertices[k]) <= 720 && abs(vertices[k + 1]) <= 91 }
            for p in 0..<parts { sane = sane && envelopes[4 * p] <= envelopes[4 * p + 2] && envelopes[4 * p + 1] <= envelopes[4 * p + 3] }
            try check(sane, "\(name): coordinates or boxes out of range")
            for p in 0..<parts {
                try check(partRings[p + 1] > partRings[p], "\(name): polygon \(p) has no ring")
                try check(partUnit[p] >= 0 && Int(partUnit[p]) < l.units && (p == 0 || partUnit[p] >= partUnit[p - 1]),
                          "\(name): polygon \(p) unit")
            }
            let store = PolygonStore(vertices: vertices, ringStart: ringStart, partRings: partRings, envelopes: envelopes,
                                     owner: mapped)
            let placemarks = try readPlacemarks(l, dataset: meta.info.name, array: array)
            try check(placemarks.count == l.units, "\(name): \(placemarks.count) placemarks for \(l.units) units")
            var cells: CellIndex?
            if let c = l.cells {
                let layout = CellIndex.Layout(
                    originX: c.originX, originY: c.originY, size: c.size, depth: c.depth, topLevels: c.topLevels,
                    unitCells: c.unitCells, emptyCells: c.emptyCells, mixedCells: c.mixedCells,
                    nodes: try array(c.nodes, UInt32.self, "\(name) cells"), mixedStart: try array(c.mixedStart, UInt32.self, "\(name) cells"),
                    top: try array(c.top, UInt32.self, "\(name) cells"), borders: try array(c.borders, UInt32.self, "\(name) cells"))
                if let why = CellIndex.inconsistency(layout, parts: parts, units: l.units, vertices: vertices.count / 2) {
                    throw CacheDamage(reason: "\(name) cells: \(why)")
                }
                cells = CellIndex(layout: layout, store: store, owner: mapped)
            }
            var places: PlaceTable?
            if let section = l.places {
                let pairs = try array(section, Double.self, "\(name) places")
                try check(pairs.count == 2 * l.units, "\(name): \(pairs.count / 2) places for \(l.units) units")
                var coordinates: [Coordinate] = []
                coordinates.reserveCapacity(l.units)
                for u in 0..<l.units {
                    let c = Coordinate(latitude: pairs[2 * u], longitude: pairs[2 * u + 1])
                    try check(c.isValid, "\(name): place \(u) out of range")
                    coordinates.append(c)
                }
                places = PlaceTable(coordinates)
            }
            layers.append(LayerIndex(level: l.level, file: l.file, placemarks: placemarks, store: store,
                                     partUnit: Array(partUnit), partOffset: offset, cells: cells, places: places))
            offset += parts
        }
        var grid: WGS84Grid?
        if let g = meta.wgsGrid {
            let entries = try array(g.entries, UInt32.self, "WGS-84 grid")
            let (cells, overflow) = g.columns.multipliedReportingOverflow(by: g.rows)
            try check(g.columns > 0 && g.rows > 0 && !overflow && entries.count == cells && g.cell > 0 && g.cell.isFinite
                      && g.originX.isFinite && g.originY.isFinite, "WGS-84 grid size")
            // Every known entry names a layer and a unit that exist.
            for e in entries.lazy.map(WGS84GridEntry.init(rawValue:)) where e.isUnit {
                try check(e.layer >= 0 && e.layer < layers.count && e.unit < layers[e.layer].unitCount, "WGS-84 grid entry")
            }
            grid = WGS84Grid(originX: g.originX, originY: g.originY, cell: g.cell, columns: g.columns, rows: g.rows,
                             entries: entries, owner: mapped)
        }
        var mask: EmptyMask?
        if let m = meta.emptyMask {
            let words = try array(m.words, UInt64.self, "empty mask")
            try check(EmptyMask.isWellFormed(originX: m.originX, originY: m.originY, scaleX: m.scaleX, scaleY: m.scaleY,
                                             wordCount: words.count), "empty mask size")
            mask = EmptyMask(originX: m.originX, originY: m.originY, scaleX: m.scaleX, scaleY: m.scaleY, words: words, owner: mapped)
        }
        return LoadedDataset(manifest: manifest, layers: layers, info: meta.info, wgsGrid: grid, emptyMask: mask)
    }

    /// Placemarks: laid out by the field table (see ``PlacemarkSlots``).
    private static func readPlacemarks(_ l: LayerMeta, dataset: String,
                                       array: (Section, UInt32.Type, String) throws -> UnsafeBufferPointer<UInt32>) throws -> [Placemark] {
        let slots = try array(l.placemarkSlots, UInt32.self, "placemarks")
        let text = try array(l.text, UInt32.self, "placemark text")  // bytes, stored in 4-byte words
        let bytes = UnsafeRawBufferPointer(start: text.baseAddress, count: text.count * 4)
        guard slots.count == PlacemarkSlots.slotsPerPlacemark * l.units else { throw CacheDamage(reason: "placemark table size") }
        var result: [Placemark] = []
        result.reserveCapacity(l.units)
        var pool = PlacemarkSlots.NamesPool()
        for u in 0..<l.units {
            do {
                result.append(try PlacemarkSlots.read(u, slots: slots, bytes: bytes, dataset: dataset, pool: &pool))
            } catch {
                throw CacheDamage(reason: error.reason)
            }
        }
        return result
    }

    // MARK: - Writing

    /// Writes a freshly loaded dataset's cache file (atomically: temporary file, then rename).
    func write(_ set: LoadedDataset, manifest: DatasetManifest, directory manifestDirectory: URL?, cellSize: Double?) throws {
        try CacheTemporaryFile.prepareDirectory(directory)
        let url = file(for: manifest, directory: manifestDirectory, cellSize: cellSize)
        var body = Data()
        var position = Self.headerSize
        func put<T>(_ buffer: UnsafeBufferPointer<T>) -> Section {
            let alignment = 64  // a cache line: the cell index's nodes are one line each
            let pad = (alignment - position % alignment) % alignment
            body.append(Data(count: pad))
            position += pad
            let section = Section(offset: position, count: buffer.count)
            if let base = buffer.baseAddress, buffer.count > 0 {
                body.append(UnsafeBufferPointer(start: UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self),
                                                count: buffer.count * MemoryLayout<T>.stride))
            }
            position += buffer.count * MemoryLayout<T>.stride
            return section
        }
        func put<T>(_ array: [T]) -> Section { array.withUnsafeBufferPointer { put($0) } }

        var layers: [LayerMeta] = []
        for layer in set.layers {
            var slots: [UInt32] = [], text: [UInt8] = []
            var pool = PlacemarkSlots.NamesPool()
            for p in layer.placemarks { PlacemarkSlots.append(p, slots: &slots, text: &text, pool: &pool) }
            while text.count % 4 != 0 { text.append(0) }
            let words = text.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            let s = layer.store
            var meta = LayerMeta(level: layer.level, file: layer.file, units: layer.unitCount,
                                 places: layer.places.map { put($0.pairs) }, placemarkSlots: put(slots), text: put(words), partUnit: put(layer.partUnit),
                                 vertices: put(s.vertices), ringStart: put(s.ringStart), partRings: put(s.partRings),
                                 envelopes: put(s.envelopes), cells: nil)
            if let c = layer.cells?.layout {
                meta.cells = CellsMeta(originX: c.originX, originY: c.originY, size: c.size, depth: c.depth, topLevels: c.topLevels,
                                       unitCells: c.unitCells, emptyCells: c.emptyCells, mixedCells: c.mixedCells,
                                       nodes: put(c.nodes), mixedStart: put(c.mixedStart), top: put(c.top),
                                       borders: put(c.borders))
            }
            layers.append(meta)
        }
        let grid = set.wgsGrid.map {
            GridMeta(originX: $0.originX, originY: $0.originY, cell: $0.cell, columns: $0.columns, rows: $0.rows, entries: put($0.entries))
        }
        let mask = set.emptyMask.map {
            MaskMeta(originX: $0.originX, originY: $0.originY, scaleX: $0.scaleX, scaleY: $0.scaleY, words: put($0.words))
        }
        let meta = Meta(format: Self.formatVersion, wgsGrid: grid, emptyMask: mask, dataset: manifest.name, manifestHash: Self.manifestHash(manifest),
                        cellSize: cellSize, sources: try Self.stamps(Self.sourcePaths(manifest, directory: manifestDirectory)),
                        info: set.info, layers: layers)
        let metaData = try JSONEncoder().encode(meta)
        let metaOffset = position
        var header = Data(Self.magic)
        func word<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        word(Self.formatVersion)
        word(UInt32(0x0102_0304))
        word(UInt64(metaOffset))
        word(UInt64(metaData.count))
        word(UInt64(metaOffset + metaData.count))
        word(ContentHash.of(data: metaData))
        word(ContentHash.of(data: body))
        header.append(Data(count: Self.headerSize - header.count))
        var file = header
        file.append(body)
        file.append(metaData)
        try CacheTemporaryFile.write(file, to: url)
        removeOtherFormats(of: manifest)
    }
}
