/// Both coordinates in one text value, as `--coords` reads them (pure: no I/O, no options but its own).
///
/// Accepted: `lat,lon` and `lat, lon`; `lat lon` (spaces or tabs); `lat;lon`; `lat，lon` (U+FF0C, the
/// comma a Chinese input method types; never a decimal mark, so it separates like `;`); U+3000 (the
/// ideographic space the same input method types) wherever a space separates; with a decimal
/// comma allowed, `48,85 2,35` and `48,85;2,35`; WKT/EWKT `POINT(lon lat)`, `POINT (lon lat)`, `POINT Z
/// (lon lat h)`, `SRID=4326;POINT(lon lat)` in any case. WKT is always x (longitude) then y (latitude),
/// so `lonFirst` applies to the plain forms only. Anything else, or an ambiguous text (`48,85,2,35`),
/// is nil. Numbers are ``DecimalNumber``'s (a U+2212 minus included).
struct CoordinatePair: Equatable, Sendable {
    var latitude: Double
    var longitude: Double
    /// Each number as written (trimmed), for messages: `1e400` is out of range, not "inf". Not part of
    /// equality, which is the values'.
    var latitudeText: String
    var longitudeText: String

    init(latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude, latitudeText: "\(latitude)", longitudeText: "\(longitude)")
    }

    init(latitude: Double, longitude: Double, latitudeText: String, longitudeText: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.latitudeText = latitudeText
        self.longitudeText = longitudeText
    }

    static func == (a: CoordinatePair, b: CoordinatePair) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude
    }

    static func parse(_ text: String, lonFirst: Bool, decimalComma: Bool) -> CoordinatePair? {
        let trimmed = text.ideographicSpacesAsASCII.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 400 else { return nil }
        if let wkt = parseWKT(trimmed) { return wkt }
        guard let (first, second) = plainPair(trimmed, decimalComma: decimalComma) else { return nil }
        return lonFirst ? CoordinatePair(latitude: second.value, longitude: first.value, latitudeText: second.text, longitudeText: first.text)
                        : CoordinatePair(latitude: first.value, longitude: second.value, latitudeText: first.text, longitudeText: second.text)
    }

    /// A number and its text as written.
    private typealias Number = (value: Double, text: String)

    private static func number(_ s: Substring, decimalComma: Bool = false) -> Number? {
        let t = String(s).trimmingSpaces
        return DecimalNumber.parse(t, decimalComma: decimalComma).map { ($0, t) }
    }

    /// Two numbers: split at one `;` or one `，` (U+FF0C), else at one `,` (dot decimals), else at
    /// whitespace.
    private static func plainPair(_ text: String, decimalComma: Bool) -> (Number, Number)? {
        for separator: Character in [";", "，"] {
            let parts = text.split(separator: separator, omittingEmptySubsequences: false)
            if parts.count == 2 {
                guard let a = number(parts[0], decimalComma: decimalComma), let b = number(parts[1], decimalComma: decimalComma) else { return nil }
                return (a, b)
            }
            guard parts.count == 1 else { return nil }
        }
        let commas = text.split(separator: ",", omittingEmptySubsequences: false)
        if commas.count == 2, let a = number(commas[0]), let b = number(commas[1]) {
            return (a, b)
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.count == 2 {
            // `48.85, 2.35` splits at the space too; the comma then ends the first word.
            var firstWord = words[0]
            if firstWord.hasSuffix(","), !firstWord.dropLast().contains(",") || !decimalComma { firstWord = firstWord.dropLast() }
            guard let a = number(firstWord, decimalComma: decimalComma), let b = number(words[1], decimalComma: decimalComma) else { return nil }
            return (a, b)
        }
        return nil
    }

    /// `[SRID=n;]POINT[ Z| M| ZM] (x y [z [m]])`.
    private static func parseWKT(_ text: String) -> CoordinatePair? {
        var rest = Substring(text)
        if rest.uppercased().hasPrefix("SRID=") {
            guard let semicolon = rest.firstIndex(of: ";") else { return nil }
            rest = rest[rest.index(after: semicolon)...]
        }
        guard rest.uppercased().hasPrefix("POINT") else { return nil }
        rest = rest.dropFirst(5).drop { $0 == " " }
        for tag in ["ZM", "Z", "M"] where rest.uppercased().hasPrefix(tag) {
            rest = rest.dropFirst(tag.count).drop { $0 == " " }
            break
        }
        guard rest.first == "(", rest.last == ")" else { return nil }
        let inner = rest.dropFirst().dropLast()
        let numbers = inner.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard (2...4).contains(numbers.count),
              let x = number(numbers[0]), let y = number(numbers[1]),
              numbers.dropFirst(2).allSatisfy({ DecimalNumber.parse(String($0)) != nil }) else { return nil }
        return CoordinatePair(latitude: y.value, longitude: x.value, latitudeText: y.text, longitudeText: x.text)
    }
}
