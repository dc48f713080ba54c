import Foundation

/// What was loaded: one entry per dataset, in the order they are consulted.
public struct DatasetInfo: Sendable, Codable, Equatable {
    public var name: String
    public var title: String?
    public var datum: Datum
    public var priority: Int
    /// Admin units or overlay fields (time zones).
    public var role: DatasetManifest.Role
    public var source: String?
    public var sourceVersion: String?
    public var license: String?
    /// The credit line the licence asks for (the manifest's `attribution`).
    public var attribution: String?
    public var build: String?
    /// Directory the manifest was read from (nil for presets built in code).
    public var directory: String?
    /// Finest layer first.
    public var layers: [LayerInfo]
    /// The index cache file consulted, when ``ReverseGeocoder/Options/cacheDirectory`` is set.
    public var cacheFile: String?
    /// What happened with it: "loaded", or "rebuilt (why)" (with "; not written: why" if writing failed).
    public var cacheStatus: String?
    /// Why the index cache could not be written after a rebuild (nil when it was, or was not needed):
    /// the engine works without it, but the next start rebuilds again.
    public var cacheWriteFailure: String?
    /// Source files whose SHA-256 differs from the manifest's, loaded anyway under
    /// ``ReverseGeocoder/Options/allowModifiedData`` (nil or empty when every listed file matched).
    public var modifiedFiles: [ModifiedFile]?
    /// The language tags of the dataset's names table (`DatasetManifest.names`), sorted; nil without one.
    public var languages: [String]? = nil
}

/// A source file that is not what its manifest says.
public struct ModifiedFile: Sendable, Codable, Equatable {
    /// The file's path.
    public var file: String
    /// The manifest's SHA-256.
    public var expected: String
    /// The file's SHA-256, or "missing".
    public var actual: String
}

/// Load statistics of one shapefile.
public struct LayerInfo: Sendable, Codable, Equatable {
    public var file: String
    /// The records' level; nil for an overlay layer.
    public var level: AdminLevel?
    /// Records in the file.
    public var records: Int
    /// Records loaded as units (records minus skipped ones).
    public var units: Int
    /// NULL shapes skipped.
    public var nullShapes: Int
    /// Records with no usable ring (all degenerate) skipped.
    public var emptyRecords: Int
    /// Polygons GEOS found invalid and `GEOSMakeValid` repaired.
    public var repairedPolygons: Int
    /// Rings whose winding disagreed with their nesting (and were used by nesting).
    public var windingCorrected: Int
    /// Rings with fewer than 3 distinct corners or zero area, dropped.
    public var degenerateRings: Int
    /// Records that cross the antimeridian.
    public var antimeridianRecords: Int
    /// Polygons in the index (a multipolygon record counts each part).
    public var polygons: Int
    public var vertices: Int
    /// Attribute encoding used.
    public var encoding: String
    /// Things worth knowing that did not stop the load (e.g. a `.prj` on another datum).
    public var warnings: [String]
}
