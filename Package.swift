// swift-tools-version:6.0
// The whole product depends only on the Swift toolchain and two system libraries (GEOS, shapelib):
// no package from outside can be fetched on the machines this builds on.
import PackageDescription

let package = Package(
    name: "OfflineGeocoder",
    products: [
        .library(name: "ReverseGeocoder", targets: ["ReverseGeocoder"]),
        .library(name: "LocationSources", targets: ["LocationSources"]),
        .library(name: "LocationKit", targets: ["LocationKit"]),
        .executable(name: "geocode", targets: ["geocode"]),
    ],
    targets: [
        // C walls. Only ReverseGeocoder/GEOS and ReverseGeocoder/Shapefile import these.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),

        // Engine: coordinates in, placemarks out.
        .target(name: "ReverseGeocoder", dependencies: ["CGEOS", "CShapelib"]),
        // Positions from receivers and files: parsers (pure) and sources (I/O). Uses only the engine's Coordinate.
        .target(name: "LocationSources", dependencies: ["ReverseGeocoder"]),
        // The CoreLocation-style facade: filters positions, asks the engine, emits events.
        .target(name: "LocationKit", dependencies: ["ReverseGeocoder", "LocationSources"]),
        // The CLI as a library (argument parsing, batch formats, commands) so tests can reach it...
        .target(name: "GeocodeCLI", dependencies: ["ReverseGeocoder", "LocationSources", "LocationKit"]),
        // ...and the thin executable around it.
        .executableTarget(name: "geocode", dependencies: ["GeocodeCLI"]),
        // The engine's side of the benchmark suite (Benchmarks/README.md); not part of `swift test`.
        .executableTarget(name: "geocode-bench", dependencies: ["ReverseGeocoder", "CGEOS"],
                          path: "Benchmarks/Sources/geocode-bench"),

        .testTarget(name: "ReverseGeocoderTests", dependencies: ["ReverseGeocoder", "CShapelib", "CGEOS"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "LocationSourcesTests", dependencies: ["LocationSources"],
                    resources: [.copy("Corpus"), .copy("Fixtures")]),
        .testTarget(name: "LocationKitTests", dependencies: ["LocationKit"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GeocodeCLITests", dependencies: ["GeocodeCLI"], resources: [.copy("Fixtures")]),
    ]
)
