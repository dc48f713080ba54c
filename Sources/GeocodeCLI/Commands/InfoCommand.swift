import Foundation
import ReverseGeocoder

/// `geocode info`: the datasets in the data directory (names, levels, counts, datum, source, licence),
/// how long they took to load, and the index cache directory's size.
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "Describe the datasets in the data directory, the load time and the index cache."
    static let usage = "geocode info [--json] [--data DIR]"
    static let details = """
        Lists each dataset in the order it is consulted, its files with their level, units, polygons and
        vertices, what loading repaired or skipped, and its index cache file; then the index cache
        directory with its file count and total size (see geocode index --help for what is pruned).

        Exit status: 0 described, 4 the data could not be loaded, 5 the index cache directory cannot
        be read or the report could not be printed.

        Examples:
          geocode info
          geocode info --data ./full-resolution --json
        """
    static let options: [OptionSpec] = [
        OptionSpec("json", short: "j", help: "print JSON"),
        .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        // `geocode info DIR` means the data in DIR: describing the bundled data instead would mislead.
        try arguments.rejectPositionals(suggesting: OptionSpec.data.long)
        let lookup = try context.openLookup(dataOption: arguments.value("data"))
        let geocoder: any DatasetDescribing = lookup
        let seconds = ProgressReporter.seconds(geocoder.loadTime)
        // The directory the engine was given (the same environment, the same rule).
        let cacheDirectory = LookupFactory.options(load: .onePoint, environment: context.environment).cacheDirectory
        var cacheSummary: IndexCacheDirectory.Summary?, cacheError: CLIError?
        if let cacheDirectory {
            do { cacheSummary = try IndexCacheDirectory(cacheDirectory).summary() } catch { cacheError = IndexCacheText.unreadable(cacheDirectory, error) }
        }
        if arguments.flag("json") {
            struct Cache: Encodable { var directory: String; var exists: Bool; var files: Int; var bytes: Int64 }
            struct Info: Encodable { var loadSeconds: Double; var datasets: [DatasetInfo]; var indexCache: Cache? }
            var cache: Cache?
            if let d = cacheDirectory, let c = cacheSummary { cache = Cache(directory: d.path, exists: c.exists, files: c.files, bytes: c.bytes) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(Info(loadSeconds: seconds, datasets: geocoder.datasets, indexCache: cache))) ?? Data()
            try context.stdout.emit(String(decoding: data, as: UTF8.self) + "\n")
            if let cacheError { throw cacheError }
            return .success
        }
        var out = geocoder.datasets.isEmpty ? "no datasets\n" : ""
        for (i, d) in geocoder.datasets.enumerated() {
            out += "\(i + 1). \(d.name)" + (d.title.map { ": \($0)" } ?? "") + "\n"
            out += "   \(d.role.rawValue), datum \(d.datum.rawValue), priority \(d.priority)"
            if let dir = d.directory { out += ", \(dir)" }
            out += "\n"
            if let s = d.source { out += "   source:  \(s)" + (d.sourceVersion.map { " (\($0))" } ?? "") + "\n" }
            if let l = d.license { out += "   licence: \(l)\n" }
            if let a = d.attribution { out += "   attribution: \(a)\n" }
            if let langs = d.languages, !langs.isEmpty {
                out += "   names:   \(langs.count) languages (--lang): \(langs.joined(separator: " "))\n"
            }
            if let file = d.cacheFile { out += "   index cache: \(file) (\(d.cacheStatus ?? "?"))\n" }
            for l in d.layers {
                out += "   \((l.level?.rawValue ?? "overlay").padding(toLength: 9, withPad: " ", startingAt: 0)) \(l.file): \(l.units) units, "
                    + "\(l.polygons) polygons, \(l.vertices) vertices, \(l.encoding)"
                var notes: [String] = []
                if l.nullShapes > 0 { notes.append("\(l.nullShapes) null shapes skipped") }
                if l.emptyRecords > 0 { notes.append("\(l.emptyRecords) empty records skipped") }
                if l.repairedPolygons > 0 { notes.append("\(l.repairedPolygons) invalid polygons repaired") }
                if l.windingCorrected > 0 { notes.append("\(l.windingCorrected) rings with wrong winding") }
                if l.antimeridianRecords > 0 { notes.append("\(l.antimeridianRecords) cross the antimeridian") }
                out += notes.isEmpty ? "\n" : " (\(notes.joined(separator: "; ")))\n"
                for w in l.warnings { out += "     warning: \(w)\n" }
            }
        }
        if let cacheDirectory {
            out += "index cache directory: \(cacheDirectory.path): "
            if let cacheSummary {
                out += cacheSummary.exists ? IndexCacheText.contents(cacheSummary) + "\n" : "does not exist yet\n"
            } else {
                out += "cannot be read\n"
            }
        } else {
            out += "index cache directory: off (GEOCODE_CACHE_DIR=off)\n"
        }
        out += String(format: "loaded in %.2f s\n", seconds)
        try context.stdout.emit(out)
        if let cacheError { throw cacheError }
        return .success
    }
}
