import Foundation
import Testing
import ReverseGeocoder

/// The README's library example, kept compiling and true.
struct ReadmeExampleTests {
    @Test func readmeExample() async throws {
        let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
        let lines: [String] = try await offPool {
            // --- README example (keep in sync) ---
            let geocoder = try ReverseGeocoder(directory: dataDirectory, options: .init(cellSize: nil))
            var out: [String] = []
            // A GPS fix (WGS-84) at Tiananmen.
            if let p = try geocoder.placemark(for: Coordinate(latitude: 39.9087, longitude: 116.3975)) {
                out.append("\(p.country!) \(p.administrativeArea!) \(p.locality!) \(p.subLocality!) fallback=\(p.localityIsProvinceFallback)")
                out.append(p.timeZone ?? "no time zones loaded")
            }
            // The same place as Amap shows it (GCJ-02).
            if let p = try geocoder.placemark(latitude: 39.91013, longitude: 116.40374, datum: .gcj02) {
                out.append(p.subLocality ?? "-")
            }
            // Berlin, from the world dataset.
            if let p = try geocoder.placemark(latitude: 52.5200, longitude: 13.4050) {
                out.append("\(p.isoCountryCode!) \(p.administrativeArea!)")
            }
            // Downtown El Paso, which the generalized world border puts in Mexico: its time zone's country.
            out.append(try geocoder.placemark(latitude: 31.7587, longitude: -106.4869)?.isoCountryCode ?? "-")
            // The Pacific: no administrative unit (with time zones loaded, a placemark with only its zone).
            out.append(try geocoder.placemark(latitude: 0, longitude: -150)?.hasAdministrativeUnit == true ? "land" : "ocean")
            // An invalid coordinate throws.
            do {
                _ = try geocoder.placemark(latitude: 95, longitude: 0)
            } catch {
                out.append("\(error)".hasPrefix("invalid coordinate") ? "invalid" : "other error")
            }
            // --- end of README example ---
            return out
        }
        // Data/timezones (an overlay dataset) gives every answer its zone; without it there is none.
        let hasTimeZones = try ReverseGeocoder.manifests(in: dataDirectory).contains { $0.manifest.role == .overlay }
        #expect(lines == ["中国 北京市 北京市 东城区 fallback=true", hasTimeZones ? "Asia/Shanghai" : "no time zones loaded",
                          "东城区", "DE Berlin", hasTimeZones ? "US" : "MX", "ocean", "invalid"])
    }
}
