/// Everything that can go wrong while loading data or asking for a placemark. Each loading case names the
/// file (and record / field where there is one) so a user can find the problem without a debugger.
public enum GeocoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A query point that is not a coordinate: latitude outside ±90, longitude outside ±180, or not finite.
    /// (A valid point in no unit is not an error: the answer is nil.)
    case invalidCoordinate(Coordinate)
    /// A file could not be opened or read.
    case cannotOpen(file: String, reason: String)
    /// A shapefile whose geometry type is not polygon.
    case notPolygonShapefile(file: String, shapeType: String)
    /// The `.prj` declares a projected CRS; the engine needs geographic longitude/latitude.
    case projectedCoordinateSystem(file: String, name: String)
    /// A truncated or corrupt `.shp`, `.shx` or `.dbf` (record is 0-based; nil for the header).
    case corrupt(file: String, record: Int?, reason: String)
    /// `.shp` and `.dbf` disagree on the number of records.
    case recordCountMismatch(shp: String, shpCount: Int, dbf: String, dbfCount: Int)
    /// Attribute bytes that are not valid in the file's declared encoding.
    case undecodableText(file: String, record: Int, field: String, encoding: String)
    /// An encoding named by `.cpg` or the DBF language driver that this system cannot decode.
    case unsupportedEncoding(file: String, encoding: String)
    /// A manifest that cannot be used (bad JSON, unknown level, missing field).
    case badManifest(file: String, reason: String)
    /// A DBF field the manifest names does not exist in the file.
    case missingField(file: String, field: String, available: [String])
    /// GEOS reported an error while loading.
    case geos(String)
    /// A folder of a data directory that looks like a dataset but cannot be used: it cannot be read, or
    /// it holds shapefiles without a readable `manifest.json`. Skipped with a warning under
    /// ``ReverseGeocoder/Options/skipBrokenDatasets``.
    case brokenDataset(directory: String, reason: String)
    /// A source file whose SHA-256 is not the one its manifest lists (`actual` is "missing" for a listed
    /// file that is gone). A warning under ``ReverseGeocoder/Options/allowModifiedData``.
    case modifiedFile(file: String, expected: String, actual: String)
    /// GEOS failed while answering a query: an exception in a predicate (GEOS's value 2, which must not
    /// read as "outside"), or no GEOS context or query point could be made for the calling thread (out
    /// of memory). `layer` is the shapefile of the layer being asked (nil before any layer was).
    case queryFailed(layer: String?, reason: String)
    /// An engine option that has no meaning (e.g. a negative or NaN ``maxDistance``), by its name.
    case invalidOption(name: String, reason: String)
    /// A dataset that does not fit in the memory left to this process (`ulimit -v`, a container's cgroup
    /// limit, the machine's available memory), found before allocating: `needed` and `available` in
    /// bytes, `reason` what needs them and which limit says no.
    case insufficientMemory(dataset: String, needed: Int, available: Int, reason: String)

    public var description: String {
        switch self {
        case let .invalidCoordinate(c):
            return "invalid coordinate: latitude \(c.latitude), longitude \(c.longitude) (latitude must be within ±90, longitude within ±180)"
        case let .cannotOpen(file, reason): return "\(file): cannot open: \(reason)"
        case let .notPolygonShapefile(file, type):
            return "\(file): not a polygon shapefile (shape type \(type)); only Polygon, PolygonZ and PolygonM are supported"
        case let .projectedCoordinateSystem(file, name):
            return "\(file): projected coordinate system \"\(name)\"; reproject to geographic longitude/latitude (e.g. EPSG:4326) first"
        case let .corrupt(file, record, reason):
            if let record { return "\(file): record \(record): \(reason)" }
            return "\(file): \(reason)"
        case let .recordCountMismatch(shp, shpCount, dbf, dbfCount):
            return "\(shp) has \(shpCount) records but \(dbf) has \(dbfCount)"
        case let .undecodableText(file, record, field, encoding):
            return "\(file): record \(record), field \(field): bytes are not valid \(encoding) (add or fix the .cpg file)"
        case let .unsupportedEncoding(file, encoding):
            return "\(file): encoding \"\(encoding)\" is not supported on this system"
        case let .badManifest(file, reason): return "\(file): \(reason)"
        case let .missingField(file, field, available):
            return "\(file): no field \"\(field)\" (fields: \(available.joined(separator: ", ")))"
        case let .geos(message): return "GEOS: \(message)"
        case let .brokenDataset(directory, reason): return "dataset folder \(directory): \(reason)"
        case let .modifiedFile(file, expected, actual):
            return "\(file): contents differ from the manifest (sha256 \(actual), manifest lists \(expected)); "
                + "restore the file, or update the manifest's \"files\" entry if the change is intended"
        case let .queryFailed(layer?, reason): return "\(layer): query failed: GEOS: \(reason)"
        case let .queryFailed(nil, reason): return "query failed: GEOS: \(reason)"
        case let .invalidOption(name, reason): return "option \(name): \(reason)"
        case let .insufficientMemory(dataset, needed, available, reason):
            func mb(_ b: Int) -> String { "\(b) bytes (\((Double(b) / 1_048_576 * 10).rounded() / 10) MB)" }
            return "dataset \(dataset) does not fit in memory: it needs \(mb(needed)), \(mb(available)) are available (\(reason))"
        }
    }
}
