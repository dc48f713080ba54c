// swift-tools-version:6.0
// The whole product depends only on the Swift toolchain and system libraries (GEOS, shapelib, zlib, zstd):
// no package from outside can be fetched on the machines this builds on.
import PackageDescription
import Foundation

let engineSwiftSettings: [SwiftSetting] = ProcessInfo.processInfo.environment["GEOCODE_DEBUG_ENGINE"] == "1"
    ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "OfflineGeocoder",
    products: [
        .library(name: "GeoModel", targets: ["GeoModel"]),
        .library(name: "ReverseGeocoder", targets: ["ReverseGeocoder"]),
        .library(name: "LocationSources", targets: ["LocationSources"]),
        .library(name: "LocationKit", targets: ["LocationKit"]),
        .executable(name: "geocode", targets: ["geocode"]),
    ],
    targets: [
        // C walls. In the product only ReverseGeocoder/GEOS and ReverseGeocoder/Shapefile import these; the
        // benchmark (geocode-bench, against raw GEOS) and the engine's tests (fixtures, GEOS oracles) do too.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),
        // The third wall: compressed batch input and output. Only GeocodeCLI/Compression imports these.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),

        // The values every other module speaks (Coordinate, Datum, Placemark, the field table, the lookup
        // protocol). No C, no I/O: everything else stands on it.
        .target(name: "GeoModel"),
        // Engine: coordinates in, placemarks out. Conforms to GeoModel's PlacemarkProvider.
        // Optimized even in debug builds: the tests build the bundled datasets' indexes (4 M vertices), which
        // takes 170 s in -Onone code and 20 s in -O, and was most of the CI run. The engine has no `assert`
        // that -O would drop (its checks are `precondition`s). GEOCODE_DEBUG_ENGINE=1 builds it -Onone, for
        // a debugger.
        .target(name: "ReverseGeocoder", dependencies: ["GeoModel", "CGEOS", "CShapelib", "CSHA256", "CHotPath"],
                swiftSettings: engineSwiftSettings),
        // SHA-256 blocks with the CPU's SHA instructions (the source files' manifest digests at an index build).
        .target(name: "CSHA256", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // What the query path needs that Swift cannot say cheaply: Double to Int without the range check, a
        // thread-local slot (our C).
        .target(name: "CHotPath"),
        // Positions from receivers and files: parsers (pure) and sources (I/O). Needs only GeoModel's values.
        .target(name: "LocationSources", dependencies: ["GeoModel"]),
        // The CoreLocation-style facade: filters positions, asks any PlacemarkProvider, emits events.
        .target(name: "LocationKit", dependencies: ["GeoModel", "LocationSources", "CCurlLoader"]),
        // The HTTP reporter's wall to libcurl, loaded with dlopen when first used (not linked: see its header).
        .target(name: "CCurlLoader", linkerSettings: [.linkedLibrary("dl")]),
        // The CLI as a library (argument parsing, batch formats, commands) so tests can reach it...
        .target(name: "GeocodeCLI", dependencies: ["GeoModel", "ReverseGeocoder", "LocationSources", "LocationKit",
                                                  "CZlib", "CZstd"]),
        // ...and the thin executable around it.
        .executableTarget(name: "geocode", dependencies: ["GeocodeCLI"]),

        // Test support, not shipped: the grid test double, and the same CLI with it in place of the engine
        // (so the CLI's binary tests run the real executable code without data files).
        .target(name: "TestSupport", dependencies: ["GeoModel", "ReverseGeocoder", "GeocodeCLI"], path: "Tests/TestSupport"),
        // One thread per piece of test work, run inside the test's task (a failing #expect stays its
        // test's): shared by the suites that block or compute off the cooperative pool.
        .target(name: "TestThreads", path: "Tests/TestThreads"),
        .executableTarget(name: "geocode-testgrid", dependencies: ["GeocodeCLI", "TestSupport"],
                          path: "Tests/TestGridExecutable"),
        // The engine's side of the benchmark suite (Benchmarks/README.md); not part of `swift test`.
        .executableTarget(name: "geocode-bench", dependencies: ["ReverseGeocoder", "CGEOS"],
                          path: "Benchmarks/Sources/geocode-bench"),

        .testTarget(name: "GeoModelTests", dependencies: ["GeoModel"]),
        .testTarget(name: "ReverseGeocoderTests", dependencies: ["GeoModel", "ReverseGeocoder", "CShapelib", "CGEOS", "TestSupport",
                                                                 "TestThreads"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "LocationSourcesTests", dependencies: ["GeoModel", "LocationSources", "TestThreads"],
                    resources: [.copy("Corpus"), .copy("Fixtures")]),
        .testTarget(name: "LocationKitTests", dependencies: ["GeoModel", "LocationKit", "ReverseGeocoder"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "GeocodeCLITests", dependencies: ["GeoModel", "GeocodeCLI", "TestSupport", "geocode-testgrid"],
                    resources: [.copy("Fixtures")]),
    ]
)
