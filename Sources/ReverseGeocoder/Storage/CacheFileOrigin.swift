import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a file in the index cache directory is, as far as its own bytes tell: whether it is an index
/// cache at all, of which format, and which data folder it was built from. The pruning rules
/// (``IndexCacheDirectory``) decide from this whether it can ever be used again.
///
/// Only the 64-byte header and the metadata are read (a few kilobytes at the file's end), never the
/// body, so judging a directory of hundred-megabyte files reads almost nothing.
enum CacheFileOrigin: Equatable {
    /// No index cache magic: not ours, never touched.
    case foreign
    /// An index cache written by another format version: this engine can never load it.
    case otherFormat(UInt32)
    /// Our magic and format, but the header or metadata is damaged: every load rejects it.
    case damaged(String)
    /// An index cache of this format, built from the data in these folders (see ``dataFolders(_:)``).
    case builtFrom([String])

    /// Reads an open file of `size` bytes.
    static func read(_ fd: Int32, size: Int) -> CacheFileOrigin {
        var head = [UInt8](repeating: 0, count: IndexCache.headerSize)
        let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard got >= 12 else { return .foreign }
        head.removeSubrange(got...)
        guard let format = head.withUnsafeBytes({ IndexCache.format(ofHeader: $0) }) else { return .foreign }
        guard format == IndexCache.formatVersion else { return .otherFormat(format) }
        do {
            let header = try head.withUnsafeBytes { try IndexCache.header($0) }
            guard header.fileLength == size else {
                throw IndexCache.CacheDamage(reason: "\(size) bytes, expected \(header.fileLength) (truncated?)")
            }
            var bytes = [UInt8](repeating: 0, count: header.metaLength)
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(header.metaOffset)) }
            guard read == header.metaLength else { throw IndexCache.CacheDamage(reason: "metadata unreadable") }
            let meta = try bytes.withUnsafeBytes { try IndexCache.meta($0, header: header) }
            return .builtFrom(dataFolders(meta))
        } catch let damage as IndexCache.CacheDamage {
            return .damaged(damage.reason)
        } catch {
            return .damaged("\(error)")
        }
    }

    /// The folders whose data a cache was built from. The metadata records the manifest's folder as the
    /// load was given it (``DatasetInfo/directory``; the file's name hashes the same folder), and each
    /// source file's standardized path. A dataset given in code has no manifest folder (nil: the
    /// manifests of ``ReverseGeocoder/init(manifests:options:)`` without one, or
    /// ``ReverseGeocoder/init(shapefiles:options:)``): its data folders are then those that hold its
    /// shapefiles, the nearest thing it has, and gone exactly when its shapefiles are.
    static func dataFolders(_ meta: IndexCache.Meta) -> [String] {
        // Only absolute paths: a relative one would be judged against the pruner's working directory.
        if let directory = meta.info.directory, directory.hasPrefix("/") { return [directory] }
        var folders: [String] = []
        for source in meta.sources where source.path.hasSuffix(".shp") && source.path.hasPrefix("/") {
            let folder = URL(fileURLWithPath: source.path).deletingLastPathComponent().path
            if !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }
}
