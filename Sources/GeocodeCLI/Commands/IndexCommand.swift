import Foundation
import ReverseGeocoder

/// `geocode index`: builds (or checks) the index cache of the data directory, so later commands start
/// in milliseconds, and says where it is; with `--prune`, removes the cache files no data folder can use.
enum IndexCommand: Command {
    static let name = "index"
    static let summary = "Build or refresh the index cache of the data directory (--prune: remove unusable cache files)."
    static let usage = "geocode index [--rebuild] [--data DIR]\ngeocode index --prune"
    static let details = """
        Every command maps the data's index from the cache when it is fresh and rebuilds it when a
        shapefile or manifest changed, so this is never required; run it to pay the one-time build ahead
        of time (an install step, a container image) or, with --rebuild, to throw the cache away.

        The cache lives in $GEOCODE_CACHE_DIR, else $XDG_CACHE_HOME/geocode, else ~/.cache/geocode.
        GEOCODE_CACHE_DIR=off disables it. Each data folder gets its own file (60-85 MB for a bundled
        dataset). Whenever a command writes one, it also removes the files whose data folder no longer
        exists and those no command has loaded for 30 days. `geocode info` shows the directory's size.

        --prune builds nothing: it removes every file of the cache directory that no existing data folder
        can use with this version (its data folder is gone, another index format, damaged, an abandoned
        temporary file) and prints each one with why, then the bytes freed. Files of existing data
        folders stay, however old; files that are not index caches are never touched.

        Exit status: 0 the cache is ready (or pruned), 2 --prune with another option, 4 the data could
        not be loaded, 5 a cache file could not be written or removed (disk full, permission, a file in
        the way), the cache directory cannot be read, or the report could not be printed.

        Examples:
          geocode index
          GEOCODE_CACHE_DIR=/var/cache/geocode geocode index --rebuild
          geocode index --prune
        """
    static let options: [OptionSpec] = [
        OptionSpec("rebuild", help: "delete the cache files first and build them again"),
        OptionSpec("prune", help: "build nothing; remove the cache files no existing data folder can use"),
        .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // `geocode index DIR` means the data in DIR: building the bundled data's cache instead (minutes,
        // then exit 0) would leave DIR's unbuilt without a word.
        try arguments.rejectPositionals(suggesting: OptionSpec.data.long)
        let options = LookupFactory.options(load: .cacheOnly, environment: context.environment)
        guard let cacheDirectory = options.cacheDirectory else {
            throw CLIError(.usage, "the index cache is off (GEOCODE_CACHE_DIR=off)")
        }
        if arguments.flag("prune") { return try prune(cacheDirectory, arguments: arguments, context: context) }
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
        let lookup = try context.openLookup(dataOption: arguments.value("data"), load: .cacheOnly)
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
        // Why each was not written is the engine's warning, printed at load.
        if !unwritten.isEmpty {
            throw .io("index cache not written for \(unwritten.map(\.name).joined(separator: ", ")) (the warning above says why)")
        }
        return .success
    }

    /// `--prune`: removes what no existing data folder can use, says what and why, and the bytes freed.
    private static func prune(_ directory: URL, arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // It loads no data and builds nothing: an option that would (or a data directory it would not
        // look at) is a mistake to say, not to ignore.
        let others = ["rebuild", OptionSpec.skipBrokenDatasets.long, OptionSpec.allowModifiedData.long].filter(arguments.flag)
            + (arguments.value(OptionSpec.data.long) != nil ? [OptionSpec.data.long] : [])
        if let other = others.first {
            throw .usage("--prune takes no --\(other): it removes cache files of every data folder and builds nothing")
        }
        let cache = IndexCacheDirectory(directory)
        let report: IndexCacheDirectory.PruneReport, left: IndexCacheDirectory.Summary
        do {
            report = try cache.prune()
            left = try cache.summary()
        } catch {
            throw IndexCacheText.unreadable(directory, error)
        }
        var out = ""
        for r in report.removed { out += "removed \(r.path) (\(IndexCacheText.megabytes(r.bytes))): \(r.reason)\n" }
        if !left.exists && report.removed.isEmpty {
            out += "nothing to remove: \(directory.path) does not exist\n"
        } else if report.removed.isEmpty {
            out += "nothing to remove; \(directory.path) holds \(IndexCacheText.contents(left))\n"
        } else {
            let count = report.removed.count
            out += "freed \(IndexCacheText.megabytes(report.bytesFreed)) (\(report.bytesFreed) bytes) in \(count) file\(count == 1 ? "" : "s"); "
                + "\(directory.path) holds \(IndexCacheText.contents(left))\n"
        }
        try context.stdout.emit(out)
        for f in report.failures { context.stderr.write("geocode: cannot remove \(f.path): \(f.reason)\n") }
        if let first = report.failures.first {
            throw .io("\(report.failures.count) cache file\(report.failures.count == 1 ? "" : "s") not removed (\(first.path): \(first.reason))")
        }
        return .success
    }
}
