import Foundation
import TestSupport
@testable import GeocodeCLI
import ReverseGeocoder

/// A generated CSV with an `id` column, deterministic coordinates all over the grid, some awkward rows
/// (quoted commas, quotes, embedded newlines) and bad rows at known places, so a test can check that output
/// row i belongs to input row i and that every bad row is reported on the right line.
struct LargeCSV {
    let rows: Int

    init(rows: Int) {
        self.rows = rows
    }
    /// Every `badEvery`-th row has a non-numeric latitude.
    let badEvery = 997
    /// Every `multilineEvery`-th row has a name spanning two lines.
    let multilineEvery = 1000

    func isBad(_ i: Int) -> Bool { i % badEvery == 5 }
    func isMultiline(_ i: Int) -> Bool { i % multilineEvery == 7 }

    /// Coordinates from a fixed-seed generator (SplitMix64), printed with 6 decimals.
    func coordinate(_ i: Int) -> (lat: String, lon: String) {
        var z = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let lat = Double(z & 0xFFFF_FFFF) / Double(UInt32.max) * 179.8 - 89.9
        let lon = Double(z >> 32) / Double(UInt32.max) * 359.8 - 179.9
        return (String(format: "%.6f", lat), String(format: "%.6f", lon))
    }

    /// Physical line on which row i (0-based, after the header) starts.
    func line(of i: Int) -> Int {
        // Header is line 1; each earlier multiline row takes one extra line.
        let multilineBefore = i <= 7 ? 0 : (i - 8) / multilineEvery + 1
        return 2 + i + multilineBefore
    }

    func write(to url: URL) throws {
        var text = "id,name,lat,lon\n"
        text.reserveCapacity(rows * 48)
        for i in 0..<rows {
            let (lat, lon) = coordinate(i)
            let name = isMultiline(i) ? "\"line one, \"\"quoted\"\"\nline two\"" : (i % 10 == 3 ? "\"Smith, J\"" : "n\(i)")
            text += "\(i),\(name),\(isBad(i) ? "x\(i)" : lat),\(lon)\n"
        }
        try Data(text.utf8).write(to: url)
    }

    private let grid = GridTestLookup()

    /// What the test grid answers for row i (nil for a bad row or the ocean).
    func expectedPlacemark(_ i: Int) -> Placemark? {
        guard !isBad(i) else { return nil }
        let (lat, lon) = coordinate(i)
        return try! grid.placemark(for: Coordinate(latitude: Double(lat)!, longitude: Double(lon)!), datum: .wgs84)
    }
}
