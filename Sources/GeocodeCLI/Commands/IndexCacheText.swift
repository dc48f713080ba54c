import Foundation
import ReverseGeocoder

/// How `geocode info` and `geocode index --prune` describe the index cache directory, so both say it
/// the same way.
enum IndexCacheText {
    /// `12.3 MB`: the unit every other size the CLI prints uses.
    static func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    /// `4 files, 339.6 MB` (or `1 file, …`).
    static func contents(_ summary: IndexCacheDirectory.Summary) -> String {
        "\(summary.files) file\(summary.files == 1 ? "" : "s"), \(megabytes(summary.bytes))"
    }

    /// The error for a directory that cannot be listed (exit 5), naming it.
    static func unreadable(_ directory: URL, _ error: GeocoderError) -> CLIError {
        if case .cannotOpen(_, let reason) = error {
            return .io("cannot read the index cache directory \(directory.path): \(reason)")
        }
        return .io("cannot read the index cache directory \(directory.path): \(error)")
    }
}
