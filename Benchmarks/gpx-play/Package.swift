// swift-tools-version:6.0
// The GPX side of Benchmarks/gpx-large.sh: plays a GPX file through GPXPlaybackSource as fast as
// possible and prints what it played, so /usr/bin/time measures the source alone (the CLI's run
// also holds the geocoder's datasets). A package of its own, so the product's Package.swift stays as
// it is; it builds the repository's LocationSources from `../..`.
import PackageDescription

let package = Package(
    name: "gpx-play",
    dependencies: [.package(name: "OfflineGeocoder", path: "../..")],
    targets: [
        .executableTarget(name: "gpx-play", dependencies: [.product(name: "LocationSources", package: "OfflineGeocoder")]),
    ]
)
