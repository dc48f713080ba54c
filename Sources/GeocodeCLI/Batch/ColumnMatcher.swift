/// Finds the latitude and longitude columns of a header by name.
///
/// First the plain names (`lat`, `latitude`, `y`; `lon`, `lng`, `long`, `longitude`, `x`), ignoring case
/// and surrounding spaces. Failing those, names that hold one of the coordinate words among other words:
/// a prefix or suffix (`pickup_latitude`, `start_lat`, `GPS Latitude`, `latitude_deg`, `StartLat`,
/// `gpslatitude`) or a unit (`Lat (deg)`, `lon [°]`). Names that say the value is something else than
/// decimal degrees of the position (`lat_error`, `lat_rad`, `lat_min`, `lat_hemisphere`) never match. Two
/// such candidates are ambiguous, and the caller reports both.
enum ColumnMatcher {
    enum Axis: Sendable {
        case latitude, longitude

        var plainNames: [String] { self == .latitude ? BatchOptions.latitudeNames : BatchOptions.longitudeNames }
        var words: Set<String> { self == .latitude ? ["lat", "latitude"] : ["lon", "lng", "long", "longitude"] }
        /// Glued forms accepted at the end of a word (`gpslatitude`); the short ones would catch `flat`.
        var gluedSuffixes: [String] { self == .latitude ? ["latitude"] : ["longitude"] }
    }

    enum Match: Equatable {
        case column(Int)
        case none
        /// More than one candidate column (0-based), in header order.
        case ambiguous([Int])
    }

    /// Words that make a column something else: an error estimate, another unit, one part of a DMS value.
    static let disqualifying: Set<String> = [
        "error", "err", "accuracy", "acc", "precision", "uncertainty", "sigma", "std", "stddev", "sd", "var",
        "rad", "radian", "radians", "min", "mins", "minute", "minutes", "sec", "secs", "second", "seconds", "dms",
        "hemisphere", "hem", "dir", "direction", "ref", "quality", "dop", "delta", "diff", "offset", "rate", "speed",
        "index", "idx", "bin", "cell", "zone", "band", "grid", "count", "code",
    ]

    static func find(_ axis: Axis, in header: [String]) -> Match {
        let trimmed = header.map { $0.trimmingSpaces.lowercased() }
        for name in axis.plainNames {
            if let i = header.firstIndex(of: name) { return .column(i) }
            if let i = trimmed.firstIndex(of: name) { return .column(i) }
        }
        let candidates = header.indices.filter { matches(header[$0], axis) }
        switch candidates.count {
        case 0: return .none
        case 1: return .column(candidates[0])
        default: return .ambiguous(candidates)
        }
    }

    /// Whether `name` is a coordinate column for `axis` by its words.
    static func matches(_ name: String, _ axis: Axis) -> Bool {
        let words = self.words(name)
        guard !words.contains(where: disqualifying.contains) else { return false }
        // A name with both axes' words (`latlon`, or a whole header read with the wrong delimiter) is neither.
        let other: Axis = axis == .latitude ? .longitude : .latitude
        guard !words.contains(where: other.words.contains) else { return false }
        let hits = words.filter { word in axis.words.contains(word) || axis.gluedSuffixes.contains { word.hasSuffix($0) } }
        return hits.count == 1
    }

    /// Lowercase words of a column name: split at anything not a letter or digit and at lower-to-upper
    /// case changes (`pickupLat` → pickup, lat).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for ch in name {
            if ch.isLetter || ch.isNumber {
                if ch.isUppercase && previousWasLower && !current.isEmpty {
                    words.append(current.lowercased())
                    current = ""
                }
                current.append(ch)
                previousWasLower = ch.isLowercase
            } else {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
                previousWasLower = false
            }
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }
}
