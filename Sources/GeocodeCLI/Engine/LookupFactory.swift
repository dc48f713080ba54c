import Foundation
import ReverseGeocoder

/// Opens the lookup a command uses, given the data directory the user chose (or the default one).
///
/// The one integration point with the engine. The executable passes ``LookupFactory/engine``; the tests
/// pass a stand-in (TestSupport's grid, and its `geocode-testgrid` executable).
public struct LookupFactory: Sendable {
    /// Opens the data in `directory`. Errors are shown to the user as "cannot load data from DIR: …".
    /// `load` says how many points the command will ask (``QueryLoad``); `environment` is the
    /// command's (for `GEOCODE_CACHE_DIR`, `GEOCODE_CELL_SIZE`).
    public let open: @Sendable (_ directory: URL, _ load: QueryLoad, _ environment: [String: String]) throws -> any GeocodeLookup
    /// Whether this factory needs a data directory at all (a stand-in may not).
    public let needsData: Bool

    public init(needsData: Bool = true,
                open: @escaping @Sendable (_ directory: URL, _ load: QueryLoad, _ environment: [String: String]) throws -> any GeocodeLookup) {
        self.open = open
        self.needsData = needsData
    }

    /// The real engine on the data directory, through the index cache (``options(load:environment:)``).
    public static let engine = LookupFactory { directory, load, environment in
        let geocoder = try ReverseGeocoder(directory: directory, options: options(load: load, environment: environment))
        // What the load let pass (skipped datasets, modified files) is said on stderr, every time.
        for warning in geocoder.warnings { Console.standardError.write("geocode: warning: \(warning)\n") }
        return geocoder
    }

    /// Environment variables behind `--skip-broken-datasets` and `--allow-modified-data` (set to 1 by
    /// the flags, so a command passes them to the factory with the rest of its environment).
    public static let skipBrokenVariable = "GEOCODE_SKIP_BROKEN_DATASETS"
    public static let allowModifiedVariable = "GEOCODE_ALLOW_MODIFIED_DATA"
    /// Behind `--lang`: BCP 47 tags, comma-separated, most preferred first (may also be set by the user).
    public static let languageVariable = "GEOCODE_LANG"
    /// Behind `--worldview`: `iso` (default) or `dataset`.
    public static let worldviewVariable = "GEOCODE_WORLDVIEW"
    /// Behind `--borders`: `refined` (default) or `polygons` (``ReverseGeocoder/Options/refinesBordersByTimeZone`` off).
    public static let bordersVariable = "GEOCODE_BORDERS"
    /// The values `--borders` takes.
    public static let borderModes = ["refined", "polygons"]

    /// How a command holds the index cache in memory: `GEOCODE_INDEX_MEMORY`.
    public static let indexMemoryVariable = "GEOCODE_INDEX_MEMORY"

    /// The engine's options for a command: the index cache in `$GEOCODE_CACHE_DIR` (`off` for none), else
    /// the per-user cache directory, with the cell quadtree (the cache makes it cheap to start with).
    /// Without a cache, a single point is answered sooner without building the quadtree.
    /// `GEOCODE_CELL_SIZE` (degrees; 0 turns the quadtree off) overrides the cell size;
    /// `GEOCODE_MAX_DISTANCE` (metres, see ``MaxDistanceOption``) the coast fallback's reach.
    ///
    /// The cache's memory (`GEOCODE_INDEX_MEMORY`):
    /// - one point and a receiver's stream of fixes (``QueryLoad/onePoint``, ``QueryLoad/stream``):
    ///   mapped read-only, and each 16 KB block checked when a query first reads it
    ///   (``ReverseGeocoder/Options/verifyOnFirstUse``): the quickest start and the least memory;
    /// - a batch, by default (`private`): copied into 2 MB pages and checked whole: the fastest rows
    ///   for one process, but each process holds its own copy;
    /// - `shared`: mapped read-only (a batch's checked whole): every process on the machine shares the
    ///   page cache's one copy (what the Spark integration sets: several executors per machine).
    public static func options(load: QueryLoad, environment: [String: String]) -> ReverseGeocoder.Options {
        var options = ReverseGeocoder.Options(cacheDirectory: ReverseGeocoder.Options.defaultCacheDirectory(environment: environment),
                                              hugePages: load == .batch)
        // A copy is read whole anyway, so the engine checks a copied cache whole whatever this says.
        options.verifyOnFirstUse = load == .onePoint || load == .stream
        switch environment[indexMemoryVariable] {
        case "shared": options.hugePages = false
        case "private": options.hugePages = true
        default: break
        }
        if options.cacheDirectory == nil && !load.buildsCellsWithoutCache { options.cellSize = nil }
        if let text = environment["GEOCODE_CELL_SIZE"], let size = Double(text), size >= 0 {
            options.cellSize = size > 0 ? size : nil
        }
        options.skipBrokenDatasets = environment[skipBrokenVariable] == "1"
        options.allowModifiedData = environment[allowModifiedVariable] == "1"
        // Checked by the command line already (GeocodeTool): an unreadable value cannot get here from it.
        if let text = environment[MaxDistanceOption.variable], let m = MaxDistanceOption.metres(text) { options.maxDistance = m }
        options.preferredLanguages = LanguageOption.tags(environment[languageVariable])
        if let view = environment[worldviewVariable].flatMap(ReverseGeocoder.Worldview.init(rawValue:)) { options.worldview = view }
        options.refinesBordersByTimeZone = environment[bordersVariable] != "polygons"
        return options
    }

}
