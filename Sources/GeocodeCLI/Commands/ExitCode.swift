/// The process exit codes of `geocode`, documented in `geocode --help`.
///
/// Kept small and distinct so scripts can tell "the answer is: nowhere" (1) from "you asked wrongly" (2)
/// from "your data is wrong" (3) and from failures of the machine or the installation (4, 5).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Success: the point was found; the batch ran to the end (bad rows, if any, are in its output).
    case success = 0
    /// `geocode LAT LON`: the point lies in no administrative unit (ocean, or outside the loaded data): a time zone alone is not "found".
    case notFound = 1
    /// Wrong command line: unknown option, missing or malformed argument.
    case usage = 2
    /// Bad input data: an invalid coordinate given to `geocode LAT LON`, a bad row under `--strict`, a
    /// batch input that cannot be read as its format at all (e.g. a GeoJSON file that is no FeatureCollection, Feature or Point),
    /// a CSV/TSV header in which no column is recognisable as a coordinate (and none was named), or a
    /// `track --region` file that is not a regions file or names an area no unit of the loaded data has.
    case badInput = 3
    /// The data directory is missing or the engine could not load it: a dataset folder that cannot be read
    /// or has no manifest (unless `--skip-broken-datasets`), a file that differs from its manifest's
    /// sha256 (unless `--allow-modified-data`).
    case dataUnavailable = 4
    /// Reading the input or writing the output failed (no such file, permission, disk full, stdout closed,
    /// an index cache that could not be written, a serial device given up on after `--retry-for`).
    case ioError = 5
    /// Stopped by SIGINT or SIGTERM (128 + signal number for SIGINT, as shells report it).
    case interrupted = 130

    /// One line per code, for the help text.
    public var meaning: String {
        switch self {
        case .success: return "found / batch completed"
        case .notFound: return "the point is in no administrative unit (ocean or outside the data)"
        case .usage: return "bad command line"
        case .badInput: return "bad input: invalid coordinate, bad row with --strict, unreadable input format, no coordinate column in the header, bad --region file"
        case .dataUnavailable: return "data directory missing or unloadable (also: a broken dataset folder, a data file whose sha256 differs from its manifest)"
        case .ioError: return "cannot read the input or write the output (also: the index cache, a serial device given up on)"
        case .interrupted: return "interrupted (output file left untouched)"
        }
    }
}
