import GeoModel

/// `geocode LAT LON` / `geocode reverse LAT LON`: the placemark of one point.
enum ReverseCommand: Command {
    static let name = "reverse"
    static let summary = "Print the place (country, province, city, district) of one point."
    static let usage = """
        geocode LAT LON [--json] [--datum DATUM] [--data DIR]
        geocode reverse LAT LON [options]
        geocode LAT,LON [options]
        """
    static let details = """
        LAT and LON are decimal degrees; negative numbers work as they are (no -- needed).

        Exit status: 0 found, 1 the point is in no polygon (ocean or outside the data),
        2 bad command line, 3 invalid coordinate, 4 data directory missing or unloadable,
        5 the answer could not be written (disk full, stdout closed).

        Examples:
          geocode 39.9042 116.4074
          geocode -33.86 151.2 --json
          geocode 39.9087,116.3975 --datum gcj02
        """
    static let options: [OptionSpec] = [
        OptionSpec("json", short: "j", help: "print JSON: the point, \"found\", and the placemark with every field (null when none)"),
        OptionSpec("datum", value: "DATUM", help: "datum of LAT/LON: wgs84 (GPS, default), gcj02 (China maps), bd09 (Baidu)"),
        .lang, .worldview, .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        let coordinate = try parseCoordinate(arguments.positionals)
        let datum = try parseDatum(arguments.value("datum"))
        let lookup = try context.openLookup(dataOption: arguments.value("data"))
        let placemark: Placemark?
        do throws(GeocoderError) {
            placemark = try lookup.placemark(for: coordinate, datum: datum)
        } catch {
            // Not a coordinate: the user's input (exit 3). Anything else is the engine failing (exit 4).
            if case .invalidCoordinate = error { throw .badInput("\(error)") }
            throw CLIError(.dataUnavailable, "geocode: \(error)")
        }
        if arguments.flag("json") {
            try context.stdout.emit(json(coordinate, datum: datum, placemark: placemark))
        } else if let placemark {
            try context.stdout.emit(humanReadable(placemark))
        } else {
            context.stderr.write("geocode: no place at \(coordinate.latitude), \(coordinate.longitude) "
                                 + "(in no polygon: ocean, or outside the loaded data)\n")
        }
        return placemark == nil ? .notFound : .success
    }

    /// `LAT LON` or `LAT,LON`. A wrong count is a usage error (2); values that are not valid coordinates are
    /// bad input (3).
    static func parseCoordinate(_ positionals: [String]) throws(CLIError) -> Coordinate {
        let parts: [String]
        switch positionals.count {
        case 2: parts = positionals
        case 1 where positionals[0].contains(","):
            parts = positionals[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw .usage("expected LAT,LON, got \"\(positionals[0])\"") }
        case 0: throw .usage("missing LAT and LON")
        case 1: throw .usage("missing LON (give LAT LON, or LAT,LON)")
        default: throw .usage("too many arguments: expected LAT LON, got \(positionals.joined(separator: " "))")
        }
        func value(_ text: String) -> CoordinateCheck.Value {
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return .empty }
            if let v = DecimalNumber.parse(text) { return .number(v, text: .string(text)) }
            return .notNumber(text: text)
        }
        switch CoordinateCheck.coordinate(lat: value(parts[0]), latWhere: "LAT", lon: value(parts[1]), lonWhere: "LON") {
        case .success(let c): return c
        case .failure(let e): throw .badInput(e.message)
        }
    }

    static func parseDatum(_ name: String?) throws(CLIError) -> Datum {
        guard let name else { return .wgs84 }
        guard let datum = Datum(name: name) else { throw .usage("unknown datum \"\(name)\" (use wgs84, gcj02 or bd09)") }
        return datum
    }

    /// One line per level, name then code: easy to read, easy to grep.
    static func humanReadable(_ p: Placemark) -> String {
        func line(_ label: String, _ name: String?, _ code: String?, note: String? = nil) -> String {
            guard let name else { return "" }
            var text = (label + ":").padding(to: 10) + name
            if let code { text += " (\(code))" }
            if let note { text += " " + note }
            return text + "\n"
        }
        func note(_ level: AdminLevel) -> String? {
            switch p.provenance(at: level) {
            case .provinceFallback?: return "[province-level city]"
            case .nearestPlace(let m)?: return "[nearest place, \(Int(m.rounded())) m]"
            case .nearestUnit(let m)?: return "[nearest, \(Int(m.rounded())) m]"
            default: return nil
            }
        }
        return line("country", p.country, p.isoCountryCode, note: note(.country))
            + line("province", p.administrativeArea, p.administrativeAreaCode, note: note(.province))
            + line("county", p.subAdministrativeArea, p.subAdministrativeAreaCode, note: note(.subAdministrativeArea))
            + line("city", p.locality, p.localityCode, note: note(.city))
            + line("district", p.subLocality, p.subLocalityCode, note: note(.district))
            + line("time zone", p.timeZone, nil)
            + line("ocean", p.ocean, nil)
            + line("water", p.inlandWater, nil)
            + line("dataset", p.dataset, nil)
    }

    /// `{"latitude":…,"longitude":…,"datum":"wgs84","found":true,"placemark":{…}}` on one line. The
    /// placemark object has exactly the keys of the library's `JSONEncoder` output (the field table's
    /// keys, every one present), or is null when no unit contains the point.
    static func json(_ c: Coordinate, datum: Datum, placemark: Placemark?) -> String {
        var out: [UInt8] = []
        out.append(contentsOf: "{\"latitude\":\(c.latitude),\"longitude\":\(c.longitude),\"datum\":\"\(datum.rawValue)\",".utf8)
        out.append(contentsOf: "\"found\":\(placemark != nil),\"placemark\":".utf8)
        PlacemarkJSON.append(placemark, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
