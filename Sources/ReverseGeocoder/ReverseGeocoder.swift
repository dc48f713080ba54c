import Foundation
import Synchronization

/// Answers "which administrative units contain this point?" from boundary shapefiles, offline and exactly.
///
/// Load once, then query from any number of threads:
///
/// ```swift
/// import ReverseGeocoder
///
/// let geocoder = try ReverseGeocoder(directory: URL(fileURLWithPath: "Data"))
/// if let p = try geocoder.placemark(for: Coordinate(latitude: 39.9087, longitude: 116.3975)) {
///     print(p.country ?? "", p.administrativeArea ?? "", p.locality ?? "", p.subLocality ?? "")
///     // 中国 北京市 北京市 东城区   (p.localityIsProvinceFallback == true)
/// }
/// ```
///
/// How a query is answered:
/// 1. Admin datasets are tried in ascending ``DatasetManifest/priority``; the first that has a unit
///    containing the point answers (e.g. a detailed China dataset before a world one). Then every
///    overlay dataset (``DatasetManifest/Role/overlay``: time zones) fills its fields into that answer,
///    each field from the first overlay by priority that has it.
/// 2. The point is converted to the dataset's datum (WGS-84, GCJ-02 or BD-09) per query: a handful of
///    floating-point operations, cheaper than keeping a converted copy of every vertex, and exact with
///    respect to the source polygons.
/// 3. Within a dataset, the finest layer containing the point answers with that unit's placemark (its
///    coarser levels were resolved at load).
/// 4. Containment is decided by GEOS prepared geometries over the R-tree's candidates. A point exactly on
///    a border shared by several units resolves to the one that comes first in its file (see
///    `LayerIndex.locate`): always exactly one, never none.
///
/// GCJ-02 only exists inside China. A GCJ-02 or BD-09 query point that falls outside every loaded GCJ-02
/// dataset is taken to be outside China and looked up in WGS-84 datasets unshifted, which is more exact
/// near China's borders than the formula's own rectangle.
public final class ReverseGeocoder: Sendable {
    let loaded: [LoadedDataset]
    /// The query path's view of `loaded` in raw memory, without reference counting (measured: half a
    /// query's time went to retaining and releasing the dataset, layer, array and context objects it
    /// walks through). The objects are kept alive by `loaded`.
    private struct HotDataset {
        var reach: Box
        var datum: Datum
        var layers: Range<Int>
        /// The dataset's WGS84Grid, if any (kept alive by `loaded`).
        var grid: Unmanaged<WGS84Grid>?
        var mask: Unmanaged<EmptyMask>?
        /// Set for a dataset whose index cache is checked as queries read it (kept alive by `loaded`).
        var firstUse: Unmanaged<DatasetFirstUse>?
        /// The dataset's index in `loaded` (admin and overlay datasets are there in one list).
        var loaded: Int
    }
    /// The admin datasets, by priority.
    nonisolated(unsafe) private let hotDatasets: UnsafeMutableBufferPointer<HotDataset>
    /// The overlay datasets (time zones), by priority: each consulted after the admin answer.
    nonisolated(unsafe) private let hotOverlays: UnsafeMutableBufferPointer<HotDataset>
    /// A layer on the query path, and where its units' placemarks start in each thread's own table.
    private struct HotLayer {
        var layer: Unmanaged<LayerIndex>
        var placemarkBase: Int
        /// The layer's places, when its levels are the nearest place (kept alive by `layer`).
        var places: Unmanaged<PlaceTable>?
        /// Whether a time zone may move this admin layer's answers across a border (its dataset has a
        /// `borderAccuracy` and ``Options/refinesBordersByTimeZone`` is on).
        var refinesBorder = false
        /// Whether some unit of this layer is one its dataset answers only down to the layer's level
        /// (the manifest's `completedBelow`; China's province layer, for Taiwan): its answers go through
        /// ``completedAnswer(layer:unit:at:in:query:datum:context:)``. One flag read by every answer.
        var completes = false
    }
    nonisolated(unsafe) private let hotLayers: UnsafeMutableBufferPointer<HotLayer>
    /// Internal (not private) so tests can reach a thread's context.
    let contexts: ContextRegistry
    /// The datasets loaded, in the order they are consulted, with their load statistics. After a query
    /// found an index cache damaged (``Options/verifyOnFirstUse``), the datasets of the engine that
    /// replaced this one (the damaged dataset's `cacheStatus` says "rebuilt (damaged: …)").
    public var datasets: [DatasetInfo] { replacement?.datasets ?? ownDatasets }
    private let ownDatasets: [DatasetInfo]
    /// What the load let pass that a user should hear about: datasets skipped under
    /// ``Options/skipBrokenDatasets``, files that differ from their manifest under
    /// ``Options/allowModifiedData``, index caches found damaged (and rebuilt), index caches that could
    /// not be written (every load builds those datasets again). Empty after a clean load. After a query
    /// found an index cache damaged (``Options/verifyOnFirstUse``), also the line that says so, then what
    /// the engine that replaced this one said of its own load: it checks every other cache whole, so a
    /// second damaged one is found there (and rebuilt). Each fact once: what that load let pass again (a
    /// skipped dataset, a modified file) is not repeated. Only ever appended to: a lookup that says
    /// warnings as they come compares the count.
    public var warnings: [String] {
        guard let replacement else { return ownWarnings }
        let (line, unremoved) = replacementWarning.withLock { $0 }
        let said = ownWarnings + line
        // The replacement loaded the same manifests with the same options: a dataset skipped or a file
        // modified here is so there too, in the same words. A new line (the second damage) is news; but
        // not that the damaged dataset's cache could not be written when its file could not be removed:
        // the damage line already says the next start rebuilds it.
        let covered = unremoved.map { Self.unwrittenPrefix(dataset: $0) }
        return said + replacement.warnings.filter { w in !said.contains(w) && !(covered.map(w.hasPrefix) ?? false) }
    }
    private let ownWarnings: [String]
    /// What the load was asked, to load again when a query finds a cache damaged.
    private let sources: [(manifest: DatasetManifest, directory: URL?)]
    private let options: Options
    /// Whether `replacementEngine` is set: read by every query (one load), so the lock is taken only
    /// after damage was found.
    private let replaced = Atomic<Bool>(false)
    private let replacementEngine = Mutex<ReverseGeocoder?>(nil)
    /// The line a query's damage added, and the dataset whose damaged file could not be removed.
    private let replacementWarning = Mutex<(lines: [String], unremoved: String?)>(([], nil))
    /// Internal, not private, for the unit listing (ReverseGeocoder+AdministrativeUnits.swift).
    var replacement: ReverseGeocoder? { replaced.load(ordering: .acquiring) ? replacementEngine.withLock { $0 } : nil }
    /// Wall time spent loading.
    public let loadTime: Duration
    private let hasChinaDatumDataset: Bool
    /// Internal for the nearest-unit fallback (ReverseGeocoder+NearestUnit.swift), which localizes too.
    let preferredLanguages: [String]
    /// The overlay datasets' names, as `hotOverlays` orders them.
    private let overlayNames: [String]
    /// Per overlay (as `hotOverlays` orders them): the one country of each time zone that has one
    /// (``DatasetManifest/timeZoneCountries``), for the border refinement.
    private let overlayZoneCountries: [[String: String]]
    /// The overlays' ``DatasetManifest/disputedBorders``, each pair as its ``borderKey(_:_:)``.
    private let disputedBorders: Set<String>
    /// Whether some overlay dataset is checked on first use (see ``prepareOverlays(_:datum:context:)``).
    private let overlaysCheckedOnFirstUse: Bool
    /// ``Options/maxDistance``, checked (0: no fallback).
    let maxDistance: Double
    /// Where the fallback would find no unit within `maxDistance` (nil: no fallback), built off the
    /// loading thread (see FarMask).
    let farMask: FarMaskSlot?
    /// What the overlays answer over each far cell (nil: no far mask, or an overlay checked on first
    /// use), built off the loading thread after the far mask (see FarAnswers).
    let farAnswers: FarAnswersSlot?
    /// What `farAnswers` is built from (tests time a build from it).
    let farOverlayInputs: [FarAnswers.Overlay]
    /// Per hot layer: for one whose ``HotLayer/completes`` is set, its level, the codes of its units that
    /// the datasets below complete (the manifest's `completedBelow`) and the dataset the completion walk
    /// starts at; nil for every other layer. Indexed, not searched: a completed answer reads its entry.
    private let layerCompletion: [LayerCompletion?]
    /// Per hot layer: its dataset's `isoCountryCodes` (empty under ``Worldview/dataset``). Internal for the
    /// border refinement's country of a unit (ReverseGeocoder+NearestUnit.swift).
    let layerCountryCodes: [[(level: AdminLevel, codes: [String: String])]]
    /// A layer's index in `hotLayers`, for the paths that reach a layer by object (the nearest unit).
    let hotLayerOf: [ObjectIdentifier: Int]
    /// The language tags of every loaded dataset's names table, sorted (`--lang` is checked against them).
    public let languages: [String]

    /// Whose political view `isoCountryCode` follows.
    public enum Worldview: String, Sendable, CaseIterable {
        /// ISO 3166-1: a unit that a dataset's manifest lists under `isoCountryCodes` gets that code (the
        /// China data's 台湾省, 香港, 澳门 answer TW, HK, MO). Names stay the dataset's.
        case iso3166 = "iso"
        /// The dataset's own codes, as its files write them (台湾省 answers CN).
        case dataset
    }

    deinit {
        hotDatasets.deallocate()
        hotOverlays.deallocate()
        hotLayers.deallocate()
    }

    /// How the engine indexes what it loads.
    public struct Options: Sendable {
        /// Width in degrees of the smallest cells of the per-layer cell quadtree that answers most points
        /// without GEOS; nil turns the quadtree off (every query goes R-tree → GEOS). Smaller cells answer
        /// more points directly but take longer to build and more memory.
        public var cellSize: Double?

        /// Where to keep the index cache (see the README's "Index cache"): a dataset whose cache file there
        /// is fresh is mapped from it in milliseconds instead of being rebuilt from its shapefiles; one
        /// without (or with a stale one) is built and its cache written. nil: no cache. A load that
        /// writes a file also prunes the directory (files of data folders that are gone, or unused for
        /// ``IndexCacheDirectory/unusedLifetime``; see ``IndexCacheDirectory``).
        public var cacheDirectory: URL?

        /// Whether an index loaded from the cache goes into 2 MB memory pages: about 8 % more points per
        /// second over a large index (fewer TLB misses), but the kernel may compact memory first, which
        /// now and then adds tenths of a second to the load. Worth it for many queries, not for one.
        public var hugePages: Bool

        /// Whether a broken dataset is skipped instead of failing the load: a folder of the data directory
        /// that cannot be read, that holds shapefiles without a readable `manifest.json`, or whose files
        /// cannot be loaded. Each skipped one is listed in ``ReverseGeocoder/warnings``. Off by default:
        /// a missing dataset changes the answers (Beijing without its districts), so it is an error.
        public var skipBrokenDatasets: Bool

        /// Whether a source file that differs from its manifest's SHA-256 (checked when an index is
        /// built from the shapefiles) is only a warning, in ``DatasetInfo/modifiedFiles`` and
        /// ``ReverseGeocoder/warnings``, instead of ``GeocoderError/modifiedFile(file:expected:actual:)``.
        public var allowModifiedData: Bool

        /// The languages every answer's names are in where the data has them (BCP 47 tags, most preferred
        /// first; see ``Placemark/localized(to:)`` for the fallback order). Empty: the data's own names.
        /// Applied once per unit, so it costs queries nothing.
        public var preferredLanguages: [String]

        /// Whether an index cache that is mapped (``hugePages`` off) is checked as queries read it instead
        /// of whole at load: each query then proves the few 16 KB blocks and indices it is about to read,
        /// so a start that answers one point reads a few hundred kilobytes of a 60 MB cache instead of all
        /// of it (the CLI's `geocode LAT LON`: 110 ms → 30 ms). Every damaged byte is still found before
        /// it is used; a query that finds one rebuilds that dataset from its shapefiles (the cache file is
        /// replaced) and answers from the rebuilt one. Each query pays a few microseconds for its checks:
        /// for a few queries, not for a batch.
        public var verifyOnFirstUse: Bool

        /// How far (metres) a point that is in no unit of any dataset (at sea, on a coast the data draws a
        /// little inland) may be from a unit and still get it: the nearest unit within this distance
        /// answers, each of its levels flagged ``Placemark/Provenance/nearestUnit(metres:)``. 0 turns the
        /// fallback off (such points answer nil). Default ``defaultMaxDistance``, chosen by measurement
        /// (see the README, "Coasts"). Negative or NaN is ``GeocoderError/invalidOption(name:reason:)``.
        public var maxDistance: Double = Options.defaultMaxDistance
        /// Whether a time zone overlay may correct a generalized dataset's border between two countries:
        /// where the admin answer's country is not the one country of the point's time zone (the overlay's
        /// ``DatasetManifest/timeZoneCountries``: timezone-boundary-builder draws the zones along the
        /// borders of OpenStreetMap, to a hundred metres in the bundled data, where the bundled world
        /// borders are off by up to a few kilometres), the nearest unit of the zone's country within the
        /// dataset's ``DatasetManifest/borderAccuracy`` answers instead, each of its levels flagged
        /// ``Placemark/Provenance/nearestUnit(metres:)`` (downtown El Paso: the United States, not
        /// Mexico). Only datasets that declare a `borderAccuracy` are moved, never across a pair of the
        /// overlay's ``DatasetManifest/disputedBorders``, and only with a unit that near; else the answer
        /// stands. Off: every answer is the polygons' alone, as GEOS would give it on the loaded data.
        public var refinesBordersByTimeZone = true
        /// Edges a border cell below the cell size may hold before it is split again
        /// (``CellIndex/defaultMaxEdges``). Not public: tests make deep trees with fewer. Not part of the
        /// cache's key either, so a test that changes it uses its own cache directory.
        var cellMaxEdges = CellIndex.defaultMaxEdges
        /// Workers per layer for the cell index build; nil: the cores this process may run on. Not public:
        /// tests build with 1 and with several and compare the bytes (the index is the same either way).
        var buildThreads: Int?
        /// Reads each layer's records in this many runs, handed out last to first when `lastFirst` (nil: as
        /// the workers suit). Not public: tests make a later run meet its bad record before an earlier one
        /// does, which two busy cores may or may not do by themselves.
        var recordRuns: (count: Int, lastFirst: Bool)?
        /// Whose view `isoCountryCode` follows: ISO 3166-1 (the default) or the dataset's own.
        /// Applied once per unit, like the languages.
        public var worldview: Worldview
        /// The time the index cache's upkeep goes by: a load marks its file used, and pruning after a write
        /// measures ages (``IndexCacheDirectory``). Not public: tests move it a month on instead of waiting.
        var now: @Sendable () -> Date = { Date() }

        public init(cellSize: Double? = 0.05, cacheDirectory: URL? = nil, hugePages: Bool = true,
                    skipBrokenDatasets: Bool = false, allowModifiedData: Bool = false,
                    preferredLanguages: [String] = [], worldview: Worldview = .iso3166, verifyOnFirstUse: Bool = false) {
            self.worldview = worldview
            self.cellSize = cellSize
            self.cacheDirectory = cacheDirectory
            self.hugePages = hugePages
            self.skipBrokenDatasets = skipBrokenDatasets
            self.allowModifiedData = allowModifiedData
            self.preferredLanguages = preferredLanguages
            self.verifyOnFirstUse = verifyOnFirstUse
        }

        /// The per-user cache directory: `$GEOCODE_CACHE_DIR` (`off` for none), else
        /// `$XDG_CACHE_HOME/geocode`, else `~/.cache/geocode`.
        public static func defaultCacheDirectory(environment env: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
            if let dir = env["GEOCODE_CACHE_DIR"], !dir.isEmpty { return dir == "off" ? nil : URL(fileURLWithPath: dir) }
            if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return URL(fileURLWithPath: xdg).appendingPathComponent("geocode") }
            if let home = env["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home).appendingPathComponent(".cache/geocode") }
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/geocode")
        }
    }

    /// Loads datasets from manifests (relative file paths resolve against each manifest's `directory`).
    public convenience init(manifests: [(manifest: DatasetManifest, directory: URL?)], options: Options = Options()) throws {
        try self.init(manifests: manifests, options: options, skipped: [])
    }

    /// `skipped`: warnings of datasets the directory scan already passed over. `damaged`: why a query found
    /// the cache files of these datasets (by name) damaged, for their `cacheStatus`; the files were removed,
    /// or could not be, and the engine that found them says so (this one does not say it again).
    init(manifests: [(manifest: DatasetManifest, directory: URL?)], options: Options, skipped: [String],
         damaged: [String: String] = [:]) throws {
        let start = ContinuousClock.now
        let checkedMaxDistance = try Self.checked(maxDistance: options.maxDistance)
        var sets: [LoadedDataset] = []
        var infos: [DatasetInfo] = []
        var warnings = skipped
        var offset = 0
        // A writer killed mid-way left its temporary file: no later write would ever replace it.
        if let directory = options.cacheDirectory { CacheTemporaryFile.removeAbandoned(in: directory, now: options.now()) }
        var wroteCache = false
        var unwritten: [(dataset: String, reason: String, seconds: Double)] = []
        for (manifest, directory) in manifests.sorted(by: { $0.manifest.priority < $1.manifest.priority }) {
            let set: LoadedDataset, info: DatasetInfo, wrote: Bool, damage: String?
            let opening = ContinuousClock.now
            do {
                (set, info, wrote, damage) = try Self.open(manifest, directory: directory, options: options, partOffset: offset,
                                                           damaged: damaged[manifest.name])
                wroteCache = wroteCache || wrote
            } catch {
                guard options.skipBrokenDatasets else { throw error }
                warnings.append("skipped dataset \(manifest.name) (\(directory?.path ?? "given in code")): \(error)")
                continue
            }
            // A damaged cache is rebuilt, never trusted; but it is news (a disk or a copy that corrupts files),
            // so it is said, as a damage a query finds later is (``recover(from:dataset:coordinate:datum:)``).
            // A cache that could not be written is too: every load pays the build again (seconds, where a
            // load from the cache takes milliseconds), which nobody would guess from the answers: in the
            // damage's line, or in one line per reason after the loop.
            let buildSeconds = (ContinuousClock.now - opening) / .seconds(1)
            if let damage {
                let unwritten = info.cacheWriteFailure.map {
                    "; " + Self.unwrittenWarning(datasets: [manifest.name], reason: $0, seconds: buildSeconds)
                }
                warnings.append(Self.damageWarning(file: info.cacheFile, reason: damage, dataset: manifest.name) + (unwritten ?? ""))
            } else if let failure = info.cacheWriteFailure {
                unwritten.append((manifest.name, failure, buildSeconds))
            }
            for m in info.modifiedFiles ?? [] {
                warnings.append("\(GeocoderError.modifiedFile(file: m.file, expected: m.expected, actual: m.actual)) (allowed)")
            }
            infos.append(info)
            offset += set.layers.reduce(0) { $0 + $1.store.count }
            sets.append(set)
        }
        // Caches not written for one reason (a cache directory that cannot be made: all of them) in one line.
        var reasons: [String] = []
        for u in unwritten where !reasons.contains(u.reason) { reasons.append(u.reason) }
        for reason in reasons {
            let sets = unwritten.filter { $0.reason == reason }
            warnings.append(Self.unwrittenWarning(datasets: sets.map(\.dataset), reason: reason, seconds: sets.reduce(0) { $0 + $1.seconds }))
        }
        // A build read back from its file left its buffers as spares for the next build; none is next now.
        LargeAllocation.releaseSpares()
        // A write is when the directory grows (tens of megabytes), and a load that wrote took seconds:
        // the moment to remove what can never be used again, for a few milliseconds of reading headers.
        // Not on every load: a one-point start takes 25 ms in all. After the loop, so that no file this
        // load uses is judged while it is still to be loaded.
        if wroteCache, let directory = options.cacheDirectory {
            let used = Set(infos.compactMap { $0.cacheFile.map { URL(fileURLWithPath: $0).lastPathComponent } })
            IndexCacheDirectory(directory).pruneAfterWrite(keeping: used, now: options.now())
        }
        if sets.isEmpty && !warnings.isEmpty {
            throw GeocoderError.badManifest(file: manifests.first?.directory?.deletingLastPathComponent().path ?? "data",
                                            reason: "no dataset could be loaded: " + warnings.joined(separator: "; "))
        }
        loaded = sets
        ownDatasets = infos
        ownWarnings = warnings
        sources = manifests
        self.options = options
        let admins = sets.filter { $0.manifest.role == .admin }, overlays = sets.filter { $0.manifest.role == .overlay }
        func buffer(_ count: Int) -> UnsafeMutableBufferPointer<HotDataset> {
            UnsafeMutableBufferPointer(rebasing: UnsafeMutableBufferPointer<HotDataset>.allocate(capacity: max(1, count))[0..<count])
        }
        hotDatasets = buffer(admins.count)
        hotOverlays = buffer(overlays.count)
        hotLayers = .allocate(capacity: max(1, sets.reduce(0) { $0 + $1.layers.count }))
        var next = 0, placemarkCount = 0
        var completion: [LayerCompletion?] = []
        let allSets = sets  // as `loaded` orders them: what recover(from:dataset:) is given
        for (sets, hot) in [(admins, hotDatasets), (overlays, hotOverlays)] {
            for (i, set) in sets.enumerated() {
                for layer in set.layers {
                    hotLayers[next] = HotLayer(layer: Unmanaged.passUnretained(layer), placemarkBase: placemarkCount,
                                               places: layer.hotPlaces,
                                               refinesBorder: options.refinesBordersByTimeZone && set.manifest.role == .admin
                                                   && (set.manifest.borderAccuracy ?? 0) > 0)
                    // (Only an admin dataset's: an overlay has no levels, its manifest may not list any.)
                    if set.manifest.role == .admin, let level = layer.level,
                       let codes = set.manifest.completedBelow?[level.rawValue], !codes.isEmpty {
                        hotLayers[next].completes = true
                        // The walk starts at the admin dataset after this one (`i` is its index in `hot`).
                        completion.append(LayerCompletion(level: level, codes: Set(codes), walkFrom: i + 1))
                    } else {
                        completion.append(nil)
                    }
                    placemarkCount += layer.unitCount
                    next += 1
                }
                hot[i] = HotDataset(reach: set.reach, datum: set.datum, layers: (next - set.layers.count)..<next,
                                    grid: set.wgsGrid.map { Unmanaged.passUnretained($0) },
                                    mask: set.emptyMask.flatMap { $0.provesAnything ? Unmanaged.passUnretained($0) : nil },
                                    firstUse: set.firstUse.map { Unmanaged.passUnretained($0) },
                                    loaded: allSets.firstIndex { $0 === set }!)
            }
        }
        layerCompletion = completion
        overlayNames = overlays.map(\.manifest.name)
        overlayZoneCountries = overlays.map { $0.manifest.timeZoneCountries ?? [:] }
        disputedBorders = Set(overlays.flatMap { $0.manifest.disputedBorders ?? [] }.compactMap { pair in
            pair.count == 2 ? Self.borderKey(pair[0], pair[1]) : nil
        })
        overlaysCheckedOnFirstUse = overlays.contains { $0.firstUse != nil }
        contexts = ContextRegistry(partCount: offset, placemarkCount: placemarkCount, overlayCount: overlays.count)
        hasChinaDatumDataset = sets.contains { $0.manifest.datum != .wgs84 }
        preferredLanguages = options.preferredLanguages
        maxDistance = checkedMaxDistance
        let adminLayers = admins.flatMap(\.layers)
        // Not for a load checked on first use: the mask reads every admin layer's cells, which such a load
        // has not checked (and a one-point start would pay its 0.2 s of CPU for nothing).
        farMask = checkedMaxDistance > 0 && !admins.isEmpty && !admins.contains(where: { $0.firstUse != nil })
            ? FarMaskSlot { FarMask.build(layers: adminLayers, metres: checkedMaxDistance) } : nil
        // The overlays as the query path reads them (hotOverlays' order), for their answers over far cells.
        var farOverlays: [FarAnswers.Overlay] = []  // (kept in `farOverlayInputs` for tests)
        for o in 0..<overlays.count {
            var layers: [(layer: LayerIndex, placemarkBase: Int)] = []
            for l in hotOverlays[o].layers { layers.append((hotLayers[l].layer.takeUnretainedValue(), hotLayers[l].placemarkBase)) }
            farOverlays.append(FarAnswers.Overlay(reach: hotOverlays[o].reach, layers: layers))
        }
        farOverlayInputs = farOverlays
        farAnswers = farMask.flatMap { mask in
            overlays.contains { $0.firstUse != nil } ? nil : FarAnswersSlot { [farOverlays] in
                mask.built().map { FarAnswers.build(mask: $0, overlays: farOverlays) }
            }
        }
        // In hotLayers' order: admin datasets, then overlays.
        layerCountryCodes = (admins + overlays).flatMap { set in
            let codes = options.worldview == .dataset ? [] : (set.manifest.isoCountryCodes ?? [:])
                .compactMap { key, map in AdminLevel(rawValue: key).map { (level: $0, codes: map) } }
                .sorted { $0.level < $1.level }
            return Array(repeating: codes, count: set.layers.count)
        }
        let ordered = (admins + overlays).flatMap(\.layers)  // hotLayers' order
        hotLayerOf = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { (ObjectIdentifier($0.element), $0.offset) })
        languages = Set(infos.flatMap { $0.languages ?? [] }).sorted()
        loadTime = ContinuousClock.now - start
    }

    /// Waits until the query aids built in the background are ready: the mask of points far from every
    /// unit, which spares sea points the coast fallback's search (about 0.2-0.4 s of CPU for the bundled
    /// data), and each admin layer's edge chunks for that search (``EdgeChunks``, otherwise built when the
    /// fallback first reaches the layer). Answers never depend on them, only their speed: a benchmark or a
    /// server that wants its first queries as fast as the later ones calls this once after the load.
    public func waitUntilReady() {
        _ = farMask?.built()
        _ = farAnswers?.built()
        // The coast fallback's edge chunks (built on its first use otherwise), for the layers whose
        // polygons are checked (a load checked on first use builds them once the fallback has checked).
        guard maxDistance > 0 else { return }
        for set in loaded where set.manifest.role == .admin {
            for layer in set.layers where layer.firstUse == nil || layer.firstUse?.tree != nil {
                layer.edgeChunks.wait(store: layer.store, partUnit: layer.partUnit)
            }
        }
    }

    /// Loads every dataset in a data directory: each subdirectory (or the directory itself) holding a
    /// `manifest.json`.
    /// A folder that cannot be read, or that holds shapefiles but no readable `manifest.json`, is an error
    /// (``GeocoderError/brokenDataset(directory:reason:)``) unless ``Options/skipBrokenDatasets`` is set;
    /// folders without shapefiles or manifest (`LICENSES/`) are not datasets and are passed over.
    public convenience init(directory: URL, options: Options = Options()) throws {
        let scan = try DatasetDirectory.scan(directory, skipBroken: options.skipBrokenDatasets)
        try self.init(manifests: scan.manifests, options: options, skipped: scan.skipped)
    }

    /// The manifests in a data directory: its own `manifest.json` and its subdirectories'. A broken
    /// dataset folder is an error, as for ``init(directory:options:)``.
    public static func manifests(in directory: URL) throws -> [(manifest: DatasetManifest, directory: URL?)] {
        try DatasetDirectory.scan(directory, skipBroken: false).manifests
    }

    /// One dataset, from its cache when that is fresh, else built from its shapefiles (and cached).
    private static func open(_ manifest: DatasetManifest, directory: URL?, options: Options,
                             partOffset: Int, damaged: String? = nil) throws
        -> (LoadedDataset, DatasetInfo, wroteCache: Bool, damage: String?) {
        try manifest.validate(file: directory?.appendingPathComponent("manifest.json").path ?? manifest.name)
        var cacheFile: String?, cacheStatus: String?, writeFailure: String?, damage: String?
        var set: LoadedDataset?
        let cache = options.cacheDirectory.map {
            IndexCache(directory: $0, hugePages: options.hugePages, verifyOnFirstUse: options.verifyOnFirstUse, now: options.now)
        }
        var wrote = false
        if let cache {
            cacheFile = cache.file(for: manifest, directory: directory, cellSize: options.cellSize).path
            switch try cache.load(manifest: manifest, directory: directory, cellSize: options.cellSize, partOffset: partOffset) {
            case .success(let s):
                // Built from files that differed from the manifest, under allowModifiedData: the sources
                // have not changed since (else the cache would be stale), so they still differ.
                if !options.allowModifiedData, let m = s.info.modifiedFiles?.first {
                    throw GeocoderError.modifiedFile(file: m.file, expected: m.expected, actual: m.actual)
                }
                set = s
                cacheStatus = "loaded"
            case .failure(.absent) where damaged != nil, .failure(.damaged) where damaged != nil:
                // The damage a query found (``recover(from:dataset:coordinate:datum:)``): its file removed, or
                // met again when it could not be. The engine that found it says it, once, in its words.
                cacheStatus = "rebuilt (damaged: \(damaged!))"
            case .failure(let miss):
                cacheStatus = "rebuilt (\(miss))"
                if case .damaged(let why) = miss { damage = why }
            }
        }
        if set == nil {
            try checkBuildMemory(manifest, directory: directory)
            let built = try DatasetLoader(manifest: manifest, directory: directory, options: options).load(partOffset: partOffset)
            if let cache {
                do {
                    try cache.write(built, manifest: manifest, directory: directory, cellSize: options.cellSize)
                    wrote = true
                } catch {
                    writeFailure = "\(error)"
                    cacheStatus! += "; not written: \(writeFailure!)"
                }
            }
            set = wrote && !options.hugePages
                ? Self.readBack(built, cache: cache!, manifest: manifest, directory: directory, options: options,
                                partOffset: partOffset)
                : built
        }
        var info = set!.info
        info.cacheFile = cacheFile
        info.cacheStatus = cacheStatus
        info.cacheWriteFailure = writeFailure
        return (set!, info, wrote, damage)
    }

    /// The dataset as the file just written holds it, mapped as every later start will map it; `built` when
    /// the file cannot be read back (the next start rebuilds it and says why). Only for a mapped load
    /// (``Options/hugePages`` off): a copy in 2 MB pages would hold as much memory as the build, and cost
    /// a copy.
    ///
    /// Why not keep what was built: its arrays are private memory that stays beside the next dataset's
    /// build, so a first run held every dataset's build at once (the bundled four: 600 MB, for one point).
    /// The mapped file is the page cache's, which the write filled anyway; the build's large buffers go to
    /// ``LargeAllocation``'s spares, which the next dataset's build takes instead of fresh pages; and the
    /// first run answers from the same bytes every later run answers from.
    private static func readBack(_ built: LoadedDataset, cache: IndexCache, manifest: DatasetManifest, directory: URL?,
                                 options: Options, partOffset: Int) -> LoadedDataset {
        guard case .success(let loaded)? = try? cache.load(manifest: manifest, directory: directory, cellSize: options.cellSize,
                                                           partOffset: partOffset) else { return built }
        return loaded
    }

    /// The warning for datasets whose index caches could not be written, for one reason: why, and what
    /// it costs every load.
    static func unwrittenWarning(datasets: [String], reason: String, seconds: Double) -> String {
        let one = datasets.count == 1
        return "index cache not written for \(datasets.joined(separator: ", ")): \(reason); building \(one ? "it" : "them") took "
            + String(format: "%.1f s", seconds) + ", which every load will pay again until \(one ? "its cache" : "they") can be written"
    }

    /// How ``unwrittenWarning(datasets:reason:seconds:)`` begins for one dataset.
    static func unwrittenPrefix(dataset: String) -> String { "index cache not written for \(dataset): " }

    /// The warning for an index cache found damaged, at load or by a query: the file, why, and that the
    /// dataset was rebuilt from its shapefiles. `notRemoved`: why a query could not remove the file (the
    /// errno text), so that the user knows the next start will meet it and rebuild again.
    static func damageWarning(file: String?, reason: String, dataset: String, notRemoved: String? = nil) -> String {
        let line = "index cache \(file ?? dataset) was damaged (\(reason)); dataset \(dataset) rebuilt"
        guard let notRemoved else { return line }
        return line + ", but the file could not be removed (\(notRemoved)): the next start will find it damaged and rebuild it again"
    }

    /// Fails before a build that would not fit in memory (see ``MemoryBudget``), naming the dataset.
    private static func checkBuildMemory(_ manifest: DatasetManifest, directory: URL?) throws {
        var shp = 0, dbf = 0
        for layer in manifest.layers {
            let url = DatasetLoader.resolve(layer.file, in: directory)
            shp += max(0, Int(IndexCache.fileStamp(url.path).size))
            dbf += max(0, Int(IndexCache.fileStamp(url.deletingPathExtension().appendingPathExtension("dbf").path).size))
        }
        try MemoryBudget.check(MemoryBudget.buildEstimate(shp: shp, dbf: dbf), resident: true, dataset: manifest.name,
                               for: "building its index from \(MemoryBudget.megabytes(shp)) of shapefiles")
    }

    /// The index cache files the datasets of a data directory use with these options (existing or
    /// not), e.g. to delete them and force a rebuild. Empty when `options.cacheDirectory` is nil.
    public static func cacheFiles(forDataIn directory: URL, options: Options) throws -> [URL] {
        guard let dir = options.cacheDirectory else { return [] }
        let cache = IndexCache(directory: dir)
        return try manifests(in: directory).map { cache.file(for: $0.manifest, directory: $0.directory, cellSize: options.cellSize) }
    }

    /// Loads shapefiles without a manifest, recognising Natural Earth and GADM files by their fields.
    public convenience init(shapefiles: [URL], options: Options = Options()) throws {
        var manifests: [(manifest: DatasetManifest, directory: URL?)] = []
        for url in shapefiles {
            guard let m = try DatasetManifest.detect(shapefile: url) else {
                throw GeocoderError.badManifest(file: url.path, reason: "fields match no preset (Natural Earth, GADM); write a manifest.json")
            }
            manifests.append((m, nil))
        }
        try self.init(manifests: manifests, options: options)
    }

    /// The placemark for a point: the admin unit containing it with what the overlays (time zones) say
    /// there. Where no admin unit contains the point but an overlay does (open sea), a placemark with
    /// only the overlay fields (``Placemark/hasAdministrativeUnit`` false, ``Placemark/dataset`` the
    /// first answering overlay's name, every level nil). nil when nothing loaded contains the point.
    /// Throws ``GeocoderError/invalidCoordinate(_:)`` for a point that is not a coordinate (latitude
    /// outside ±90, longitude outside ±180, NaN): never answered as nil. `placemark(for:)` (WGS-84) and
    /// `placemark(latitude:longitude:datum:)` come with ``PlacemarkProvider``.
    /// Thread-safe; each calling thread uses its own GEOS context and its own copies of the placemarks.
    ///
    /// Throws ``GeocoderError/queryFailed(layer:reason:)`` when GEOS fails to answer (an exception in a
    /// predicate, or no GEOS context for this thread): that is not "no place", and is never reported as
    /// one. A typed throw: on the hot path it costs one flag test.
    public func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        // The query path itself, not a call to it: a wrapper around an internal function cost a call
        // frame (16 instructions of a ~250-instruction query, measured with callgrind).
        guard coordinate.isValid else { throw Self.invalid(coordinate) }
        if replaced.load(ordering: .acquiring) { return try replacementPlacemark(for: coordinate, datum: datum) }
        // The thread's context, unretained (the registry owns it); each use below borrows it without
        // reference counting. Fetched only by the paths that use it (a pthread key lookup, 24 of a
        // query's ~300 instructions, callgrind): a point the empty mask answers never needs it.
        @inline(__always) func threadContext() throws(GeocoderError) -> Unmanaged<QueryContext> {
            do { return try contexts.currentUnmanaged() } catch { throw Self.queryFailed(error, layer: nil) }
        }
        if overlaysCheckedOnFirstUse, let found = try prepareOverlays(coordinate, datum: datum, context: threadContext()) {
            return try recover(from: found.damage, dataset: found.dataset, coordinate: coordinate, datum: datum)
        }
        // Far from every admin unit (most of the sea): the overlays' answer over the whole cell in one load,
        // instead of each admin dataset's mask, the far mask and each overlay's cells (see FarAnswers).
        if let far = farAnswers?.ready() {
            let k = far._withUnsafeGuaranteedRef { $0.combination(x: coordinate.longitude, y: coordinate.latitude) }
            if k == FarAnswers.farOnly {
                // Far, but the overlays differ over the cell: what the path below gives a far point.
                return hotOverlays.isEmpty ? nil : try withOverlays(admin: nil, query: coordinate, datum: datum, context: threadContext())
            }
            if k != 0 { return hotOverlays.isEmpty ? nil : try farPlacemark(k, far, context: threadContext()) }
        }
        switch try AdminUnit.first(in: self, from: 0, coordinate, datum: datum, context: threadContext) {
        case .inGrid(let l, let unit):
            return try answer(layer: l, unit: unit, at: coordinate, in: .wgs84, query: coordinate, datum: datum, context: threadContext())
        case .inLayer(let found):
            return try answer(layer: found.layer, unit: found.unit, at: found.point, in: found.datum,
                              query: coordinate, datum: datum, context: found.context)
        case .damaged(let damage, let dataset):
            return try recover(from: damage, dataset: dataset, coordinate: coordinate, datum: datum)
        case .none:
            break
        }
        // In no unit of any admin dataset: the nearest unit within reach, out of line (the inside path pays
        // a compare for it; see ReverseGeocoder+NearestUnit.swift), with what the overlays say of the point.
        // (Only with admin datasets to search: with the time zones alone it cost 180 instructions a query.)
        // Most such points are far out at sea: one bit says the search would find nothing (see FarMask).
        if maxDistance > 0, !hotDatasets.isEmpty,
           !(farMask?.ready()?._withUnsafeGuaranteedRef { $0.isFar(x: coordinate.longitude, y: coordinate.latitude) } ?? false) {
            let context = try threadContext()
            switch try nearestUnit(coordinate, datum: datum, context: context) {
            case .found(let near):
                return hotOverlays.isEmpty ? near : try addingOverlays(to: near, query: coordinate, datum: datum, context: context)
            case .damaged(let damage, let d):
                return try recover(from: damage, dataset: d, coordinate: coordinate, datum: datum)
            case .none:
                break
            }
        }
        // Else what the overlays know (the time zone at sea), or nil.
        return hotOverlays.isEmpty ? nil : try withOverlays(admin: nil, query: coordinate, datum: datum, context: threadContext())
    }

    /// The unit of hot layer `l` containing `c` (in the layer's datum), a GEOS failure as the public error.
    @inline(__always)
    private func locate(_ c: Coordinate, layer l: Int, context: Unmanaged<QueryContext>) throws(GeocoderError) -> Int? {
        do {
            return try context.withGuaranteedRef { (context) throws(GEOSError) in
                try hotLayers[l].layer.withGuaranteedRef { (layer) throws(GEOSError) in
                    try layer.locate(x: c.longitude, y: c.latitude, in: context)
                }
            }
        } catch {
            throw Self.queryFailed(error, layer: hotLayers[l].layer.takeUnretainedValue().file)
        }
    }

    /// For overlays checked on first use (``Options/verifyOnFirstUse``): proves, before any answer path
    /// reads them, what the overlay lookups of this point will read: the mask word, each layer's cells
    /// and crossing lists, the unit's placemark. The first damage found, with its dataset's index in
    /// `loaded`; nil when all is sound. Walks as ``overlaySlot(_:_:datum:context:)`` does. Out of line:
    /// only a load for a few queries gets here.
    @inline(never)
    private func prepareOverlays(_ coordinate: Coordinate, datum: Datum,
                                 context: Unmanaged<QueryContext>) throws(GeocoderError) -> (damage: IndexCache.CacheDamage, dataset: Int)? {
        for o in 0..<hotOverlays.count {
            let set = hotOverlays[o]
            guard let check = set.firstUse?.takeUnretainedValue(),
                  !set.reach.excludes(x: coordinate.longitude, y: coordinate.latitude) else { continue }
            let c = datum == set.datum ? coordinate : Datum.convert(coordinate, from: datum, to: set.datum)
            if let mask = set.mask?.takeUnretainedValue() {
                if let damage = check.prepareMask(mask, x: c.longitude, y: c.latitude) { return (damage, set.loaded) }
                if mask.isEmpty(x: c.longitude, y: c.latitude) { continue }
            }
            for l in set.layers {
                let layer = hotLayers[l].layer.takeUnretainedValue()
                if let damage = check.prepareLayer(l - set.layers.lowerBound, layer, x: c.longitude, y: c.latitude) { return (damage, set.loaded) }
                guard let unit = try locate(c, layer: l, context: context) else { continue }
                if let damage = check.preparePlacemark(layer: l - set.layers.lowerBound, unit: unit) { return (damage, set.loaded) }
                break
            }
        }
        return nil
    }

    /// For a dataset checked on first use: decodes (once) the placemark an answer returns.
    @inline(__always)
    private func preparePlacemark(_ set: HotDataset, layer: Int, unit: Int) -> IndexCache.CacheDamage? {
        guard let check = set.firstUse else { return nil }
        return check._withUnsafeGuaranteedRef { $0.preparePlacemark(layer: layer, unit: unit) }
    }

    /// A query found the index cache of dataset `s` (its index in `loaded`) damaged before using the
    /// damaged bytes: its file is removed (when it cannot be, the warning says why), the engine is loaded
    /// again (that dataset rebuilt from its shapefiles and its cache written again, the others from their
    /// caches), and this and every later query are answered by the new engine. Out of line: never reached
    /// on an intact cache.
    @inline(never)
    private func recover(from damage: IndexCache.CacheDamage, dataset s: Int, coordinate: Coordinate,
                         datum: Datum) throws(GeocoderError) -> Placemark? {
        do {
            try replacementEngine.withLock { (engine) throws in
                guard engine == nil else { return }
                let file = loaded[s].firstUse?.file
                let notRemoved = file.flatMap(IndexCacheDirectory.removeDamaged)
                var again = options
                again.verifyOnFirstUse = false  // checked whole now: a second damage would be a second rebuild
                engine = try ReverseGeocoder(manifests: sources, options: again, skipped: [],
                                             damaged: [loaded[s].manifest.name: damage.reason])
                let name = loaded[s].manifest.name
                replacementWarning.withLock {
                    $0 = ([Self.damageWarning(file: file, reason: damage.reason, dataset: name, notRemoved: notRemoved)],
                          notRemoved == nil ? nil : name)
                }
            }
        } catch let error as GeocoderError {
            throw error
        } catch {
            throw GeocoderError.brokenDataset(directory: ownDatasets[s].directory ?? loaded[s].manifest.name, reason: "\(error)")
        }
        replaced.store(true, ordering: .releasing)
        return try replacementPlacemark(for: coordinate, datum: datum)
    }

    @inline(never)
    private func replacementPlacemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        try replacementEngine.withLock { $0 }!.placemark(for: coordinate, datum: datum)
    }

    /// An invalid coordinate, as the public error. Out of line, like ``queryFailed(_:layer:)``: building
    /// the error is not the query path's business.
    @inline(never)
    private static func invalid(_ coordinate: Coordinate) -> GeocoderError {
        .invalidCoordinate(coordinate)
    }

    /// A GEOS failure during a query, as the public error. Out of line: only reached when GEOS failed.
    @inline(never)
    private static func queryFailed(_ error: GEOSError, layer: String?) -> GeocoderError {
        .queryFailed(layer: layer, reason: error.description)
    }

    /// The answer for an admin unit: the calling thread's copy of its placemark, combined with what the
    /// overlays say about the point, with this query's nearest-place distance. `c` is the point in the
    /// dataset's datum `cDatum` (for the distance, converted to WGS-84 only then: the GCJ-02 inversion
    /// costs some 1,500 instructions, six times a whole query), `query` and `datum` the point as asked
    /// (for the overlays).
    @inline(__always)
    private func answer(layer l: Int, unit: Int, at c: Coordinate, in cDatum: Datum, query: Coordinate, datum: Datum,
                        context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark {
        // No overlay and no places: the thread's copy as it is, inline. The general path below, with the
        // overlays' lookups inlined into it, is a large function whose frame and spills cost an answer
        // more than the copy itself.
        // A layer whose units may need the datasets below (China's province layer): out of line.
        if hotLayers[l].completes {
            return try completedAnswer(layer: l, unit: unit, at: c, in: cDatum, query: query, datum: datum, context: context)
        }
        if hotOverlays.isEmpty && hotLayers[l].places == nil { return ownPlacemark(layer: l, unit: unit, context: context) }
        return try answerWithExtras(layer: l, unit: unit, at: c, in: cDatum, query: query, datum: datum, context: context)
    }

    /// The answer for a unit of a layer that ``HotLayer/completes``: for a unit its dataset answers only
    /// down to its own level (the manifest's `completedBelow`: Taiwan in the China data), the levels below
    /// that level are the next admin dataset's (by priority) that has a unit containing the point (the
    /// GeoNames places: the city Taipei, its distance; the sub-administrative area), with their names,
    /// codes and provenance; the levels down to it, the overlays' fields and `dataset` stay this answer's.
    /// No such dataset: the levels below stay empty. Out of line: only such a layer's answers come here
    /// (China's province layer answers where no district contains the point). Each combination of this
    /// answer and the lower unit is made once per thread and kept (``QueryContext/completed``).
    @inline(never)
    private func completedAnswer(layer l: Int, unit: Int, at c: Coordinate, in cDatum: Datum, query: Coordinate, datum: Datum,
                                 context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark {
        let own = try answerWithExtras(layer: l, unit: unit, at: c, in: cDatum, query: query, datum: datum, context: context)
        guard let completion = layerCompletion[l], let code = own.code(at: completion.level),
              completion.codes.contains(code) else { return own }
        let level = completion.level
        switch try AdminUnit.first(in: self, from: completion.walkFrom, query, datum: datum, context: { context }) {
        case .none:
            return own
        case .damaged(let damage, let dataset):
            return try recover(from: damage, dataset: dataset, coordinate: query, datum: datum) ?? own
        case .inGrid(let lower, let unit):
            return completed(own, level: level, with: FoundUnit(layer: lower, unit: unit, point: query, datum: .wgs84, context: context))
        case .inLayer(let found):
            return completed(own, level: level, with: found)
        }
    }

    /// ``completedAnswer(layer:unit:at:in:query:datum:context:)``'s answer `own` (of a unit listed at
    /// `level`) with the levels below `level` from the unit `found` of a dataset below.
    private func completed(_ own: Placemark, level: AdminLevel, with found: FoundUnit) -> Placemark {
        let lower = found.layer, unit = found.unit, lc = found.point, lcDatum = found.datum, context = found.context
        let place = hotLayers[lower].places.map { places in places._withUnsafeGuaranteedRef { $0.place(unit) } }
        let point = place == nil ? lc : (lcDatum == .wgs84 ? lc : Datum.convert(lc, from: lcDatum, to: .wgs84))
        // Kept per thread when the distances can be measured when read: the merged placemark carries
        // the lower unit's place, the answer the point. Not when this answer measures a place of its
        // own (a listed unit of a layer of places): then made per query, its distances measured now.
        let keep = !own.hasQueryDistance && !AdminLevel.allCases.contains {
            $0 <= level && own.provenance(at: $0)?.kind == .nearestPlace
        }
        let key = QueryContext.CompletedKey(own: own.storageIdentity, lower: hotLayers[lower].placemarkBase + unit)
        if keep, var made = context._withUnsafeGuaranteedRef({ $0.completed[key] }) {
            if place != nil { made.setNearestPlaceQuery(point) }
            return made
        }
        var below = ownPlacemark(layer: lower, unit: unit, context: context)
        if !keep && place != nil { below.setNearestPlaceQuery(point) }
        var p = own
        for finer in AdminLevel.allCases where finer > level { p[finer] = below[finer] }
        guard keep else { return p }
        if let place { p.setNearestPlace(place) }
        p = p.unshared()
        context._withUnsafeGuaranteedRef { $0.completed[key] = p }
        if place != nil { p.setNearestPlaceQuery(point) }
        return p
    }

    /// A unit an admin dataset has for the point.
    private struct FoundUnit {
        /// Hot layer and unit.
        var layer: Int
        var unit: Int
        /// The point in the layer's datum `datum` (for the answer's distance and the overlays).
        var point: Coordinate
        var datum: Datum
        /// The thread's context, fetched by the walk (the answer uses it).
        var context: Unmanaged<QueryContext>
    }

    /// What the walk over the admin datasets (``AdminUnit/first(in:from:_:datum:context:)``) found. A
    /// grid's unit is its own case, not a ``FoundUnit`` with the query as its point: so each caller has an
    /// answer path for it with the point and datum constant, as the loop had before it was shared. One
    /// merged path cost 3 (China, GCJ-02) to 4 (world) instructions a query in spilled registers (callgrind).
    private enum AdminUnit {
        case none
        /// A unit a dataset's WGS-84 grid gives (hot layer and unit): the point is the query, in WGS-84.
        case inGrid(layer: Int, unit: Int)
        /// A unit a layer's lookup found.
        case inLayer(FoundUnit)
        /// A dataset checked on first use is damaged where the lookup would read (its index in `loaded`).
        case damaged(IndexCache.CacheDamage, dataset: Int)

        /// The first unit containing the point of the admin datasets from `first` on (by priority): each
        /// dataset's reach, WGS-84 grid, empty mask and layers, finest first, with the on-first-use checks
        /// before each read. Without the coast fallback. ``placemark(for:datum:)`` walks from 0,
        /// ``completedAnswer(layer:unit:at:in:query:datum:context:)`` from the dataset after the one that
        /// answered. `context` fetches the thread's context; called only by the paths that use it (a
        /// pthread key lookup, 24 of a query's ~300 instructions, callgrind): a point the empty mask
        /// answers never needs it.
        ///
        /// Inlined into both callers: the query path itself, not a call. `@_transparent`, not
        /// `@inline(__always)`: the optimizer drops the latter for a callee of more than 64 blocks called
        /// from a caller of more than 64, as here (a call: +73 instructions a query on the China districts,
        /// callgrind); `@_transparent` is inlined before optimization, and is not allowed on a class's own
        /// methods: hence a static function here, given the engine.
        @_transparent
        static func first(in g: ReverseGeocoder, from first: Int, _ coordinate: Coordinate, datum: Datum,
                          context threadContext: () throws(GeocoderError) -> Unmanaged<QueryContext>) throws(GeocoderError) -> AdminUnit {
            var missedChina = false
            for s in first..<g.hotDatasets.count {
                let set = g.hotDatasets[s]
                if set.reach.excludes(x: coordinate.longitude, y: coordinate.latitude) {
                    if set.datum != .wgs84 { missedChina = true }  // outside China's data, as surely as a miss
                    continue
                }
                // A WGS-84 point where the whole neighbourhood lands in one unit (or none) of this GCJ-02
                // dataset: answered without the conversion (see WGS84Grid).
                if datum == .wgs84, let grid = set.grid {
                    if let check = set.firstUse, let damage = check._withUnsafeGuaranteedRef({ c in
                        grid._withUnsafeGuaranteedRef { c.prepareGrid($0, x: coordinate.longitude, y: coordinate.latitude) }
                    }) {
                        return .damaged(damage, dataset: set.loaded)
                    }
                    let entry = grid._withUnsafeGuaranteedRef { $0.lookup(x: coordinate.longitude, y: coordinate.latitude) }
                    if entry == .none {
                        missedChina = true
                        continue
                    }
                    if entry != .unknown {
                        if let damage = g.preparePlacemark(set, layer: entry.layer, unit: entry.unit) {
                            return .damaged(damage, dataset: set.loaded)
                        }
                        return .inGrid(layer: set.layers.lowerBound + entry.layer, unit: entry.unit)
                    }
                }
                let c = datum == set.datum ? coordinate : g.convert(coordinate, from: datum, to: set.datum, missedChina: missedChina)
                // Most points in the box but in no unit: one bit says so for every layer (see EmptyMask).
                if let check = set.firstUse, let mask = set.mask, let damage = check._withUnsafeGuaranteedRef({ f in
                    mask._withUnsafeGuaranteedRef { f.prepareMask($0, x: c.longitude, y: c.latitude) }
                }) {
                    return .damaged(damage, dataset: set.loaded)
                }
                let empty = set.mask?._withUnsafeGuaranteedRef { $0.isEmpty(x: c.longitude, y: c.latitude) } ?? false
                if !empty {
                    let context = try threadContext()
                    // Finest layer first: the first that has a unit answers.
                    for l in set.layers {
                        if let check = set.firstUse, let damage = check._withUnsafeGuaranteedRef({ f in
                            g.hotLayers[l].layer._withUnsafeGuaranteedRef { f.prepareLayer(l - set.layers.lowerBound, $0, x: c.longitude, y: c.latitude) }
                        }) {
                            return .damaged(damage, dataset: set.loaded)
                        }
                        let unit = try g.locate(c, layer: l, context: context)
                        if let unit {
                            if let damage = g.preparePlacemark(set, layer: l - set.layers.lowerBound, unit: unit) {
                                return .damaged(damage, dataset: set.loaded)
                            }
                            return .inLayer(FoundUnit(layer: l, unit: unit, point: c, datum: set.datum, context: context))
                        }
                    }
                }
                if set.datum != .wgs84 { missedChina = true }
            }
            return .none
        }
    }

    /// ``answer(layer:unit:at:in:query:datum:context:)`` with overlays or places.
    @inline(never)
    private func answerWithExtras(layer l: Int, unit: Int, at c: Coordinate, in cDatum: Datum, query: Coordinate, datum: Datum,
                                  context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark {
        let hot = hotLayers[l]
        var p = hotOverlays.isEmpty
            ? ownPlacemark(layer: l, unit: unit, context: context)
            : try withOverlays(admin: (l, unit), query: query, datum: datum, context: context)!
        // Per query, outside the shared storage: no copy, no allocation, and no distance measured here: the
        // placemark carries the unit's place (`presented`), the answer the point, measured when read
        // (Placemark.setNearestPlaceQuery). Measuring it on every query cost the haversine's sines and
        // arcsine and a load from the place table, for callers that mostly never read it.
        if hot.places != nil {
            p.setNearestPlaceQuery(cDatum == .wgs84 ? c : Datum.convert(c, from: cDatum, to: .wgs84))
        }
        return p
    }

    /// The calling thread's copy of a unit's placemark (also the coast fallback's starting point, which
    /// then marks its levels: localizing afresh there cost 46,000 instructions an answer, callgrind).
    @inline(__always)
    func ownPlacemark(layer l: Int, unit: Int, context: Unmanaged<QueryContext>) -> Placemark {
        let hot = hotLayers[l]
        return context._withUnsafeGuaranteedRef { context in
            // The closure runs once per thread and unit (the thread's copy is made then): localizing there
            // costs the query path nothing.
            context.placemark(hot.placemarkBase + unit) { presented(layer: l, unit: unit) }
        }
    }

    /// A unit's placemark as every answer shows it: the worldview's country code (``Options/worldview``),
    /// then the preferred languages. Made once per thread and unit on the query path.
    func presented(layer l: Int, unit: Int) -> Placemark {
        var p = hotLayers[l].layer._withUnsafeGuaranteedRef { $0.placemark(unit) }
        if let iso = presentedCountryCode(layer: l, of: p) { p.isoCountryCode = iso }
        var shown = p.localized(to: preferredLanguages)
        // The unit's place, for its answers' distances (measured when read, see answer(layer:unit:...)).
        if let places = hotLayers[l].places { shown.setNearestPlace(places._withUnsafeGuaranteedRef { $0.place(unit) }) }
        return shown
    }

    /// The country code the worldview gives a placemark of hot layer `l` (``Options/worldview``: the
    /// manifest's `isoCountryCodes` by a level's code), or `nil` when it keeps the dataset's own.
    func presentedCountryCode(layer l: Int, of p: Placemark) -> String? {
        presentedCountryCode(layer: l) { p.code(at: $0) }
    }

    /// ``presentedCountryCode(layer:of:)`` from a unit's `code` at each level, for a reader without the
    /// placemark (the unit listing reads codes from the index cache's slots).
    func presentedCountryCode<E: Error>(layer l: Int, code: (AdminLevel) throws(E) -> String?) throws(E) -> String? {
        var iso: String?
        for (level, codes) in layerCountryCodes[l] {
            if let code = try code(level), let mapped = codes[code] { iso = mapped }
        }
        return iso
    }

    /// ``presented(layer:unit:)`` for a layer reached by object.
    func presented(_ layer: LayerIndex, unit: Int) -> Placemark {
        guard let l = hotLayerOf[ObjectIdentifier(layer)] else { return layer.placemark(unit).localized(to: preferredLanguages) }
        return presented(layer: l, unit: unit)
    }

    /// The thread's placemark combining the admin unit (nil: none contains the point) with the unit of
    /// each overlay that contains the point; nil when there is neither. Made on first use of the
    /// combination (``CombinedPlacemarks``), then a hash probe. Internal for tests (the far answers are
    /// checked against it).
    @inline(__always)
    func withOverlays(admin: (layer: Int, unit: Int)?, query: Coordinate, datum: Datum,
                              context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark? {
        // Unretained: the context owns its table. Taken out of the closure as a strong reference, it was
        // retained and released on every query (44 instructions, callgrind).
        let table = context._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.combined) }
        let key = table._withUnsafeGuaranteedRef { $0.key }
        var any = admin != nil
        key[0] = admin.map { Int32(hotLayers[$0.layer].placemarkBase + $0.unit) } ?? -1
        for o in 0..<hotOverlays.count {
            let slot = try overlaySlot(o, query, datum: datum, context: context)
            key[1 + o] = slot
            if slot >= 0 { any = true }
        }
        guard any else { return nil }
        if let entry = table._withUnsafeGuaranteedRef({ $0.lookup() }) {
            let found = table._withUnsafeGuaranteedRef { $0.value(of: entry) }
            let country = table._withUnsafeGuaranteedRef { $0.flag(of: entry) }
            if country == 0 { return found }
            return try movedAcrossBorder(to: country, otherwise: found, query: query, datum: datum, context: context)
        }
        let (made, country) = combine(admin: admin, table: table.takeUnretainedValue())
        if country == 0 { return made }
        return try movedAcrossBorder(to: country, otherwise: made, query: query, datum: datum, context: context)
    }

    /// The border refinement (``Options/refinesBordersByTimeZone``): the nearest unit of the time zone's
    /// country (`country`, as ``borderFlag(_:overlays:)`` packs it) within the datasets' border accuracy,
    /// with the overlays' fields; `otherwise` (the polygons' answer) when none is that near. Out of line
    /// and not cached: only points in the strip between a generalized border and the zones' come here.
    @inline(never)
    private func movedAcrossBorder(to country: Int32, otherwise: Placemark?, query: Coordinate, datum: Datum,
                                   context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark? {
        switch try nearestUnit(query, datum: datum, context: context, country: Self.countryCode(packed: country)) {
        case .found(let near):
            return try addingOverlays(to: near, query: query, datum: datum, context: context)
        case .damaged(let damage, let d):
            return try recover(from: damage, dataset: d, coordinate: query, datum: datum)
        case .none:
            return otherwise
        }
    }

    /// The country an admin answer is to move to: nonzero (the two letters of the ISO code, packed) when
    /// the admin layer ``HotLayer/refinesBorder``, and an overlay's unit for this point is a time zone of
    /// one country (``DatasetManifest/timeZoneCountries``) other than the placemark's, and the two are no
    /// disputed pair. Once per thread and combination (``combine(admin:table:)``).
    private func borderFlag(_ p: Placemark, admin: (layer: Int, unit: Int)?,
                            overlays: [(overlay: Int, placemark: Placemark)]) -> Int32 {
        guard let admin, hotLayers[admin.layer].refinesBorder, let own = p.isoCountryCode else { return 0 }
        for (o, overlay) in overlays {
            guard let zone = overlay.timeZone, let country = overlayZoneCountries[o][zone] else { continue }
            guard country != own, !disputedBorders.contains(Self.borderKey(own, country)) else { return 0 }
            return Self.packed(country)
        }
        return 0
    }

    /// A border's key in `disputedBorders`: its two country codes in order, whichever side asks.
    private static func borderKey(_ a: String, _ b: String) -> String { a < b ? "\(a) \(b)" : "\(b) \(a)" }

    /// An alpha-2 code as the nonzero word the combined placemarks' table keeps (0 for a code that is not
    /// two ASCII letters' bytes: the manifest's check lets none through).
    private static func packed(_ code: String) -> Int32 {
        let bytes = Array(code.utf8)
        return bytes.count == 2 ? Int32(bytes[0]) << 8 | Int32(bytes[1]) : 0
    }

    /// The code ``packed(_:)`` packed.
    private static func countryCode(packed word: Int32) -> String {
        String(decoding: [UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)], as: UTF8.self)
    }

    /// What ``withOverlays(admin:query:datum:context:)`` answers a far point with no admin unit (the
    /// same combined placemark), its overlay slots read from FarAnswers' combination `k` (≥ 1): the
    /// thread's own for `k` once made.
    @inline(__always)
    private func farPlacemark(_ k: Int, _ far: Unmanaged<FarAnswers>, context: Unmanaged<QueryContext>) -> Placemark? {
        let own = context._withUnsafeGuaranteedRef { $0.farPlacemarks + k }
        if let found = own.pointee { return found }
        let made = combinedFarPlacemark(k, far, context: context)
        own.pointee = made
        return made
    }

    /// The combined placemark for far combination `k`, through the thread's table. Once per thread and
    /// combination: out of line.
    @inline(never)
    private func combinedFarPlacemark(_ k: Int, _ far: Unmanaged<FarAnswers>, context: Unmanaged<QueryContext>) -> Placemark? {
        let table = context._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.combined) }
        let key = table._withUnsafeGuaranteedRef { $0.key }
        key[0] = -1
        var any = false
        far._withUnsafeGuaranteedRef { far in
            for o in 0..<hotOverlays.count {
                let slot = far.slot(k, overlay: o)
                key[1 + o] = slot
                if slot >= 0 { any = true }
            }
        }
        guard any else { return nil }
        if let found = table._withUnsafeGuaranteedRef({ $0.find() }) { return found }
        return combine(admin: nil, table: table.takeUnretainedValue()).0
    }

    /// The placemark slot of the overlay unit containing the point, or -1. Internal for tests
    /// (FarAnswers' slots are checked against it).
    @inline(__always)
    func overlaySlot(_ o: Int, _ coordinate: Coordinate, datum: Datum,
                             context: Unmanaged<QueryContext>) throws(GeocoderError) -> Int32 {
        let set = hotOverlays[o]
        if set.reach.excludes(x: coordinate.longitude, y: coordinate.latitude) { return -1 }
        // A GCJ-02 point against a WGS-84 overlay: where the cells agree over every point the conversion
        // could give, that is the answer, without converting (see InverseOffsetBox). Not for an overlay
        // checked on first use: prepareOverlays proved the cells of the converted point, not of the box.
        if datum == .gcj02, set.datum == .wgs84, set.firstUse == nil, !DatumTransform.isOutsideChina(coordinate),
           let slot = slotThroughout(InverseOffsetBox.around(coordinate), layers: set.layers) {
            return slot
        }
        let c = datum == set.datum ? coordinate : Datum.convert(coordinate, from: datum, to: set.datum)
        if set.mask?._withUnsafeGuaranteedRef({ $0.isEmpty(x: c.longitude, y: c.latitude) }) ?? false { return -1 }
        for l in set.layers {
            let unit = try locate(c, layer: l, context: context)
            if let unit { return Int32(hotLayers[l].placemarkBase + unit) }
        }
        return -1
    }

    /// The slot `overlaySlot` finds for every point of `box` (-1: none), or nil when the layers' cells
    /// cannot say it is one answer throughout. Out of line: only GCJ-02 queries with overlays come here.
    @inline(never)
    private func slotThroughout(_ box: Box, layers: Range<Int>) -> Int32? {
        for l in layers {
            switch hotLayers[l].layer._withUnsafeGuaranteedRef({ $0.answer(throughout: box) }) {
            case .unit(let u): return Int32(hotLayers[l].placemarkBase + u)
            case .empty: continue  // no unit of this layer anywhere in the box: the next layer decides
            case .mixed: return nil
            }
        }
        return -1
    }

    /// Makes (and keeps, in the thread's table) the placemark for the combination in `table.key`: the admin
    /// unit's localized placemark, or an empty one named after the first overlay that answered, with
    /// each overlay field the first overlay (by priority) that has it gives. Once per thread and
    /// combination: out of line.
    /// Also returns the combination's ``borderFlag(_:admin:overlays:)``, kept with it in the table.
    @inline(never)
    private func combine(admin: (layer: Int, unit: Int)?, table: CombinedPlacemarks) -> (Placemark, Int32) {
        var overlayPlacemarks: [(overlay: Int, placemark: Placemark)] = []
        for o in 0..<hotOverlays.count where table.key[1 + o] >= 0 {
            let slot = Int(table.key[1 + o])
            for l in hotOverlays[o].layers {
                let hot = hotLayers[l], layer = hot.layer.takeUnretainedValue()
                if slot >= hot.placemarkBase && slot < hot.placemarkBase + layer.unitCount {
                    overlayPlacemarks.append((o, layer.placemark(slot - hot.placemarkBase)))
                }
            }
        }
        var p = admin.map { presented(layer: $0.layer, unit: $0.unit) }
            ?? Placemark(dataset: overlayNames[overlayPlacemarks[0].overlay])
        let country = borderFlag(p, admin: admin, overlays: overlayPlacemarks)
        for field in DatasetManifest.overlayFields {
            guard case .text(nil) = field.value(of: p) else { continue }
            for (_, overlay) in overlayPlacemarks {
                if case .text(let v?) = field.value(of: overlay) {
                    try? field.set(.text(v), in: &p)  // text into a text field: cannot fail
                    break
                }
            }
        }
        let own = p.unshared()
        table.insert(own, flag: country)
        return (own, country)
    }

    /// A placemark found off the query path (the nearest unit) with the overlays' fields for the point.
    /// Out of line and not cached: it is rare, and its distances are the query's own.
    @inline(never)
    private func addingOverlays(to placemark: Placemark, query: Coordinate, datum: Datum,
                                context: Unmanaged<QueryContext>) throws(GeocoderError) -> Placemark {
        var p = placemark
        for o in 0..<hotOverlays.count {
            let slot = Int(try overlaySlot(o, query, datum: datum, context: context))
            guard slot >= 0 else { continue }
            for l in hotOverlays[o].layers {
                let hot = hotLayers[l], layer = hot.layer.takeUnretainedValue()
                guard slot >= hot.placemarkBase && slot < hot.placemarkBase + layer.unitCount else { continue }
                let overlay = layer.placemark(slot - hot.placemarkBase)
                for field in DatasetManifest.overlayFields {
                    guard case .text(nil) = field.value(of: p), case .text(let v?) = field.value(of: overlay) else { continue }
                    try? field.set(.text(v), in: &p)  // text into a text field: cannot fail
                }
            }
        }
        return p
    }

    /// The query point in a dataset's datum. Out of line: inlined, the compiler hoists the BD-09 formula
    /// (a square root, sines) out of the dataset loop and pays it on every query (perf: 5 % of a query).
    @inline(never)
    func convert(_ coordinate: Coordinate, from datum: Datum, to target: Datum, missedChina: Bool) -> Coordinate {
        if target != .wgs84 || datum == .wgs84 || !hasChinaDatumDataset {
            return Datum.convert(coordinate, from: datum, to: target)
        }
        if missedChina {
            // Outside China's data: GCJ-02 is WGS-84 there; only Baidu's own offset remains.
            return datum == .bd09 ? DatumTransform.bd09ToGCJ02(coordinate) : coordinate
        }
        return Datum.convert(coordinate, from: datum, to: .wgs84)
    }
}
