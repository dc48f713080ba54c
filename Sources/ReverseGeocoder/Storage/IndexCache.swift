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
/// - **Checksums**: one ``ContentHash`` per 16 KB block of every section, in a table the metadata's
///   checksum covers (see ``CacheVerifier``). A load for many queries checks every block (both cores,
///   memory speed); a load for a few (``ReverseGeocoder/Options/verifyOnFirstUse``) checks none and each
///   query proves the blocks and indices it is about to read (``DatasetFirstUse``, ``LayerFirstUse``).
/// - **Upkeep**: a successful load marks the file used (its modification time, at most once a day); a
///   write is followed by pruning the directory of files that can never be used again
///   (``IndexCacheDirectory``).
/// - **Memory**: the file is copied into huge-page memory, or mapped read-only and so shared with every
///   other process mapping it through the page cache (see ``FileInMemory``); the arrays are used in
///   place, never decoded.
struct IndexCache {
    let directory: URL
    /// Load into 2 MB pages (see ``FileInMemory``).
    var hugePages = false
    /// Check nothing at load; each query checks what it reads (only when mapped, not copied).
    var verifyOnFirstUse = false
    /// The time a load marks its file used at (``IndexCacheDirectory/markUsed(_:modified:now:)``).
    var now: @Sendable () -> Date = { Date() }

    /// Bumped whenever what is stored, or what the engine computes from it, changes.
    /// 6: placemarks laid out by the field table (Placemark v2: sub-administrative area, time zone,
    /// water, provenance and languages per level).
    /// 7: overlay datasets (layers without a level) and each unit's place (nearest-place layers).
    /// 8: a checksum per 16 KB block of each section (``CacheVerifier``) instead of one over the whole
    /// body, so a start can check only the blocks it reads; the dataset's reach and each layer's
    /// antimeridian flag in the metadata, so a load computes nothing from unchecked sections.
    /// 9: adaptive cell depth (border cells split below the base level while they hold many edges).
    /// 10: the metadata in ``CompactEncoder``'s binary form instead of JSON (a fifth of a one-point start).
    /// 11: a border cell's tree entry holds where its records begin and its last record is flagged, so the
    /// query no longer reads the border cell table (one dependent cache miss fewer per border point).
    /// 12: border cells split to at least two levels below the cell size (the same
    /// layout; a different tree for the same data, and a cache of 11 would keep the slower one).
    /// 13: border cells back at the cell size (format 12's caches hold the deeper trees).
    /// 14: border cells ``CellIndex/deepBorderLevels`` below the cell size on the layers whose
    /// ``CellIndex/edgesPerCell(store:cellSide:)`` reaches ``CellIndex/deepBorderEdgesPerCell`` (the
    /// same layout; a deeper tree for China's districts, and a cache of 13 would keep the slower one).
    /// 15: the two-level nodes numbered level by level (the same layout and tree; the nodes right below
    /// the top grid in one block, which a cache of 14 would not have).
    static let formatVersion: UInt32 = 15
    private static let magic: [UInt8] = Array("GEOIDX\0\0".utf8)
    static let headerSize = 64

    /// One source file's identity.
    struct SourceStamp: Codable, Equatable {
        var path: String
        /// -1 when the file does not exist (a `.cpg` added later must invalidate the cache).
        var size: Int64
        var mtimeNanos: Int64
        var hash: UInt64
    }

    /// Where an array lies in the file (byte offset, element count), and the index of its first block's
    /// checksum in the checksum table (its blocks' checksums follow in order).
    struct Section: Codable {
        var offset: Int
        var count: Int
        var firstBlock: Int
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
        /// Some polygon lies east of 180° (``LayerIndex/hasWrappedParts``).
        var wrapped: Bool
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
        /// ``LoadedDataset/reach``: minX, minY, maxX, maxY.
        var reach: [Double]
        /// The block checksum table (UInt64s; see ``CacheVerifier``), and the checksum of the table.
        var checksums: Section
        var checksumsHash: UInt64
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
        return directory.appendingPathComponent("\(Self.filePrefix(manifest))\(String(hash, radix: 16)).geoidx")
    }

    private static func safeName(_ manifest: DatasetManifest) -> String {
        String(manifest.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(40))
    }

    /// The start of a dataset's cache file names (`world-`), before the key's hash: how its files of
    /// other format versions are told from other datasets' (``IndexCacheDirectory/Rule/otherFormats(filePrefix:)``).
    static func filePrefix(_ manifest: DatasetManifest) -> String { safeName(manifest) + "-" }

    static func manifestHash(_ manifest: DatasetManifest) -> UInt64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ContentHash.of(data: (try? encoder.encode(manifest)) ?? Data())
    }

    /// The files a dataset is built from (each layer's shapefile and its sidecars, and its names table).
    /// Standardized, as the cache file's own key is: `--data Data` and `--data /abs/Data` name the same
    /// files, and a manifest's `../world/names.tsv` must not read as "the dataset's files moved" and
    /// rebuild the index on every switch between the two spellings.
    static func sourcePaths(_ manifest: DatasetManifest, directory: URL?) -> [String] {
        var paths: [String] = []
        for layer in manifest.layers {
            let shp = DatasetLoader.resolve(layer.file, in: directory).standardizedFileURL
            let base = shp.deletingPathExtension()
            for ext in ["shp", "shx", "dbf", "cpg", "prj"] { paths.append(base.appendingPathExtension(ext).path) }
        }
        // The names table is resolved into the cached placemarks: a changed table makes the cache stale.
        if let names = manifest.names { paths.append(DatasetLoader.resolve(names, in: directory).standardizedFileURL.path) }
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

    /// The dataset from its cache file, or why not. Throws ``GeocoderError/insufficientMemory(dataset:needed:available:reason:)``
    /// when the file does not fit in the address space left (checked before mapping it); copied only
    /// when it also fits in the memory available, else mapped (the kernel can drop mapped pages).
    func load(manifest: DatasetManifest, directory manifestDirectory: URL?, cellSize: Double?,
              partOffset: Int) throws -> Result<LoadedDataset, Miss> {
        let url = file(for: manifest, directory: manifestDirectory, cellSize: cellSize)
        guard FileManager.default.fileExists(atPath: url.path) else { return .failure(.absent) }
        let stamp = Self.fileStamp(url.path)
        let size = Int(stamp.size)
        try MemoryBudget.check(size, resident: false, dataset: manifest.name, for: "mapping its index cache \(url.path)")
        let copy = hugePages && (MemoryBudget.room(resident: true).map { $0.bytes >= size } ?? true)
        let mapped: FileInMemory
        do { mapped = try FileInMemory(path: url.path, hugePages: copy) } catch { return .failure(.damaged("\(error)")) }
        do {
            let meta = try Self.readMeta(mapped)
            if let why = Self.staleness(meta, manifest: manifest, directory: manifestDirectory, cellSize: cellSize) {
                return .failure(.stale(why))
            }
            let lazy = verifyOnFirstUse && !mapped.isCopy
            let set = try Self.dataset(meta, mapped: mapped, file: url.path, manifest: manifest, partOffset: partOffset,
                                       verifyOnFirstUse: lazy)
            // Used: the age rule of automatic pruning must not take it (at most one write a day).
            IndexCacheDirectory.markUsed(url.path, modified: stamp.mtimeNanos, now: now())
            return .success(set)
        } catch let e as CacheDamage {
            return .failure(.damaged(e.reason))
        } catch {
            return .failure(.damaged("\(error)"))
        }
    }

    struct CacheDamage: Error { var reason: String }

    /// The format version a file's first bytes declare, or nil when they do not start an index cache.
    static func format(ofHeader raw: UnsafeRawBufferPointer) -> UInt32? {
        guard raw.count >= 12, Array(raw[0..<8]) == magic else { return nil }
        return raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
    }

    /// The fixed fields of a cache file's first ``headerSize`` bytes.
    struct Header {
        var metaOffset: Int, metaLength: Int, fileLength: Int
        var metaHash: UInt64
    }

    /// A header of this format version, checked as far as its own bytes can be (not against the file).
    static func header(_ raw: UnsafeRawBufferPointer) throws -> Header {
        guard raw.count >= headerSize, let format = format(ofHeader: raw) else { throw CacheDamage(reason: "not an index cache file") }
        guard format == formatVersion else { throw CacheDamage(reason: "format \(format), this engine writes \(formatVersion)") }
        guard raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == 0x0102_0304 else { throw CacheDamage(reason: "other byte order") }
        // Int(exactly:): a damaged word of 2^63 or more must be damage, not a trap.
        guard let metaOffset = Int(exactly: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
              let metaLength = Int(exactly: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
              let fileLength = Int(exactly: raw.loadUnaligned(fromByteOffset: 32, as: UInt64.self)) else {
            throw CacheDamage(reason: "metadata out of bounds")
        }
        guard metaOffset >= headerSize, metaLength >= 0, metaOffset <= fileLength - metaLength else {
            throw CacheDamage(reason: "metadata out of bounds")
        }
        return Header(metaOffset: metaOffset, metaLength: metaLength, fileLength: fileLength,
                      metaHash: raw.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
    }

    private static func readMeta(_ mapped: FileInMemory) throws -> Meta {
        let raw = UnsafeRawBufferPointer(start: mapped.base, count: mapped.count)
        let header = try header(raw)
        guard header.fileLength == raw.count else { throw CacheDamage(reason: "\(raw.count) bytes, expected \(header.fileLength) (truncated?)") }
        return try meta(UnsafeRawBufferPointer(rebasing: raw[header.metaOffset..<(header.metaOffset + header.metaLength)]), header: header)
    }

    /// The metadata from its bytes, which must match the header's checksum.
    static func meta(_ metaBytes: UnsafeRawBufferPointer, header: Header) throws -> Meta {
        // The body's blocks are checked against the checksum table (CacheVerifier), which the metadata's
        // checksum covers: a flipped bit in a coordinate would pass every structural check and answer
        // wrongly, silently.
        guard ContentHash.of(bytes: metaBytes) == header.metaHash else { throw CacheDamage(reason: "metadata checksum mismatch") }
        do {
            return try CompactDecoder.decode(Meta.self, from: metaBytes)
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

    /// What is wrong with a layer's polygon arrays, or nil: the rules GEOS and the R-tree rely on.
    static func polygonInconsistency(vertices: UnsafeBufferPointer<Double>, ringStart: UnsafeBufferPointer<UInt32>,
                                     partRings: UnsafeBufferPointer<UInt32>, envelopes: UnsafeBufferPointer<Double>,
                                     partUnit: UnsafeBufferPointer<Int32>, units: Int) -> String? {
        if let why = boxInconsistency(partRings: partRings, envelopes: envelopes, partUnit: partUnit, units: units) { return why }
        let parts = partRings.count - 1
        guard vertices.count % 2 == 0 && ringStart.count >= 1 else { return "empty arrays" }
        guard ringStart[0] == 0 && Int(ringStart[ringStart.count - 1]) == vertices.count / 2 else { return "ring table" }
        for r in 0..<(ringStart.count - 1) {
            let a = Int(ringStart[r]), b = Int(ringStart[r + 1])
            // GEOS rebuilds rings from these: each closed, at least 4 vertices.
            guard b - a >= 4 && b <= vertices.count / 2 else { return "ring \(r) malformed" }
            guard vertices[2 * a] == vertices[2 * b - 2] && vertices[2 * a + 1] == vertices[2 * b - 1] else { return "ring \(r) not closed" }
        }
        guard parts == 0 || Int(partRings[parts]) == ringStart.count - 1 else { return "polygon table" }
        // Vertices feed GEOS: the degrees the loader produces (|x| <= 720 after antimeridian unwrapping,
        // |y| <= 90 and a hair), never NaN.
        var sane = true
        for k in stride(from: 0, to: vertices.count, by: 2) { sane = sane && abs(vertices[k]) <= 720 && abs(vertices[k + 1]) <= 91 }
        guard sane else { return "coordinates out of range" }
        return nil
    }

    /// The part of ``polygonInconsistency(vertices:ringStart:partRings:envelopes:partUnit:units:)`` that
    /// reads no vertex: the tables' sizes, the boxes, each polygon's rings and unit. All the coast
    /// fallback's scan of the boxes reads (``LayerFirstUse/checkBoxes()``), so it checks this alone.
    static func boxInconsistency(partRings: UnsafeBufferPointer<UInt32>, envelopes: UnsafeBufferPointer<Double>,
                                 partUnit: UnsafeBufferPointer<Int32>, units: Int) -> String? {
        let parts = partRings.count - 1
        guard parts >= 0 else { return "empty arrays" }
        guard envelopes.count == 4 * parts && partUnit.count == parts else { return "array sizes disagree" }
        guard parts == 0 || partRings[0] == 0 else { return "polygon table" }
        // Boxes feed the R-tree's Hilbert sort and the distance bounds: degrees (|x| <= 720), never NaN,
        // never so large that a box's width overflows (the fuzzer found that one).
        var sane = true
        for v in envelopes { sane = sane && abs(v) <= 720 }
        for p in 0..<parts { sane = sane && envelopes[4 * p] <= envelopes[4 * p + 2] && envelopes[4 * p + 1] <= envelopes[4 * p + 3] }
        guard sane else { return "boxes out of range" }
        for p in 0..<parts {
            guard partRings[p + 1] > partRings[p] else { return "polygon \(p) has no ring" }
            guard partUnit[p] >= 0 && Int(partUnit[p]) < units && (p == 0 || partUnit[p] >= partUnit[p - 1]) else { return "polygon \(p) unit" }
        }
        return nil
    }

    private static func dataset(_ meta: Meta, mapped: FileInMemory, file: String, manifest: DatasetManifest, partOffset: Int,
                                verifyOnFirstUse lazy: Bool) throws -> LoadedDataset {
        let raw = UnsafeRawBufferPointer(start: mapped.base, count: mapped.count)
        func buffer<T>(_ s: Section, _ type: T.Type, _ what: String) throws -> UnsafeBufferPointer<T> {
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
        let table = try buffer(meta.checksums, UInt64.self, "checksum table")
        try check(ContentHash.of(bytes: UnsafeRawBufferPointer(table)) == meta.checksumsHash, "checksum table mismatch")
        let verifier = CacheVerifier(table: table, owner: mapped)
        var regions: [CacheVerifier.Region] = []
        func array<T>(_ s: Section, _ type: T.Type, _ what: String) throws -> LayerFirstUse.Array<T> {
            let b = try buffer(s, type, what)
            let region = CacheVerifier.Region(name: what, base: UnsafeRawPointer(b.baseAddress), bytes: b.count * MemoryLayout<T>.stride,
                                              firstBlock: s.firstBlock)
            try check(verifier.covers(region), "\(what): checksums out of bounds")
            regions.append(region)
            return LayerFirstUse.Array(buffer: b, region: region)
        }
        let levels = manifest.role == .overlay ? manifest.layers.map(\.level)
            : manifest.layers.compactMap(\.level).sorted(by: >).map(Optional.some)
        guard meta.layers.map(\.level) == levels else {
            throw CacheDamage(reason: "its layers are not the manifest's")
        }
        try check(meta.reach.count == 4 && meta.reach.allSatisfy { $0.isFinite && abs($0) <= 721 }, "dataset reach")
        // Every section's place first (cheap: numbers from the metadata), then, for a load that will
        // answer many points, every block at once, side by side.
        var layerArrays: [LayerFirstUse.Arrays] = []
        for (i, l) in meta.layers.enumerated() {
            let name = "layer \(i)"
            var a = LayerFirstUse.Arrays(
                vertices: try array(l.vertices, Double.self, "\(name) vertices"), ringStart: try array(l.ringStart, UInt32.self, "\(name) rings"),
                partRings: try array(l.partRings, UInt32.self, "\(name) polygons"), envelopes: try array(l.envelopes, Double.self, "\(name) boxes"),
                partUnit: try array(l.partUnit, Int32.self, "\(name) units"), slots: try array(l.placemarkSlots, UInt32.self, "\(name) placemarks"),
                text: try array(l.text, UInt32.self, "\(name) placemark text"))
            if let c = l.cells {
                a.nodes = try array(c.nodes, UInt32.self, "\(name) cell nodes")
                a.mixedStart = try array(c.mixedStart, UInt32.self, "\(name) border cell table")
                a.top = try array(c.top, UInt32.self, "\(name) cell grid")
                a.borders = try array(c.borders, UInt32.self, "\(name) crossing lists")
            }
            layerArrays.append(a)
        }
        let gridEntries = try meta.wgsGrid.map { try array($0.entries, UInt32.self, "WGS-84 grid") }
        let maskWords = try meta.emptyMask.map { try array($0.words, UInt64.self, "empty mask") }
        if !lazy { try verifier.verifyAll(regions) }

        var layers: [LayerIndex] = [], firstUses: [LayerFirstUse] = []
        var offset = partOffset
        for (i, l) in meta.layers.enumerated() {
            let name = "layer \(i)", a = layerArrays[i]
            let parts = a.partRings.count - 1
            try check(parts >= 0 && a.partUnit.count == parts && a.envelopes.count == 4 * parts && a.vertices.count % 2 == 0
                      && a.vertices.count / 2 < Int(UInt32.max), "\(name): array sizes disagree")
            // The unit count sizes every thread's placemark table: a lazy load checks no placemark yet, so
            // the count is checked against the placemark table's size here (the fuzzer found a negative one).
            try check(l.units >= 0 && a.slots.count == PlacemarkSlots.slotsPerPlacemark * l.units, "\(name): placemark table size")
            if !lazy, let why = polygonInconsistency(vertices: a.vertices.buffer, ringStart: a.ringStart.buffer, partRings: a.partRings.buffer,
                                                     envelopes: a.envelopes.buffer, partUnit: a.partUnit.buffer, units: l.units) {
                throw CacheDamage(reason: "\(name): \(why)")
            }
            let store = PolygonStore(vertices: a.vertices.buffer, ringStart: a.ringStart.buffer, partRings: a.partRings.buffer,
                                     envelopes: a.envelopes.buffer, owner: mapped)
            var cells: CellIndex?
            if let c = l.cells, let nodes = a.nodes, let mixedStart = a.mixedStart, let top = a.top, let borders = a.borders {
                let layout = CellIndex.Layout(
                    originX: c.originX, originY: c.originY, size: c.size, depth: c.depth, topLevels: c.topLevels,
                    unitCells: c.unitCells, emptyCells: c.emptyCells, mixedCells: c.mixedCells,
                    nodes: nodes.buffer, mixedStart: mixedStart.buffer, top: top.buffer, borders: borders.buffer)
                // The numbers always (the query's arithmetic depends on them), the arrays when loading whole.
                if let why = lazy ? CellIndex.shapeInconsistency(layout) : CellIndex.inconsistency(layout, parts: parts, units: l.units, vertices: a.vertices.count / 2) {
                    throw CacheDamage(reason: "\(name) cells: \(why)")
                }
                cells = CellIndex(layout: layout, store: store, owner: mapped)
            }
            // A nearest-place layer's places: small (16 bytes a unit), checked whole here, for a lazy load
            // too (they are read after the side-by-side check), so the distance every answer of the layer
            // carries needs no check of its own.
            var places: PlaceTable?
            if let section = l.places {
                let pairs = try array(section, Double.self, "\(name) places")
                try verifier.verifyAll([pairs.region])
                try check(pairs.count == 2 * l.units, "\(name): \(pairs.count / 2) places for \(l.units) units")
                var coordinates: [Coordinate] = []
                coordinates.reserveCapacity(l.units)
                for u in 0..<l.units {
                    let c = Coordinate(latitude: pairs.buffer[2 * u], longitude: pairs.buffer[2 * u + 1])
                    try check(c.isValid, "\(name): place \(u) out of range")
                    coordinates.append(c)
                }
                places = PlaceTable(coordinates)
            }
            if lazy {
                let firstUse = LayerFirstUse(arrays: a, verifier: verifier, units: l.units, name: name, dataset: meta.info.name)
                firstUses.append(firstUse)
                layers.append(LayerIndex(level: l.level, file: l.file, units: l.units, firstUse: firstUse, store: store,
                                         partUnit: a.partUnit.buffer, partOffset: offset, cells: cells, wrapped: l.wrapped, places: places))
            } else {
                let placemarks = try readPlacemarks(l, slots: a.slots.buffer, text: a.text.buffer, dataset: meta.info.name)
                try check(placemarks.count == l.units, "\(name): \(placemarks.count) placemarks for \(l.units) units")
                let layer = LayerIndex(level: l.level, file: l.file, placemarks: placemarks, store: store, partUnit: a.partUnit.buffer,
                                       owner: mapped, partOffset: offset, cells: cells, places: places)
                try check(layer.hasWrappedParts == l.wrapped, "\(name): antimeridian flag")
                layers.append(layer)
            }
            offset += parts
        }
        var grid: WGS84Grid?
        if let g = meta.wgsGrid, let entries = gridEntries?.buffer {
            let (cells, overflow) = g.columns.multipliedReportingOverflow(by: g.rows)
            try check(g.columns > 0 && g.rows > 0 && !overflow && entries.count == cells && g.cell > 0 && g.cell.isFinite
                      && g.originX.isFinite && g.originY.isFinite, "WGS-84 grid size")
            if !lazy {
                // Every known entry names a layer and a unit that exist.
                for e in entries.lazy.map(WGS84GridEntry.init(rawValue:)) where e.isUnit {
                    try check(e.layer >= 0 && e.layer < layers.count && e.unit < layers[e.layer].unitCount, "WGS-84 grid entry")
                }
            }
            grid = WGS84Grid(originX: g.originX, originY: g.originY, cell: g.cell, columns: g.columns, rows: g.rows,
                             entries: entries, owner: mapped, readEntries: !lazy)
        }
        var mask: EmptyMask?
        if let m = meta.emptyMask, let words = maskWords?.buffer {
            try check(EmptyMask.isWellFormed(originX: m.originX, originY: m.originY, scaleX: m.scaleX, scaleY: m.scaleY,
                                             wordCount: words.count), "empty mask size")
            mask = EmptyMask(originX: m.originX, originY: m.originY, scaleX: m.scaleX, scaleY: m.scaleY, words: words, owner: mapped)
        }
        let reach = Box(minX: meta.reach[0], minY: meta.reach[1], maxX: meta.reach[2], maxY: meta.reach[3])
        let firstUse = lazy ? DatasetFirstUse(file: file, verifier: verifier, grid: gridEntries, mask: maskWords, layers: firstUses) : nil
        let set = LoadedDataset(manifest: manifest, layers: layers, info: meta.info, wgsGrid: grid, emptyMask: mask,
                                reach: lazy ? reach : nil, firstUse: firstUse)
        try check(lazy || set.reach == reach, "dataset reach")
        return set
    }

    /// Placemarks: laid out by the field table (see ``PlacemarkSlots``).
    private static func readPlacemarks(_ l: LayerMeta, slots: UnsafeBufferPointer<UInt32>, text: UnsafeBufferPointer<UInt32>,
                                       dataset: String) throws -> [Placemark] {
        let bytes = UnsafeRawBufferPointer(start: text.baseAddress, count: text.count * 4)  // bytes, stored in 4-byte words
        // The table's size against l.units is checked by the load, before it gets here.
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
        // The body as pieces written in order: the big arrays (vertices, cells, crossing lists) where the
        // dataset holds them, which `set` keeps alive until the write; padding and the arrays made here
        // (placemark slots, the checksum table), copied into `owned`, freed after the write.
        var pieces: [UnsafeRawBufferPointer] = [], owned: [UnsafeMutableRawBufferPointer] = []
        defer { for o in owned { o.deallocate() } }
        func own(_ bytes: UnsafeRawBufferPointer) {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
            copy.copyMemory(from: bytes)
            owned.append(copy)
            pieces.append(UnsafeRawBufferPointer(copy))
        }
        let zeros = [UInt8](repeating: 0, count: 64)
        var position = Self.headerSize
        var checksums: [UInt64] = []
        func put<T>(_ buffer: UnsafeBufferPointer<T>, copy: Bool = false) -> Section {
            let alignment = 64  // a cache line: the cell index's nodes are one line each
            let pad = (alignment - position % alignment) % alignment
            if pad > 0 { zeros.withUnsafeBytes { own(UnsafeRawBufferPointer(rebasing: $0[0..<pad])) } }
            position += pad
            let section = Section(offset: position, count: buffer.count, firstBlock: checksums.count)
            if let base = buffer.baseAddress, buffer.count > 0 {
                let bytes = UnsafeRawBufferPointer(start: base, count: buffer.count * MemoryLayout<T>.stride)
                if copy { own(bytes) } else { pieces.append(bytes) }
                checksums += CacheVerifier.checksums(of: bytes)
            }
            position += buffer.count * MemoryLayout<T>.stride
            return section
        }
        // An array made here does not outlive the call: copied.
        func put<T>(_ array: [T]) -> Section { array.withUnsafeBufferPointer { put($0, copy: true) } }

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
                                 envelopes: put(s.envelopes), cells: nil, wrapped: layer.hasWrappedParts)
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
        // The table last: put() adds no checksums of its own for it; the metadata's hash covers it.
        let table = checksums
        let tableSection = put(table)
        let meta = Meta(format: Self.formatVersion, wgsGrid: grid, emptyMask: mask, dataset: manifest.name, manifestHash: Self.manifestHash(manifest),
                        cellSize: cellSize, sources: try Self.stamps(Self.sourcePaths(manifest, directory: manifestDirectory)),
                        info: set.info, layers: layers,
                        reach: [set.reach.minX, set.reach.minY, set.reach.maxX, set.reach.maxY],
                        checksums: Section(offset: tableSection.offset, count: tableSection.count, firstBlock: 0),
                        checksumsHash: table.withUnsafeBytes { ContentHash.of(bytes: $0) })
        let metaData = Data(try CompactEncoder.encode(meta))
        let metaOffset = position
        var header = Data(Self.magic)
        func word<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        word(Self.formatVersion)
        word(UInt32(0x0102_0304))
        word(UInt64(metaOffset))
        word(UInt64(metaData.count))
        word(UInt64(metaOffset + metaData.count))
        word(ContentHash.of(data: metaData))
        word(UInt64(0))  // formats before 7: the body's checksum; now the block table's, in the metadata
        header.append(Data(count: Self.headerSize - header.count))
        try withExtendedLifetime(set) {
            try header.withUnsafeBytes { header in
                try metaData.withUnsafeBytes { meta in
                    try CacheTemporaryFile.write([header] + pieces + [meta], to: url)
                }
            }
        }
        IndexCacheDirectory(directory).removeOtherFormats(filePrefix: Self.filePrefix(manifest), now: now())
    }

}
