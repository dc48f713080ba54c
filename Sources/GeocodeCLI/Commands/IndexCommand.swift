import Foundation
import ReverseGeocoder

/// `geocode index`: builds (or checks) the index cache of the data directory, so later commands start
/// in milliseconds, and says where it is.
enum IndexCommand: Command {
    static let name = "index"
    static let summary = "Build or refresh the index cache of the data directory, and show where it is."
    static let usage = "geocode index [--rebuild] [--data DIR]"
    static let details = """
        Every command maps the data's index from the cache when it is fresh and rebuilds it when a
        shapefile or manifest changed, so this is never required; run it to pay the one-time build ahead
        of time (an install step, a container image) or, with --rebuild, to throw the cache away.

        The cache lives in $GEOCODE_CACHE_DIR, else $XDG_CACHE_HOME/geocode, else ~/.cache/geocode.
        GEOCODE_CACHE_DIR=off disables it.

        Exit status: 0 the cache is ready, 4 the data could not be loaded, 5 a cache file could not
        be written (disk full, permission, a file in the way) or the report could not be printed.

        Examples:
          geocode index
          GEOCODE_CACHE_DIR=/var/cache/geocode geocode index --rebuild
        """
    static let options: [OptionSpec] = [
        OptionSpec("rebuild", help: "delete the cache files first and build them again"),
        .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // `geocode index DIR` means the data in DIR: building the bundled data's cache instead (minutes,
        // then exit 0) would leave DIR's unbuilt without a word.
        try arguments.rejectPositionals(suggesting: OptionSpec.data.long)
        let options = LookupFactory.options(manyQueries: true, environment: context.environment)
        guard options.cacheDirectory != nil else {
            throw CLIError(.usage, "the index cache is off (GEOCODE_CACHE_DIR=off)")
        }
        if arguments.flag("rebuild") && context.lookupFactory.needsData {
            let directory = try context.dataDirectory(option: arguments.value("data"))
            do {
                for file in try ReverseGeocoder.cacheFiles(forDataIn: directory, options: options)
                where FileManager.default.fileExists(atPath: file.path) {
                    try FileManager.default.removeItem(at: file)
                }
            } catch {
                throw CLIError(.dataUnavailable, "cannot remove the index cache: \(error)")
            }
        }
        let lookup = try context.openLookup(dataOption: arguments.value("data"), manyQueries: true)
        let geocoder: any DatasetDescribing = lookup
        var out = ""
        for d in geocoder.datasets {
            let file = d.cacheFile ?? "?"
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int).flatMap { $0 }
            out += "\(d.name): \(file)" + (size.map { String(format: " (%.1f MB)", Double($0) / 1e6) } ?? "")
                + ": \(d.cacheStatus ?? "?")\n"
        }
        let unwritten = geocoder.datasets.filter { $0.cacheWriteFailure != nil }
        if unwritten.isEmpty { out += String(format: "ready in %.2f s\n", ProgressReporter.seconds(geocoder.loadTime)) }
        try context.stdout.emit(out)
        // The point of `index` is the file: without it the next start rebuilds, so say so in the status.
        if let first = unwritten.first {
            throw .io("index cache not written for \(unwritten.map(\.name).joined(separator: ", ")): \(first.cacheWriteFailure!)")
        }
        return .success
    }
}
