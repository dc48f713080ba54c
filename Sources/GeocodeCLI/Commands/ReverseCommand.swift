import GeoModel

/// `geocode LAT LON` / `geocode reverse LAT LON`: the placemark of one point.
enum ReverseCommand: Command {
    static let name = "reverse"
    static let summary = "Print the place (country, province, city, district) of one point."
    static let usage = """
        geocode LAT LON [--json] [--datum DATUM] [--data DIR]
        geocode reverse LAT LON [options]
        geocode LAT,LON [options]
        geocode 48°51'24"N 2°21'08"E [options]
        """
    static let details = """
        LAT and LON are decimal degrees; negative numbers work as they are (no -- needed), also with the
        typographic minus − (U+2212) that documents and web pages show. Also read: LAT,LON and LAT, LON
        (as map apps copy them; also the full-width comma ， and the ideographic space U+3000 that a Chinese
        input method types), geocode reverse "POINT(LON LAT)", and degrees, minutes and seconds with marks
        or hemisphere letters: 48°51'24"N 2°21'08"E, "48 51 24 N 2 21 08 E", 33°52.1'S 151°12.5'E. Input
        that could be read two ways (48,85 2,35; DMS without marks or letters) is refused with the reason.
        A value out of range is quoted as typed (latitude 95°30'N is outside -90...90).

        A point in no unit (at sea, or on a coast the data draws a little inland) gets the nearest unit
        within --max-distance (default \(MaxDistanceOption.defaultText)), marked "[nearest, N m]"; --max-distance 0 turns
        that off.

        Exit status: 0 found, 1 the point is in no administrative unit and none is within --max-distance
        (ocean or outside the data; the time zone, when the data has one there, is still printed),
        2 bad command line, 3 invalid coordinate, 4 data directory missing or unloadable,
        5 the answer could not be written (disk full, stdout closed).

        Examples:
          geocode 39.9042 116.4074
          geocode -33.86 151.2 --json
          geocode 39.9087,116.3975 --datum gcj02
        """
    static let options: [OptionSpec] = [
        OptionSpec("json", short: "j", help: "print JSON: the point, \"found\" (an administrative unit), the placemark with every field (null when none) and the time zone's utcOffset"),
        OptionSpec("datum", value: "DATUM", help: "datum of LAT/LON: wgs84 (GPS, default), gcj02 (China maps), bd09 (Baidu)"),
        MaxDistanceOption.spec,
        .lang, .worldview, .borders, .data, .skipBrokenDatasets, .allowModifiedData, .help,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        let coordinate = try parseCoordinate(arguments.positionals)
        let datum = try parseDatum(arguments.value("datum"))
        let lookup = try context.openLookup(dataOption: arguments.value("data"))
        let late = LateWarnings(lookup, stderr: context.stderr)
        defer { late.sayNew() }  // a cache the query found damaged, and rebuilt
        let placemark: Placemark?
        do throws(GeocoderError) {
            placemark = try lookup.placemark(for: coordinate, datum: datum)
        } catch {
            // Not a coordinate: the user's input (exit 3). Anything else is the engine failing (exit 4).
            if case .invalidCoordinate = error { throw .badInput("\(error)") }
            throw CLIError(.dataUnavailable, "\(error)")   // GeocodeTool prefixes "geocode: " once
        }
        // "Found" means an administrative unit: a point at sea that only the time zones answer prints
        // its zone but exits 1, as it did before there were time zones (scripts test the status).
        let found = placemark?.hasAdministrativeUnit ?? false
        if arguments.flag("json") {
            try context.stdout.emit(json(coordinate, datum: datum, placemark: placemark))
        } else {
            if let placemark { try context.stdout.emit(humanReadable(placemark)) }
            if !found {
                context.stderr.write("geocode: no place at \(coordinate.latitude), \(coordinate.longitude) "
                                     + "(in no administrative unit and none within --max-distance: ocean, or outside the loaded data)\n")
            }
        }
        return found ? .success : .notFound
    }

    /// `LAT LON`, `LAT,LON`, `LAT, LON` (a paste from a map app, however the shell split it), WKT
    /// `POINT(LON LAT)`, or degrees-minutes-seconds (`48°51'24"N 2°21'08"E`, `48 51 24 N 2 21 08 E`).
    /// A wrong count is a usage error (2); values that are not valid coordinates, or text that could be
    /// read more than one way, are bad input (3). The full-width comma `，` (U+FF0C, what a Chinese input
    /// method types) is the comma, its ideographic space (U+3000) a space, and U+2212 `−` the minus
    /// (``DecimalNumber``): none means anything else in a coordinate. Messages quote the text as typed.
    static func parseCoordinate(_ typedPositionals: [String]) throws(CLIError) -> Coordinate {
        // `typed`: the argument before the full-width characters were mapped, to quote what is no number.
        func value(_ text: String, typed: String? = nil) -> CoordinateCheck.Value {
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return .empty }
            if let v = DecimalNumber.parse(text) { return .number(v, text: .string(text)) }
            return .notNumber(text: typed ?? text)
        }
        func checked(_ lat: CoordinateCheck.Value, _ lon: CoordinateCheck.Value) throws(CLIError) -> Coordinate {
            switch CoordinateCheck.coordinate(lat: lat, latWhere: "LAT", lon: lon, lonWhere: "LON") {
            case .success(let c): return c
            case .failure(let e): throw .badInput(e.message)
            }
        }
        if typedPositionals.isEmpty { throw .usage("missing LAT and LON") }
        let typed = typedPositionals.joined(separator: " ")
        // The full-width comma and the ideographic space (U+3000) a Chinese input method types are the
        // comma and the space: the shell splits at neither, so `39.9　116.4` is one argument, as "39.9 116.4" is.
        let positionals = typedPositionals.map { String($0.map { $0 == "，" ? "," : $0 == "\u{3000}" ? " " : $0 }) }
        let text = positionals.joined(separator: " ")
        // Degree/minute/second marks, or a hemisphere letter alone or against digits (`N`, `24N`, `N48`).
        // A letter between digits is no hemisphere: `1e400`'s `e` is an exponent.
        let dmsMarks = text.contains { "°º˚'′’\"″”".contains($0) }
            || text.split(whereSeparator: { $0 == " " || $0 == "," }).contains { token in
                let letters = token.filter { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "\u{2212}") }
                guard letters.count == 1, "NSEWnsew".contains(letters.first!) else { return false }
                return token.first == letters.first || token.last == letters.first
            }
        if positionals.count == 2 && !text.contains(",") && !dmsMarks {
            return try checked(value(positionals[0], typed: typedPositionals[0]), value(positionals[1], typed: typedPositionals[1]))
        }
        if let pair = CoordinatePair.parse(text, lonFirst: false, decimalComma: false) {
            return try checked(.number(pair.latitude, text: .string(pair.latitudeText)),
                               .number(pair.longitude, text: .string(pair.longitudeText)))
        }
        if dmsMarks && !text.uppercased().hasPrefix("POINT") {
            switch DMSCoordinate.parse(text) {
            case .success(let pair):
                // Quoted as typed (`95°30'N`), as a decimal is: the computed 95.5 is nothing the user wrote.
                return try checked(.number(pair.latitude, text: .string(pair.latitudeText)),
                                   .number(pair.longitude, text: .string(pair.longitudeText)))
            case .failure(let e):
                throw .badInput("cannot read \"\(typed)\" as a point: \(e.message)")
            }
        }
        if positionals.count == 4 || positionals.count == 6, positionals.allSatisfy({ DecimalNumber.parse($0) != nil }) {
            throw .badInput("cannot read \"\(typed)\" as a point: degrees, minutes and seconds without ° ' \" marks "
                            + "or N/S/E/W letters are ambiguous")
        }
        let commas = text.filter { $0 == "," }.count
        if commas >= 2 || (commas == 1 && positionals.count > 2) {
            throw .badInput("\"\(typed)\" is ambiguous: a comma may be a decimal comma or the separator; "
                            + "write decimals with a dot (48.8566, 2.3522)")
        }
        switch positionals.count {
        case 1 where commas == 1:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return try checked(value(parts[0]), value(parts[1]))
        case 1:
            // One argument holding two words ("45.5 abc", as quoted or typed with U+3000): say which value
            // is wrong rather than that LON is missing.
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count == 2 { return try checked(value(String(words[0])), value(String(words[1]))) }
            throw .usage("missing LON (give LAT LON, or LAT,LON)")
        case 2:
            let first = positionals[0].hasSuffix(",") ? String(positionals[0].dropLast()) : positionals[0]
            return try checked(value(first), value(positionals[1]))
        default: throw .usage("too many arguments: expected LAT LON, got \(typed)")
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
            var text = (label + ":").padding(to: max(10, label.count + 2)) + name
            if let code { text += " (\(code))" }
            if let note { text += " " + note }
            return text + "\n"
        }
        func note(_ level: AdminLevel) -> String? {
            switch p.provenance(at: level) {
            // The province itself, which has no city level: a municipality (北京市) or a special
            // administrative region (香港), so not "province-level city", which SARs are not.
            case .provinceFallback?: return "[= province, no city level]"
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
            + line("time zone", p.timeZone, nil, note: DerivedColumn.utcOffset.text(of: p).map { "UTC" + $0 })
            + line("ocean", p.ocean, nil)
            + line("water", p.inlandWater, nil)
            + line("dataset", p.dataset, nil)
    }

    /// `{"latitude":…,"longitude":…,"datum":"wgs84","found":true,"utcOffset":"+08:00","placemark":{…}}` on
    /// one line. `found`: an administrative unit contains the point. The placemark object has exactly the
    /// keys of the library's `JSONEncoder` output (the field table's keys, every one present), or is null
    /// when nothing (not even a time zone) answers. The derived columns (``DerivedColumn``) come before it.
    static func json(_ c: Coordinate, datum: Datum, placemark: Placemark?) -> String {
        var out: [UInt8] = []
        out.append(contentsOf: "{\"latitude\":\(c.latitude),\"longitude\":\(c.longitude),\"datum\":\"\(datum.rawValue)\",".utf8)
        out.append(contentsOf: "\"found\":\(placemark?.hasAdministrativeUnit ?? false),".utf8)
        for derived in DerivedColumn.allCases {
            JSONWriter.appendString(derived.key, to: &out)
            out.append(UInt8(ascii: ":"))
            PlacemarkColumn(derived).appendJSON(of: placemark, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: "\"placemark\":".utf8)
        PlacemarkJSON.append(placemark, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
