import Foundation
import Synchronization

/// A dataset ready to answer: its layers, finest first.
final class LoadedDataset: Sendable {
    let manifest: DatasetManifest
    /// Copied out of the manifest: reading `manifest.datum` on the hot path would copy the whole struct.
    let datum: Datum
    /// Bounding box of every polygon in the dataset's datum, grown by 0.05°
    /// (more than any GCJ-02 or BD-09 offset), so a point outside it in any datum skips this dataset
    /// without paying for a datum conversion.
    let reach: Box
    let layers: [LayerIndex]
    let info: DatasetInfo
    /// For a GCJ-02 dataset with cells: answers for WGS-84 queries that need no conversion.
    let wgsGrid: WGS84Grid?
    /// Where no layer has a unit, over `reach` (nil when the layers have no cells).
    let emptyMask: EmptyMask?
    /// For a dataset mapped from its index cache and checked as queries read it: what they must check.
    let firstUse: DatasetFirstUse?

    /// `reach`: nil computes it from the layers' boxes; a lazily checked cache gives its recorded one.
    init(manifest: DatasetManifest, layers: [LayerIndex], info: DatasetInfo, wgsGrid: WGS84Grid?, emptyMask: EmptyMask?,
         reach: Box? = nil, firstUse: DatasetFirstUse? = nil) {
        self.manifest = manifest
        datum = manifest.datum
        self.layers = layers
        self.reach = reach ?? Self.reach(layers)
        self.info = info
        self.wgsGrid = wgsGrid
        self.emptyMask = emptyMask
        self.firstUse = firstUse
    }

    /// A freshly built dataset, with its empty mask when its layers have cells, and its WGS-84 grid
    /// when it is a GCJ-02 one.
    convenience init(manifest: DatasetManifest, layers: [LayerIndex], info: DatasetInfo, cellSize: Double?) {
        let box = Self.reach(layers)
        var grid: WGS84Grid?
        if manifest.datum == .gcj02, let cellSize {
            grid = WGS84Grid.build(layers: layers, box: box, cell: cellSize)
        }
        let mask = cellSize == nil ? nil : EmptyMask.build(layers: layers, box: box)
        self.init(manifest: manifest, layers: layers, info: info, wgsGrid: grid, emptyMask: mask)
    }

    static func reach(_ layers: [LayerIndex]) -> Box {
        var box = Box.empty
        for layer in layers {
            for p in 0..<layer.store.count { box = box.union(layer.store.envelope(p)) }
        }
        // Antimeridian units are stored east of 180°, where a query's western twin may fall.
        if box.maxX > 180 { box.minX = -180; box.maxX = 180 }
        return box.grown(by: 0.05)
    }
}

/// Results written by parallel workers, one slot each, read after they all finish.
final class LoadResults<T>: Sendable {
    /// One worker's result. @unchecked: T (GEOS geometries) is not Sendable, but each slot is written by
    /// exactly one worker, under the mutex, and read only after all of them joined.
    private struct Slot: @unchecked Sendable { var result: Result<T, Error>? }
    private let slots: Mutex<[Slot]>
    init(count: Int) { slots = Mutex(Array(repeating: Slot(result: nil), count: count)) }
    func set(_ i: Int, _ r: Result<T, Error>) {
        let slot = Slot(result: r)
        slots.withLock { $0[i] = slot }
    }
    /// The values in order, or the first error in order.
    func values() throws -> [T] { try slots.withLock { $0 }.map { try $0.result!.get() } }
}

/// Reads the shapefiles a manifest names and resolves every unit's placemark.
///
/// Four steps, one method each: ``readLayers()`` (in parallel, checking each source file against the
/// manifest's SHA-256), ``resolvePlacemarks(_:partOffset:)`` (the hierarchy), ``buildIndexes(_:placemarks:partOffset:)``
/// (in parallel), then the dataset assembled finest layer first.
///
/// Hierarchy: a unit's coarser levels come from its own fields where the manifest names them; a code
/// without a name is looked up in the coarser layer by code; a level the file does not carry at all is
/// taken from the manifest's constants, else from the coarser layer's unit containing a point inside
/// this unit (GEOS PointOnSurface). All of this happens once at load, so a query returns a ready value.
struct DatasetLoader: Sendable {
    let manifest: DatasetManifest
    let directory: URL?
    let options: ReverseGeocoder.Options

    /// A record's raw attributes and polygons, before hierarchy resolution.
    private struct Unit {
        /// By the manifest layer's `fields` key: a level name, or an overlay's field key.
        var values: [String: (name: String?, code: String?)]
        var parts: [Geometry]
        /// The record's populated place (manifest `place`), WGS-84.
        var place: Coordinate?

        func value(_ level: AdminLevel) -> (name: String?, code: String?)? { values[level.rawValue] }
    }

    private struct RawLayer {
        var spec: DatasetManifest.Layer
        var units: [Unit]
        var info: LayerInfo
        /// Source files of this layer that differ from the manifest's digests.
        var modified: [ModifiedFile]
        /// Parts of this layer's units, and where they start among all the dataset's parts.
        var partCount: Int { units.reduce(0) { $0 + $1.parts.count } }
    }

    func load(partOffset: Int) throws -> LoadedDataset {
        // One layer's freed buffers serve the next layer's build (and a dataset dropped after its cache is
        // read back, the next dataset's: ReverseGeocoder.readBack); kept past the load they are memory
        // held for nothing.
        defer { LargeAllocation.releaseSpares() }
        let raw = try readLayers()
        var modified = raw.flatMap(\.modified)
        if let m = try DatasetIntegrity.checkNames(manifest: manifest, directory: directory) {
            if !options.allowModifiedData { throw GeocoderError.modifiedFile(file: m.file, expected: m.expected, actual: m.actual) }
            modified.append(m)
        }
        let names = try manifest.names.map { try NamesTable.load(from: url(of: $0)) }
        var placemarks = manifest.role == .overlay ? overlayPlacemarks(raw) : try resolvePlacemarks(raw, partOffset: partOffset)
        if let names { placemarks = placemarks.map { $0.map { Self.addNames(names, to: $0) } } }
        let built = try buildIndexes(raw, placemarks: placemarks, partOffset: partOffset)

        // Finest first: that is the order queries try them. An overlay's layers in the manifest's order.
        let layers = manifest.role == .overlay ? Array(raw.indices) : raw.indices.sorted { raw[$0].spec.level! > raw[$1].spec.level! }
        let info = DatasetInfo(name: manifest.name, title: manifest.title, datum: manifest.datum, priority: manifest.priority,
                               role: manifest.role, source: manifest.source, sourceVersion: manifest.sourceVersion,
                               license: manifest.license, attribution: manifest.attribution,
                               build: manifest.build, directory: directory?.path, layers: layers.map { raw[$0].info },
                               modifiedFiles: modified.isEmpty ? nil : modified, languages: names?.languages)
        return LoadedDataset(manifest: manifest, layers: layers.map { built[$0] }, info: info, cellSize: options.cellSize)
    }

    /// Every layer's records, in parallel (GEOS validity checks dominate loading), each on its own thread
    /// with its own GEOS context: contexts are not thread-safe.
    private func readLayers() throws -> [RawLayer] {
        let specs = manifest.layers
        let results = LoadResults<RawLayer>(count: specs.count)
        // The digests (SHA-256 of every source file: as long as reading a layer's records on the bundled
        // data) on a thread of their own while this one reads, when the process may use a second core.
        let hashAside = (options.buildThreads ?? ReverseGeocoder.usableCores()) > 1
        Workers.perform(iterations: specs.count) { i in
            results.set(i, Result {
                let check: @Sendable () throws -> [ModifiedFile] = { try DatasetIntegrity.check(layer: specs[i], manifest: manifest, directory: directory) }
                let digests = hashAside ? AsideResult(check) : nil
                let records = Result { try read(specs[i]) }
                // The check's verdict comes first, whichever finished first: a changed file is named as
                // changed, not as whatever it breaks.
                let modified = try digests?.value() ?? check()
                if !options.allowModifiedData, let m = modified.first {
                    throw GeocoderError.modifiedFile(file: m.file, expected: m.expected, actual: m.actual)
                }
                var layer = try records.get()
                layer.modified = modified
                return layer
            })
        }
        return try results.values()
    }

    /// Where each layer's parts start among the dataset's (the engine numbers parts across layers).
    private static func partOffsets(_ raw: [RawLayer]) -> [Int] {
        var offset = 0
        return raw.map { layer in
            defer { offset += layer.partCount }
            return offset
        }
    }

    /// An overlay's units as placemarks that carry only the overlay's fields (and the dataset's name):
    /// the query path copies those fields into the admin answer.
    private func overlayPlacemarks(_ raw: [RawLayer]) -> [[Placemark]] {
        raw.map { layer in
            layer.units.map { unit in
                var p = Placemark(dataset: manifest.name)
                for field in DatasetManifest.overlayFields {
                    if let value = unit.values[field.key]?.name { try? field.set(.text(value), in: &p) }  // text into a text field: cannot fail
                }
                return p
            }
        }
    }

    /// Every unit's complete placemark, per layer. Coarse to fine, so a finer layer can borrow a coarser
    /// unit's complete placemark. (Admin datasets: validation guarantees every layer a level.)
    private func resolvePlacemarks(_ raw: [RawLayer], partOffset: Int) throws -> [[Placemark]] {
        let order = raw.indices.sorted { raw[$0].spec.level! < raw[$1].spec.level! }
        let globalOffsets = Self.partOffsets(raw)
        var resolved = [[Placemark]](repeating: [], count: raw.count)
        // Only for units whose record lacks a coarser level: an index of the coarser layer, without cells,
        // made on first need. Its placemarks are not used, only unit numbers.
        var lookups: [Int: LayerIndex] = [:]
        func lookup(_ j: Int) -> LayerIndex {
            if let l = lookups[j] { return l }
            let (parts, partUnit) = Self.flatten(raw[j].units)
            let l = LayerIndex(level: raw[j].spec.level, file: raw[j].spec.file, placemarks: resolved[j],
                               store: PolygonStore(polygons: parts), partUnit: partUnit,
                               partOffset: partOffset + globalOffsets[j], cells: nil)
            lookups[j] = l
            return l
        }
        let context: QueryContext
        do {
            context = try QueryContext(partCount: partOffset + raw.reduce(0) { $0 + $1.partCount })
        } catch { throw GeocoderError.geos("\(manifest.name): \(error)") }
        let hasCityLevel = manifest.layers.contains { $0.level! >= .city && $0.fields[AdminLevel.city.rawValue] != nil }
        let municipalities = Set(manifest.municipalityCodes ?? [])
        let completedBelow = (manifest.completedBelow ?? [:]).compactMap { key, codes in
            AdminLevel(rawValue: key).map { (level: $0, codes: Set(codes)) }
        }
        let definedLevels = AdminLevel.allCases.filter { level in
            manifest.constant(at: level) != nil || manifest.layers.contains { $0.level == level || $0.fields[level.rawValue] != nil }
        }

        for i in order {
            let layer = raw[i]
            var placemarks: [Placemark] = []
            placemarks.reserveCapacity(layer.units.count)
            // Coarser layers already built, finest of them first, for by-code and spatial look-ups.
            let layerLevel = layer.spec.level!
            let coarser = order.prefix { $0 != i }.filter { raw[$0].spec.level! < layerLevel }.reversed()
            let nearestPlaceLevels = AdminLevel.allCases.filter { layer.spec.provenance(of: $0) == .nearestPlace }
            for unit in layer.units {
                var p = Placemark(dataset: manifest.name)
                var borrowed: Placemark?
                // Only the levels the manifest fills: a level no layer or constant names stays empty
                // without a spatial look-up for every unit.
                for level in definedLevels where level <= layerLevel {
                    var value = unit.value(level) ?? (nil, nil)
                    if value.name == nil, let code = value.code,
                       let j = coarser.first(where: { raw[$0].spec.level == level }),
                       let k = resolved[j].firstIndex(where: { $0.code(at: level) == code }) {
                        value.name = resolved[j][k].name(at: level)
                    }
                    if value.name == nil && value.code == nil, let constant = manifest.constant(at: level) {
                        value = (constant.name, constant.code)
                    }
                    if value.name == nil && value.code == nil && level < layerLevel {
                        if borrowed == nil, let j = coarser.first, let largest = unit.parts.max(by: { $0.area < $1.area }),
                           let (x, y) = largest.pointOnSurface(), let k = try locateForHierarchy(lookup(j), x: x, y: y, context) {
                            borrowed = resolved[j][k]
                        }
                        if let b = borrowed { value = (b.name(at: level), b.code(at: level)) }
                    }
                    p.set(level, name: value.name, code: value.code)
                }
                // A unit the dataset answers only down to its own level (`completedBelow`) is answered by
                // its own layer: a finer record inside it would answer instead and hide the levels below.
                for (level, codes) in completedBelow where level < layerLevel {
                    if let code = p.code(at: level), codes.contains(code) {
                        throw GeocoderError.badManifest(file: directory.map { $0.appendingPathComponent("manifest.json").path } ?? manifest.name,
                                                        reason: "completedBelow.\(level.rawValue): \(code) has a record in \(layer.spec.file), finer than \(level.rawValue)")
                    }
                }
                // A populated place is its own city even when named like its admin-1 (Berlin in Berlin,
                // São Paulo): the province-level-city rule is about polygons without a city level.
                if !nearestPlaceLevels.contains(.city) {
                    Self.applyProvinceLevelCity(&p, layerLevel: layerLevel, hasCityLevel: hasCityLevel,
                                                municipalities: municipalities)
                }
                // The distance is the query's (see ReverseGeocoder.answer); 0 marks the kind until then.
                for level in nearestPlaceLevels where p.name(at: level) != nil || p.code(at: level) != nil {
                    p[level].provenance = .nearestPlace(metres: 0)
                }
                placemarks.append(p)
            }
            resolved[i] = placemarks
        }
        return resolved
    }

    /// Each level's names in other languages from the names table, by the level's code. A locality that
    /// repeats its province (Beijing) takes the province's names when the table has none for it as a city.
    private static func addNames(_ table: NamesTable, to placemark: Placemark) -> Placemark {
        var p = placemark
        for level in AdminLevel.allCases {
            guard let code = p.code(at: level) else { continue }
            var names = table.names(at: level, code: code)
            if names.isEmpty, level == .city, p.provenance(at: .city) == .provinceFallback {
                names = table.names(at: .province, code: code)
            }
            // An ISO 3166-2 code names one subdivision at whatever depth ISO puts it: the table lists
            // them all at province level, and a second-level one (FR-75) is a sub-administrative area
            // here. Only ISO codes (with their "-"): other codes (US county FIPS) are not the table's.
            if names.isEmpty, level == .subAdministrativeArea, code.contains("-") {
                names = table.names(at: .province, code: code)
            }
            if !names.isEmpty { p[level].names = names }
        }
        return p
    }

    /// Province-level cities: a unit below province level whose record has no city of its own (or names
    /// the province as its city) shows the province as its locality.
    private static func applyProvinceLevelCity(_ p: inout Placemark, layerLevel: AdminLevel, hasCityLevel: Bool,
                                               municipalities: Set<String>) {
        guard p.administrativeArea != nil else { return }
        let listed = p.administrativeAreaCode.map(municipalities.contains) ?? false
        let noOwnCity = layerLevel >= .city && hasCityLevel &&
            (p.locality == nil || p.localityCode == p.administrativeAreaCode || p.locality == p.administrativeArea)
        if (listed && (p.locality == nil || p.locality == p.administrativeArea)) || noOwnCity {
            p.locality = p.administrativeArea
            p.localityCode = p.administrativeAreaCode
            p.localityIsProvinceFallback = true
        }
    }

    /// The indexes (R-tree and cell quadtree) of all layers, built in parallel.
    private func buildIndexes(_ raw: [RawLayer], placemarks: [[Placemark]], partOffset: Int) throws -> [LayerIndex] {
        let indexes = LoadResults<LayerIndex>(count: raw.count)
        let cellSize = options.cellSize, maxEdges = options.cellMaxEdges, threads = options.buildThreads
        let offsets = Self.partOffsets(raw)
        Workers.perform(iterations: raw.count) { i in
            let (parts, partUnit) = Self.flatten(raw[i].units)
            let store = PolygonStore(polygons: parts)
            let cells: CellIndex?
            do {
                cells = try cellSize.flatMap { (size) throws(GEOSError) in
                    try LayerIndex.buildCells(store: store, partUnit: partUnit, cellSize: size, maxEdges: maxEdges, threads: threads)
                }
            } catch {
                indexes.set(i, .failure(GeocoderError.geos("\(raw[i].spec.file): building the cell index: \(error)")))
                return
            }
            let places = raw[i].spec.place == nil ? nil : PlaceTable(raw[i].units.map { $0.place! })
            indexes.set(i, .success(LayerIndex(level: raw[i].spec.level, file: raw[i].spec.file, placemarks: placemarks[i],
                                               store: store, partUnit: partUnit, partOffset: partOffset + offsets[i],
                                               cells: cells, places: places)))
        }
        return try indexes.values()
    }

    /// A GEOS context for reading one layer (GEOS fails to make one only when out of memory).
    private func loadContext(_ file: String) throws -> GEOSContext {
        do { return try GEOSContext() } catch { throw GeocoderError.geos("\(file): \(error)") }
    }

    /// The unit of a coarser layer holding a point (for a unit whose record lacks that level).
    private func locateForHierarchy(_ layer: LayerIndex, x: Double, y: Double, _ context: QueryContext) throws -> Int? {
        do { return try layer.locate(x: x, y: y, in: context) } catch { throw GeocoderError.geos("\(layer.file): \(error)") }
    }

    private static func flatten(_ units: [Unit]) -> ([Geometry], [Int32]) {
        var parts: [Geometry] = [], partUnit: [Int32] = []
        for (u, unit) in units.enumerated() {
            for part in unit.parts { parts.append(part); partUnit.append(Int32(u)) }
        }
        return (parts, partUnit)
    }

    private func url(of file: String) -> URL { Self.resolve(file, in: directory) }

    /// A manifest's file path: absolute as given, else relative to the manifest's directory.
    static func resolve(_ file: String, in directory: URL?) -> URL {
        if file.hasPrefix("/") || directory == nil { return URL(fileURLWithPath: file) }
        return directory!.appendingPathComponent(file)
    }

    /// A layer's records and what the loader counted in them. The records are read in runs of consecutive
    /// records (``recordRuns(_:workers:)``), by as many workers as there are idle cores, each with its own
    /// shapelib reader and GEOS context (neither is thread-safe); the runs are joined in record order, so the
    /// layer, and the index cache written from it, is the same whatever the number of workers. A bad record
    /// is reported as a one-thread read reports it: the first bad one in record order.
    private func read(_ spec: DatasetManifest.Layer) throws -> RawLayer {
        let shapefile = url(of: spec.file)
        let reader = try ShapefileReader(url: shapefile)
        var warnings: [String] = []
        if case .geographic(let datum)? = try ProjectionFile.read(shapefile: shapefile),
           manifest.datum == .wgs84, !ProjectionFile.isWGS84(datum), !datum.isEmpty {
            warnings.append("\(shapefile.deletingPathExtension().lastPathComponent).prj names datum \"\(datum)\"; used as WGS-84 as the manifest declares")
        }

        // Resolve field names once: for each level (or overlay field), the candidate fields that exist in this file.
        let dbf = reader.fileName.replacingOccurrences(of: ".shp", with: ".dbf")
        func indices(_ list: DatasetManifest.FieldList?) throws -> [Int] {
            guard let list else { return [] }
            let found = list.candidates.compactMap(reader.fieldIndex)
            if found.isEmpty {
                throw GeocoderError.missingField(file: dbf, field: list.candidates.joined(separator: "|"), available: reader.fieldNames)
            }
            return found
        }
        var fields = RecordFields(dbf: dbf)
        for (key, list) in spec.fields {
            fields.levels[key] = (try indices(list.name), try indices(list.code))
        }
        fields.place = try spec.place.map { (latitude: try indices(.init([$0.latitude]))[0], longitude: try indices(.init([$0.longitude]))[0]) }

        let workers = max(1, options.buildThreads ?? Workers.cores)
        let runs = options.recordRuns.map { Self.recordRuns(reader.recordCount, count: $0.count) }
            ?? Self.recordRuns(reader.recordCount, workers: workers)
        let queue = RunQueue(runs: runs.count, lastFirst: options.recordRuns?.lastFirst ?? false)
        let results = LoadResults<RecordRun?>(count: runs.count)
        Workers.perform(iterations: workers, threads: workers) { worker in
            // This worker's reader (the first worker takes the one open) and context, made when it first
            // gets a run: a worker that finds the queue empty makes neither.
            var mine: (reader: ShapefileReader, context: GEOSContext)?
            while let (run, read) = queue.next() {
                // After a failed run: not read (the failure in record order comes before it).
                guard read else { results.set(run, .success(nil)); continue }
                let result = Result { () throws -> RecordRun? in
                    if mine == nil { mine = (worker == 0 ? reader : try reader.sibling(), try loadContext(spec.file)) }
                    return try readRecords(runs[run], spec: spec, fields: fields, reader: mine!.reader, context: mine!.context)
                }
                if case .failure = result { queue.failed(run) }
                results.set(run, result)
            }
        }
        // The runs in record order; the first failure in that order is the first bad record.
        var tally = RecordTally(), units: [Unit] = []
        units.reserveCapacity(reader.recordCount)
        for run in try results.values() {
            guard let run else { preconditionFailure("a run skipped with no failed run before it") }
            tally.add(run.tally)
            units += run.units
        }
        let info = LayerInfo(file: spec.file, level: spec.level, records: reader.recordCount, units: units.count,
                             nullShapes: tally.nullShapes, emptyRecords: tally.emptyRecords, repairedPolygons: tally.repairedPolygons,
                             windingCorrected: tally.rings.windingCorrected, degenerateRings: tally.rings.degenerateRings,
                             antimeridianRecords: tally.rings.antimeridianRecords, polygons: tally.polygons, vertices: tally.vertices,
                             encoding: reader.encodingName, warnings: warnings)
        return RawLayer(spec: spec, units: units, info: info, modified: [])
    }

    /// The runs a layer's records are read in: one for one worker; for more, several runs a worker, so that
    /// a worker slowed by a busy machine (or by a run of large records) leaves the rest to the others.
    static func recordRuns(_ records: Int, workers: Int) -> [Range<Int>] {
        recordRuns(records, count: workers <= 1 ? 1 : min(8 * workers, records / 64))
    }

    /// `records` in `count` runs of consecutive records (at least one run, none empty but for no records).
    static func recordRuns(_ records: Int, count: Int) -> [Range<Int>] {
        let n = max(1, min(count, records))
        return (0..<n).map { k in (records * k / n)..<(records * (k + 1) / n) }
    }

    /// The fields read from each record, by index in the `.dbf`.
    private struct RecordFields {
        var dbf: String
        /// By the manifest layer's `fields` key: the candidate fields present, in the manifest's order.
        var levels: [String: (name: [Int], code: [Int])] = [:]
        var place: (latitude: Int, longitude: Int)?
    }

    /// What the loader counts while reading records, added up over runs.
    private struct RecordTally {
        var nullShapes = 0, emptyRecords = 0, repairedPolygons = 0, polygons = 0, vertices = 0
        var rings = RingAssembler.Statistics()

        mutating func add(_ other: RecordTally) {
            nullShapes += other.nullShapes
            emptyRecords += other.emptyRecords
            repairedPolygons += other.repairedPolygons
            polygons += other.polygons
            vertices += other.vertices
            rings.degenerateRings += other.rings.degenerateRings
            rings.windingCorrected += other.rings.windingCorrected
            rings.antimeridianRecords += other.rings.antimeridianRecords
        }
    }

    /// One run's units, in record order, and its counts.
    private struct RecordRun {
        var units: [Unit]
        var tally: RecordTally
    }

    /// Hands out a layer's runs to its workers, and says which follow a run that failed.
    private final class RunQueue: Sendable {
        private struct State { var next = 0, firstFailed = Int.max }
        private let state = Mutex(State())
        private let count: Int, lastFirst: Bool

        /// `lastFirst`: hand the runs out last to first (tests: a later bad record is then met first).
        init(runs: Int, lastFirst: Bool) {
            count = runs
            self.lastFirst = lastFirst
        }

        /// The next run, each once, and whether to read it: not when a run before it has failed. Nil when
        /// every run has been handed out.
        func next() -> (run: Int, read: Bool)? {
            state.withLock { s in
                guard s.next < count else { return nil }
                let run = lastFirst ? count - 1 - s.next : s.next
                s.next += 1
                return (run, run < s.firstFailed)
            }
        }

        func failed(_ run: Int) { state.withLock { $0.firstFailed = min($0.firstFailed, run) } }
    }

    /// Reads the records of one run with one reader and one context; throws at the run's first bad record.
    private func readRecords(_ records: Range<Int>, spec: DatasetManifest.Layer, fields: RecordFields,
                             reader: ShapefileReader, context loader: GEOSContext) throws -> RecordRun {
        /// A record's place: both fields decimal degrees within range, else an error naming record and field.
        func place(_ record: Int) throws -> Coordinate? {
            guard let placeIndices = fields.place, let spec = spec.place else { return nil }
            func degrees(_ field: Int, _ name: String, limit: Double) throws -> Double {
                let text = try reader.string(record: record, field: field)
                guard let text, let v = Double(text.trimmingCharacters(in: .whitespaces)), abs(v) <= limit else {
                    throw GeocoderError.corrupt(file: fields.dbf, record: record,
                                                reason: "place field \(name) is \(text.map { "\"\($0)\"" } ?? "empty"), not decimal degrees within ±\(Int(limit))")
                }
                return v
            }
            return Coordinate(latitude: try degrees(placeIndices.latitude, spec.latitude, limit: 90),
                              longitude: try degrees(placeIndices.longitude, spec.longitude, limit: 180))
        }

        var tally = RecordTally()
        var units: [Unit] = []
        units.reserveCapacity(records.count)
        for record in records {
            guard let rings = try reader.rings(record: record) else { tally.nullShapes += 1; continue }
            let polygons = RingAssembler.assemble(rings, statistics: &tally.rings)
            var parts: [Geometry] = []
            do throws(GEOSError) {
                for polygon in polygons {
                    let g = try Geometry.polygon(rings: [polygon.shell] + polygon.holes, context: loader)
                    // A simple shell without holes is proved valid without GEOS; GEOS decides the rest.
                    if (polygon.holes.isEmpty && SimpleRingProof.provesValid(polygon.shell)) || g.isValid {
                        parts.append(g)
                    } else {
                        tally.repairedPolygons += 1
                        parts += try g.madeValidPolygons()
                    }
                }
            } catch {
                throw GeocoderError.geos("\(spec.file): record \(record): \(error)")
            }
            if parts.isEmpty { tally.emptyRecords += 1; continue }

            var levels: [String: (name: String?, code: String?)] = [:]
            for (level, fields) in fields.levels {
                var name: String?, code: String?
                for f in fields.name { if let v = try reader.string(record: record, field: f) { name = v; break } }
                for f in fields.code {
                    guard let v = try reader.string(record: record, field: f) else { continue }
                    if level == AdminLevel.country.rawValue && manifest.role == .admin {
                        guard let a2 = CountryCodes.alpha2(v) else { continue }
                        code = a2
                    } else {
                        code = v
                    }
                    break
                }
                levels[level] = (name, code)
            }
            tally.polygons += parts.count
            tally.vertices += parts.reduce(0) { $0 + $1.vertexCount }
            units.append(Unit(values: levels, parts: parts, place: try place(record)))
        }
        return RecordRun(units: units, tally: tally)
    }
}
