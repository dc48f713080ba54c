import Foundation

/// What a `.prj` file says about a shapefile's coordinates.
///
/// The engine works in geographic longitude/latitude and never reprojects: a projected CRS is refused.
/// A geographic CRS on a datum other than WGS-84 is accepted (the manifest declares the datum the
/// coordinates are really in, e.g. GCJ-02, which no `.prj` can name) and noted in the load statistics.
struct ProjectionFile {
    enum Kind: Equatable {
        case geographic(datum: String)
        case projected(name: String)
        case unknown
    }

    /// Reads `<name>.prj` beside the shapefile; nil when there is none (then the manifest's datum holds).
    static func read(shapefile: URL) throws -> Kind? {
        let prj = shapefile.deletingPathExtension().appendingPathExtension("prj")
        guard FileManager.default.fileExists(atPath: prj.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: prj.path) else {
            throw GeocoderError.cannotOpen(file: prj.lastPathComponent, reason: "unreadable")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let kind = parse(text)
        if case .projected(let name) = kind {
            throw GeocoderError.projectedCoordinateSystem(file: prj.lastPathComponent, name: name)
        }
        return kind
    }

    /// Classifies WKT1 (`GEOGCS`/`PROJCS`) and WKT2 (`GEOGCRS`/`GEODCRS`/`PROJCRS`) by its top keyword.
    static func parse(_ wkt: String) -> Kind {
        let upper = wkt.uppercased()
        func quoted(after keyword: String) -> String {
            guard let r = upper.range(of: keyword + "[") else { return "" }
            let rest = wkt[r.upperBound...]
            guard let q1 = rest.firstIndex(of: "\"") else { return "" }
            let after = rest[rest.index(after: q1)...]
            guard let q2 = after.firstIndex(of: "\"") else { return "" }
            return String(after[..<q2])
        }
        if upper.hasPrefix("PROJCS") || upper.hasPrefix("PROJCRS") || upper.hasPrefix("PROJECTEDCRS") {
            return .projected(name: quoted(after: upper.hasPrefix("PROJCS") ? "PROJCS" : (upper.hasPrefix("PROJCRS") ? "PROJCRS" : "PROJECTEDCRS")))
        }
        if upper.hasPrefix("GEOGCS") || upper.hasPrefix("GEOGCRS") || upper.hasPrefix("GEODCRS") || upper.hasPrefix("GEOGRAPHICCRS") {
            let datum = quoted(after: "DATUM")
            return .geographic(datum: datum.isEmpty ? quoted(after: "ENSEMBLE") : datum)
        }
        return .unknown
    }

    /// Whether a datum name is WGS-84 (as ESRI, EPSG and GDAL spell it).
    static func isWGS84(_ datum: String) -> Bool {
        let key = datum.uppercased().filter { $0.isLetter || $0.isNumber }
        return key.contains("WGS1984") || key.contains("WGS84") || key.contains("WORLDGEODETICSYSTEM1984")
    }
}
