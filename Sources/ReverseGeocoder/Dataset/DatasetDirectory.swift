import Foundation

/// Finds the datasets of a data directory: the directory's own `manifest.json` and each subfolder's.
///
/// Nothing is skipped without a word. A subfolder is a dataset when it has a `manifest.json`, or when
/// it holds `.shp` files (then its manifest is missing, which is an error). A subfolder that cannot be
/// listed may be a dataset, so it is an error too, named as a permission error when it is one. Any other
/// folder (`LICENSES/`, docs) is not a dataset and is passed over, and so is a folder whose shapefiles
/// are all layers of a manifest found elsewhere in the directory. With `skipBroken`, the broken ones
/// become ``Scan/skipped`` warnings instead of errors, and the rest load.
enum DatasetDirectory {
    struct Scan {
        var manifests: [(manifest: DatasetManifest, directory: URL?)] = []
        /// One line per broken dataset folder that was skipped.
        var skipped: [String] = []
    }

    static func scan(_ directory: URL, skipBroken: Bool) throws -> Scan {
        var scan = Scan()
        func broken(_ error: GeocoderError) throws {
            guard skipBroken else { throw error }
            scan.skipped.append("skipped \(error)")
        }
        // Folders with shapefiles but no manifest, judged once every manifest is known: shapefiles that a
        // manifest elsewhere names as its layers (a dataset keeping them in a subfolder) are no orphans.
        var unlisted: [(folder: URL, shapefiles: [String])] = []
        let children: [String]
        switch FileReading.names(in: directory.path) {
        case .success(let names): children = names
        case .failure(.cannotOpen(_, let reason)):
            throw GeocoderError.cannotOpen(file: directory.path, reason: "not a readable directory (\(reason))")
        case .failure(let error): throw error
        }
        // The directory itself may be a dataset (`--data china/`); then a missing manifest is an error.
        if let found = try dataset(at: directory, names: children, broken: broken, unlisted: &unlisted) { scan.manifests.append(found) }
        for child in children {
            let sub = directory.appendingPathComponent(child)
            switch FileReading.kind(of: sub.path) {
            case .directory: break
            case .missing, .file: continue
            case .unreachable(let reason):
                try broken(.brokenDataset(directory: sub.path, reason: "cannot be examined: \(reason)"))
                continue
            }
            let names: [String]
            switch FileReading.names(in: sub.path) {
            case .success(let n): names = n
            case .failure(let error):
                let reason: String
                if case .cannotOpen(_, let why) = error { reason = why } else { reason = "\(error)" }
                try broken(.brokenDataset(directory: sub.path, reason: "cannot be read: \(reason)"))
                continue
            }
            if let found = try dataset(at: sub, names: names, broken: broken, unlisted: &unlisted) { scan.manifests.append(found) }
        }
        let layers = Set(scan.manifests.flatMap { m in
            m.manifest.layers.map { DatasetLoader.resolve($0.file, in: m.directory).standardizedFileURL.path }
        })
        for (folder, shapefiles) in unlisted {
            let orphans = shapefiles.filter { !layers.contains(folder.appendingPathComponent($0).standardizedFileURL.path) }
            guard !orphans.isEmpty else { continue }
            try broken(.brokenDataset(directory: folder.path,
                                      reason: "has shapefiles (\(orphans.prefix(3).joined(separator: ", "))"
                                          + (orphans.count > 3 ? ", …" : "") + ") but no manifest.json"))
        }
        if scan.manifests.isEmpty && scan.skipped.isEmpty {
            throw GeocoderError.badManifest(file: directory.path, reason: "no manifest.json in it or its subdirectories")
        }
        return scan
    }

    /// The folder's manifest; nil when the folder is not a dataset (no manifest, no shapefiles) or was
    /// skipped as broken.
    private static func dataset(at folder: URL, names: [String], broken: (GeocoderError) throws -> Void,
                                unlisted: inout [(folder: URL, shapefiles: [String])]) throws
        -> (manifest: DatasetManifest, directory: URL?)? {
        let file = folder.appendingPathComponent("manifest.json")
        guard names.contains("manifest.json") else {
            let shapefiles = names.filter { $0.lowercased().hasSuffix(".shp") }
            if !shapefiles.isEmpty { unlisted.append((folder, shapefiles)) }
            return nil
        }
        do {
            return (try DatasetManifest.load(from: file), folder)
        } catch let error as GeocoderError {
            if case .cannotOpen(_, let reason) = error {
                try broken(.brokenDataset(directory: folder.path, reason: "manifest.json cannot be read: \(reason)"))
            } else {
                try broken(error)
            }
            return nil
        }
    }
}
