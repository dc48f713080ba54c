import Foundation
import GeoModel
import ReverseGeocoder

/// The batch command's settings, parsed and checked, independent of how they were typed.
struct BatchOptions: Sendable {
    /// Input path; nil or "-" is stdin.
    var inputPath: String?
    /// Output path; nil or "-" is stdout.
    var outputPath: String?
    var format: BatchFormat?
    var outputFormat: BatchFormat?
    /// `--lat-col`/`--lon-col`: a column name or 1-based number (CSV/TSV), a key (NDJSON).
    var latColumn: String?
    var lonColumn: String?
    /// `--header`/`--no-header`; nil = detect.
    var header: Bool?
    /// `--no-header-out`: no header row in the output of headerless input.
    var headerOut = true
    /// `--encoding`; nil = UTF-8, or UTF-16 by its byte-order mark.
    var encoding: String?
    /// `--delimiter`; nil = sniffed.
    var delimiter: UInt8?
    /// `--decimal-comma`; false = detected for `;` files.
    var decimalComma = false
    /// `--coords COL`: one column (or key) holding both coordinates.
    var coordsColumn: String?
    /// `--lon-first`: longitude before latitude (in a `--coords` pair; the default columns without a header).
    var lonFirst = false
    var fields = PlacemarkColumn.defaults
    var prefix = ""
    var datum = Datum.wgs84
    /// One per core the process may use (its CPU affinity: `taskset -c 0` gives 1).
    var threads = ReverseGeocoder.usableCores()
    var strict = false
    var quiet = false
    /// Whether a GeoJSON sequence output puts an RS before each record, when OUT's name says
    /// (`.geojsons` yes; `.geojsonl`, `.ndjson` no); nil: as the input sequence did (none from other formats).
    var outputRecordSeparator: Bool?
    /// Pipeline granularity; not a command-line option. Tests shrink these to put chunk and buffer
    /// boundaries between every record.
    var chunkBytes = 256 << 10
    var chunkRecords = 8192
    var readSize = 1 << 20
    /// Whether the first records may be waited for (a file: always there) before deciding the delimiter
    /// and decimal commas; false for a pipe or terminal, which may be a live feed.
    var sampleWaits = true

    var readsStandardInput: Bool { inputPath == nil || inputPath == "-" }
    var writesStandardOutput: Bool { outputPath == nil || outputPath == "-" }
    var inputName: String { readsStandardInput ? "<stdin>" : inputPath! }

    /// Built-in names recognised for the coordinate columns/keys, in order of preference.
    static let latitudeNames = ["latitude", "lat", "y"]
    static let longitudeNames = ["longitude", "lon", "lng", "long", "x"]
}
