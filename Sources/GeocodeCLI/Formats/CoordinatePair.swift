/// Both coordinates in one text value, as `--coords` reads them (pure: no I/O, no options but its own).
///
/// Accepted: `lat,lon` and `lat, lon`; `lat lon` (spaces or tabs); `lat;lon`; with a decimal comma
/// allowed, `48,85 2,35` and `48,85;2,35`; WKT/EWKT `POINT(lon lat)`, `POINT (lon lat)`, `POINT Z (lon
/// lat h)`, `SRID=4326;POINT(lon lat)` in any case. WKT is always x (longitude) then y (latitude), so
/// `lonFirst` applies to the plain forms only. Anything else, or an ambiguous text (`48,85,2,35`),
/// is nil.
struct CoordinatePair: Equatable, Sendable {
    var latitude: Double
    var longitude: Double

    static func parse(_ text: String, lonFirst: Bool, decimalComma: Bool) -> CoordinatePair? {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 400 else { return nil }
        if let wkt = parseWKT(trimmed) { return wkt }
        guard let (first, second) = plainPair(trimmed, decimalComma: decimalComma) else { return nil }
        return lonFirst ? CoordinatePair(latitude: second, longitude: first) : CoordinatePair(latitude: first, longitude: second)
    }

    /// Two numbers: split at one `;`, else at one `,` (dot decimals), else at whitespace.
    private static func plainPair(_ text: String, decimalComma: Bool) -> (Double, Double)? {
        func number(_ s: Substring) -> Double? {
            let t = String(s).trimmingSpaces
            return DecimalNumber.parse(t, decimalComma: decimalComma)
        }
        let semicolons = text.split(separator: ";", omittingEmptySubsequences: false)
        if semicolons.count == 2 {
            guard let a = number(semicolons[0]), let b = number(semicolons[1]) else { return nil }
            return (a, b)
        }
        guard semicolons.count == 1 else { return nil }
        let commas = text.split(separator: ",", omittingEmptySubsequences: false)
        if commas.count == 2, let a = DecimalNumber.parse(String(commas[0])), let b = DecimalNumber.parse(String(commas[1])) {
            return (a, b)
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.count == 2 {
            // `48.85, 2.35` splits at the space too; the comma then ends the first word.
            var firstWord = words[0]
            if firstWord.hasSuffix(","), !firstWord.dropLast().contains(",") || !decimalComma { firstWord = firstWord.dropLast() }
            guard let a = number(firstWord), let b = number(words[1]) else { return nil }
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
              let x = DecimalNumber.parse(String(numbers[0])), let y = DecimalNumber.parse(String(numbers[1])),
              numbers.dropFirst(2).allSatisfy({ DecimalNumber.parse(String($0)) != nil }) else { return nil }
        return CoordinatePair(latitude: y, longitude: x)
    }
}
