import Foundation
import ReverseGeocoder
import Synchronization

/// The repository's bundled `Data/`, loaded for tests through one index cache per test process.
///
/// Why: the suites that check the bundled data each built the whole index in debug code (four datasets,
/// 4 M vertices), several at once on a 2-core machine: most of the test run. Loads are taken one at a time
/// and share one cache folder, so the first builds and writes each dataset's index and the others map it.
public enum BundledData {
    /// `Data/` of this checkout.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")

    /// The index cache folder every ``geocoder(_:options:)`` of this process shares (its files are
    /// there once a load of the dataset returned).
    public static var cacheDirectory: URL { cache }
    private static let cache = ScratchDirectories.make(prefix: "rg-tests-cache", suffix: String(UUID().uuidString.prefix(8)))
    private static let lock = Mutex<Void>(())

    /// The engine over `Data/` (or one dataset folder of it), with `options` and this process's shared
    /// index cache.
    public static func geocoder(_ dataset: String? = nil, options: ReverseGeocoder.Options = .init()) throws -> ReverseGeocoder {
        var options = options
        options.cacheDirectory = cache
        let dir = dataset.map { directory.appendingPathComponent($0) } ?? directory
        return try lock.withLock { _ in try ReverseGeocoder(directory: dir, options: options) }
    }

    /// The engine over some of `Data/`'s datasets (folder names), e.g. without the localities.
    public static func geocoder(datasets: [String], options: ReverseGeocoder.Options = .init()) throws -> ReverseGeocoder {
        var options = options
        options.cacheDirectory = cache
        let manifests = try datasets.flatMap { try ReverseGeocoder.manifests(in: directory.appendingPathComponent($0)) }
        return try lock.withLock { _ in try ReverseGeocoder(manifests: manifests, options: options) }
    }
}
