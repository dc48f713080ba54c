import Foundation
import ReverseGeocoder

/// The fast path against GEOS on real data: the engine as shipped (cell quadtree and crossing lists)
/// and the engine with the quadtree off (every point R-tree → GEOS prepared geometries, the documented
/// border rule) answer every point of one or more points files; any difference is a failure.
///
/// The suite feeds it uniform random points and the border points of the finest layer (every vertex
/// and every edge midpoint, where the crossing lists must defer to GEOS or agree with it exactly).
struct ExactnessCheck {
    let manifestURL: URL
    let datum: Datum
    let pointFiles: [String]

    init(_ o: Options) throws {
        manifestURL = URL(fileURLWithPath: try o.string("manifest"))
        guard let d = Datum(name: try o.string("datum")) else { throw UsageError("unknown datum") }
        datum = d
        pointFiles = try o.string("points").split(separator: ",").map(String.init)
    }

    func run() throws {
        let manifest = try DatasetManifest.load(from: manifestURL)
        let directory = manifestURL.deletingLastPathComponent()
        let fast = try ReverseGeocoder(manifests: [(manifest: manifest, directory: directory)])
        let geos = try ReverseGeocoder(manifests: [(manifest: manifest, directory: directory)], options: .init(cellSize: nil))
        var files: [[String: Any]] = []
        var total = 0, mismatches = 0
        for path in pointFiles {
            let (xs, ys) = try readPoints(path)
            var found = 0, differ = 0
            var examples: [String] = []
            let t = nowNanos()
            for i in xs.indices {
                let c = Coordinate(latitude: ys[i], longitude: xs[i])
                let a = try fast.placemark(for: c, datum: datum), b = try geos.placemark(for: c, datum: datum)
                if a != nil { found += 1 }
                if a != b {
                    differ += 1
                    if examples.count < 10 {
                        examples.append("(\(ys[i]), \(xs[i])): fast \(a?.subLocalityCode ?? a?.administrativeAreaCode ?? "none"), GEOS \(b?.subLocalityCode ?? b?.administrativeAreaCode ?? "none")")
                    }
                }
            }
            log("\(path): \(xs.count) points, \(found) in a unit, \(differ) differ (\(String(format: "%.1f", Double(nowNanos() - t) / 1e9)) s)")
            files.append(["points": path, "count": xs.count, "found": found, "mismatches": differ, "examples": examples])
            total += xs.count
            mismatches += differ
        }
        try printJSON(["engine": "exactness", "dataset": manifest.name, "points": total, "mismatches": mismatches, "files": files])
    }
}
