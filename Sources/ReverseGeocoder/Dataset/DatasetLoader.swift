import Foundation

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

    init(manifest: DatasetManifest, layers: [LayerIndex], info: DatasetInfo, wgsGrid: WGS84Grid?, emptyMask: EmptyMask?) {
        self.manifest = manifest
        datum = manifest.datum
        self.layers = layers
        reach = Self.reach(layers)
        self.info = info
        self.wgsGrid = wgsGrid
        self.emptyMask = emptyMask
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

/// Reads the shapefiles a manifest names and resolves every unit's placemark.
///
/// Hierarchy: a unit's coarser levels come from its own fields where the manifest names them; a code
/// without a name is looked up in the coarser layer by code; a level the file does not carry at all is
/// taken from the manifest's constants, else from the coarser layer's unit containing a point inside
/// this unit (GEOS PointOnSurface). All of this happens once at load, so a query returns a ready value.
/// Results written by parallel workers, one slot each, read after they all finish.
final class LoadResults<T>: @unchecked Sendable {
    // @unchecked: each slot is written by exactly one worker, under the lock, and read after the join.
    private var slots: [Result<T, Error>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<T, Error>) { lock.lock(); slots[i] = r; lock.unlock() }
    /// The values in order, or the first error in order.
    func values() throws -> [T] { try slots.map { try $0!.get() } }
}

struct DatasetLoader: Sendable {
    let manifest: DatasetManifest
    let directory: URL?
    let options: ReverseGeocoder.Options

    /// A record's raw attributes and polygons, before hierarchy resolution.
    private struct Unit {
        var levels: [AdminLevel: (name: String?, code: String?)]
        var parts: [Geometry]
    }

    private struct RawLayer {
        var spec: DatasetManifest.Layer
        var units: [Unit]
        var info: LayerInfo
    }

    func load(partOffset: Int) throws -> LoadedDataset {
        // Layers are read in parallel (GEOS validity checks dominate loading), each on its own thread
        // with its own GEOS context: contexts are not thread-safe.
        let specs = manifest.layers
        let results = LoadResults<RawLayer>(count: specs.count)
        DispatchQueue.concurrentPerform(iterations: specs.count) { i in
            results.set(i, Result { try read(specs[i], context: loadContext(specs[i].file)) })
        }
        let raw = try results.values()

        // Resolve coarse to fine so a finer layer can borrow a coarser unit's complete placemark.
        let order = raw.indices.sorted { raw[$0].spec.level < raw[$1].spec.level }
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
            context = try QueryContext(partCount: partOffset + raw.reduce(0) { $0 + $1.units.reduce(0) { $0 + $1.parts.count } })
        } catch { throw GeocoderError.geos("\(manifest.name): \(error)") }
        var offset = 0, globalOffsets = [Int](repeating: 0, count: raw.count)
        for i in raw.indices { globalOffsets[i] = offset; offset += raw[i].units.reduce(0) { $0 + $1.parts.count } }

        let hasCityLevel = manifest.layers.contains { $0.level >= .city && $0.fields[AdminLevel.city.rawValue] != nil }
        let municipalities = Set(manifest.municipalityCodes ?? [])

        for i in order {
            let layer = raw[i]
            var placemarks: [Placemark] = []
            placemarks.reserveCapacity(layer.units.count)
            // Coarser layers already built, finest of them first, for by-code and spatial look-ups.
            let coarser = order.prefix { $0 != i }.filter { raw[$0].spec.level < layer.spec.level }.reversed()
            for unit in layer.units {
                var p = Placemark(dataset: manifest.name)
                var borrowed: Placemark?
                for level in AdminLevel.allCases where level <= layer.spec.level {
                    var value = unit.levels[level] ?? (nil, nil)
                    if value.name == nil, let code = value.code,
                       let j = coarser.first(where: { raw[$0].spec.level == level }),
                       let k = resolved[j].firstIndex(where: { $0.code(at: level) == code }) {
                        value.name = resolved[j][k].name(at: level)
                    }
                    if value.name == nil && value.code == nil, let constant = manifest.constant(at: level) {
                        value = (constant.name, constant.code)
                    }
                    if value.name == nil && value.code == nil && level < layer.spec.level {
                        if borrowed == nil, let j = coarser.first, let largest = unit.parts.max(by: { $0.area < $1.area }),
                           let (x, y) = largest.pointOnSurface(), let k = try locateForHierarchy(lookup(j), x: x, y: y, context) {
                            borrowed = resolved[j][k]
                        }
                        if let b = borrowed { value = (b.name(at: level), b.code(at: level)) }
                    }
                    p.set(level, name: value.name, code: value.code)
                }
                // Province-level cities: a unit below province level whose record has no city of its own
                // (or names the province as its city) shows the province as its locality.
                if p.administrativeArea != nil {
                    let listed = p.administrativeAreaCode.map(municipalities.contains) ?? false
                    let noOwnCity = layer.spec.level >= .city && hasCityLevel &&
                        (p.locality == nil || p.localityCode == p.administrativeAreaCode || p.locality == p.administrativeArea)
                    if (listed && (p.locality == nil || p.locality == p.administrativeArea)) || noOwnCity {
                        p.locality = p.administrativeArea
                        p.localityCode = p.administrativeAreaCode
                        p.localityIsProvinceFallback = true
                    }
                }
                placemarks.append(p)
            }
            resolved[i] = placemarks
        }

        // The indexes (R-tree and cell quadtree) of all layers, built in parallel.
        let indexes = LoadResults<LayerIndex>(count: raw.count)
        let cellSize = options.cellSize
        let placemarksByLayer = resolved, offsets = globalOffsets
        DispatchQueue.concurrentPerform(iterations: raw.count) { i in
            let (parts, partUnit) = Self.flatten(raw[i].units)
            let store = PolygonStore(polygons: parts)
            let cells: CellIndex?
            do {
                cells = try cellSize.flatMap { (size) throws(GEOSError) in try LayerIndex.buildCells(store: store, partUnit: partUnit, cellSize: size) }
            } catch {
                indexes.set(i, .failure(GeocoderError.geos("\(raw[i].spec.file): building the cell index: \(error)")))
                return
            }
            indexes.set(i, .success(LayerIndex(level: raw[i].spec.level, file: raw[i].spec.file, placemarks: placemarksByLayer[i],
                                               store: store, partUnit: partUnit, partOffset: partOffset + offsets[i],
                                               cells: cells)))
        }
        let built = try indexes.values()

        // Finest first: that is the order queries try them.
        let layers = raw.indices.sorted { raw[$0].spec.level > raw[$1].spec.level }
        let info = DatasetInfo(name: manifest.name, title: manifest.title, datum: manifest.datum, priority: manifest.priority,
                               source: manifest.source, sourceVersion: manifest.sourceVersion, license: manifest.license,
                               build: manifest.build, directory: directory?.path, layers: layers.map { raw[$0].info })
        return LoadedDataset(manifest: manifest, layers: layers.map { built[$0] }, info: info, cellSize: options.cellSize)
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

    private func read(_ spec: DatasetManifest.Layer, context loader: GEOSContext) throws -> RawLayer {
        let shapefile = url(of: spec.file)
        let reader = try ShapefileReader(url: shapefile)
        var warnings: [String] = []
        if case .geographic(let datum)? = try ProjectionFile.read(shapefile: shapefile),
           manifest.datum == .wgs84, !ProjectionFile.isWGS84(datum), !datum.isEmpty {
            warnings.append("\(shapefile.deletingPathExtension().lastPathComponent).prj names datum \"\(datum)\"; used as WGS-84 as the manifest declares")
        }

        // Resolve field names once: for each level, the candidate fields that exist in this file.
        var fieldIndices: [AdminLevel: (name: [Int], code: [Int])] = [:]
        for (key, fields) in spec.fields {
            let level = AdminLevel(rawValue: key)!
            func indices(_ list: DatasetManifest.FieldList?) throws -> [Int] {
                guard let list else { return [] }
                let found = list.candidates.compactMap(reader.fieldIndex)
                if found.isEmpty {
                    throw GeocoderError.missingField(file: reader.fileName.replacingOccurrences(of: ".shp", with: ".dbf"),
                                                     field: list.candidates.joined(separator: "|"), available: reader.fieldNames)
                }
                return found
            }
            fieldIndices[level] = (try indices(fields.name), try indices(fields.code))
        }

        var info = LayerInfo(file: spec.file, level: spec.level, records: reader.recordCount, units: 0, nullShapes: 0,
                             emptyRecords: 0, repairedPolygons: 0, windingCorrected: 0, degenerateRings: 0,
                             antimeridianRecords: 0, polygons: 0, vertices: 0, encoding: reader.encodingName, warnings: warnings)
        var stats = RingAssembler.Statistics()
        var units: [Unit] = []
        for record in 0..<reader.recordCount {
            guard let rings = try reader.rings(record: record) else { info.nullShapes += 1; continue }
            let polygons = RingAssembler.assemble(rings, statistics: &stats)
            var parts: [Geometry] = []
            do throws(GEOSError) {
                for polygon in polygons {
                    let g = try Geometry.polygon(rings: [polygon.shell] + polygon.holes, context: loader)
                    if g.isValid {
                        parts.append(g)
                    } else {
                        info.repairedPolygons += 1
                        parts += try g.madeValidPolygons()
                    }
                }
            } catch {
                throw GeocoderError.geos("\(spec.file): record \(record): \(error)")
            }
            if parts.isEmpty { info.emptyRecords += 1; continue }

            var levels: [AdminLevel: (name: String?, code: String?)] = [:]
            for (level, fields) in fieldIndices {
                var name: String?, code: String?
                for f in fields.name { if let v = try reader.string(record: record, field: f) { name = v; break } }
                for f in fields.code {
                    guard let v = try reader.string(record: record, field: f) else { continue }
                    if level == .country {
                        guard let a2 = CountryCodes.alpha2(v) else { continue }
                        code = a2
                    } else {
                        code = v
                    }
                    break
                }
                levels[level] = (name, code)
            }
            info.polygons += parts.count
            info.vertices += parts.reduce(0) { $0 + $1.vertexCount }
            units.append(Unit(levels: levels, parts: parts))
        }
        info.units = units.count
        info.windingCorrected = stats.windingCorrected
        info.degenerateRings = stats.degenerateRings
        info.antimeridianRecords = stats.antimeridianRecords
        return RawLayer(spec: spec, units: units, info: info)
    }
}

extension Placemark {
    mutating func set(_ level: AdminLevel, name: String?, code: String?) {
        switch level {
        case .country: country = name; isoCountryCode = code
        case .province: administrativeArea = name; administrativeAreaCode = code
        case .city: locality = name; localityCode = code
        case .district: subLocality = name; subLocalityCode = code
        }
    }
}
