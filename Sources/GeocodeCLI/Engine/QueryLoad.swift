/// How many points a command will ask, and how fast: what decides how it holds the index cache
/// (``LookupFactory/options(load:environment:)``).
public enum QueryLoad: Sendable {
    /// One point and exit (`geocode LAT LON`, `info`): the cache mapped read-only, each 16 KB block
    /// checked when a query first reads it; without a cache, no cell quadtree (its build would cost more
    /// than the point).
    case onePoint
    /// Fixes as a receiver gives them, over a long run (`track`): one to ten a second, each costing the
    /// location manager far more than the query. Mapped and checked on first use, as for one point: a
    /// private copy of the caches (about 350 MB for the bundled data) and the check of all of it cost
    /// over a second of CPU at start and hold that memory for the whole run, to save nanoseconds a
    /// query. With the cell quadtree: a replay at `--speed max` asks thousands of points.
    case stream
    /// As many points as the engine can answer (`batch`): copied into 2 MB pages and checked whole at
    /// load, the fastest rows (unless `GEOCODE_INDEX_MEMORY=shared`).
    case batch
    /// No point at all (`index`): each cache built or checked, then mapped, checked whole. A private copy
    /// would be memory held for nothing, and a dataset just built is read back from its file instead of
    /// being kept beside the next one's build (the bundled four: 600 → 330 MB at the peak).
    case cacheOnly

    /// Whether the command asks enough points for the cell quadtree to pay for its build when there is
    /// no cache to load it from.
    var buildsCellsWithoutCache: Bool { self != .onePoint }
}
