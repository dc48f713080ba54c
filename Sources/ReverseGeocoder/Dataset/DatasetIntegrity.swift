import Foundation

/// Checks a layer's source files (`.shp`, `.shx`, `.dbf`, `.cpg`, `.prj`) against the SHA-256 digests in
/// the manifest's `files`, when the manifest lists them.
///
/// Run only when an index is built from the shapefiles, never at a warm start: the index cache records
/// each source file's size, time and content hash, and any change to a file makes the cache stale, so
/// a cache built from verified files can only be loaded while they are unchanged. A one-digit edit in a
/// `.dbf` (110101 → 110109) otherwise answers wrongly without a word.
enum DatasetIntegrity {
    /// The layer's listed files whose contents differ (a listed file that is gone counts as differing).
    static func check(layer: DatasetManifest.Layer, manifest: DatasetManifest, directory: URL?) throws -> [ModifiedFile] {
        guard let files = manifest.files, !files.isEmpty else { return [] }
        let shp = DatasetLoader.resolve(layer.file, in: directory)
        let base = shp.deletingPathExtension()
        return try ["shp", "shx", "dbf", "cpg", "prj"].compactMap { ext in
            try check(base.appendingPathExtension(ext), files: files, directory: directory)
        }
    }

    /// The manifest's names table, when it differs from its listed digest.
    static func checkNames(manifest: DatasetManifest, directory: URL?) throws -> ModifiedFile? {
        guard let names = manifest.names, let files = manifest.files, !files.isEmpty else { return nil }
        return try check(DatasetLoader.resolve(names, in: directory), files: files, directory: directory)
    }

    private static func check(_ url: URL, files: [String: DatasetManifest.FileDigest], directory: URL?) throws -> ModifiedFile? {
        guard let expected = files[key(of: url, in: directory)]?.sha256?.lowercased() else { return nil }
        let actual: String
        switch FileReading.kind(of: url.path) {
        case .missing: actual = "missing"
        case .unreachable(let reason): throw GeocoderError.cannotOpen(file: url.path, reason: reason)
        case .file, .directory: actual = try SHA256.hex(ofFile: url.path)
        }
        return actual != expected ? ModifiedFile(file: url.path, expected: expected, actual: actual) : nil
    }

    /// A file's key in `files`: its path relative to the manifest's directory, else the path as it is.
    static func key(of url: URL, in directory: URL?) -> String {
        let path = url.standardizedFileURL.path
        guard let directory else { return path }
        let dir = directory.standardizedFileURL.path
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
