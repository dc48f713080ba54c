/// A point written in degrees, minutes and seconds, as maps, GPS units and Wikipedia show it:
/// `48°51'24"N 2°21'08"E`, `48 51 24 N 2 21 08 E`, `N 48°51.4' E 2°21.1'`, `48.8566°N, 2.3522°E`,
/// `33°52′S 151°12′E` (typographic primes too, U+2212 for the minus, U+FF0C for the comma, U+3000 for a
/// space: what a Chinese input method types). Pure: text in,
/// degrees or a message out.
///
/// Exact: each angle is degrees + minutes/60 + seconds/3600 of the numbers as written, and must be
/// whole where something finer follows (`48.5°30'` is refused), minutes and seconds below 60. Each
/// angle's text is kept as typed (`95°30'N`), so a message about its value names what the user wrote,
/// not the number it came to. Ambiguous
/// input is refused with the reason rather than guessed: numbers without marks or hemisphere letters
/// (`48 51 24 2 21 8`), two latitudes (`N … S …`), a sign together with a letter (`-48°N`).
enum DMSCoordinate {
    struct Angle {
        var parts: [Double] = []
        /// Which of degrees (0), minutes (1), seconds (2) each part is.
        var slots: [Int] = []
        var hemisphere: Character?
        var marked = false
        var negative = false
        /// Where the angle is written in the text: its first number or hemisphere letter up to the end of
        /// its last mark or letter.
        var start: String.Index?
        var end: String.Index?
        var isEmpty: Bool { parts.isEmpty }
    }

    /// Latitude and longitude of `text`, or why not.
    static func parse(_ text: String) -> Result<CoordinatePair, CoordinateError> {
        var angles: [Angle] = []
        var current = Angle()
        var i = text.startIndex
        func close() {
            if !current.isEmpty { angles.append(current) }
            current = Angle()
        }
        func fail(_ message: String) -> Result<CoordinatePair, CoordinateError> { .failure(CoordinateError(message: message)) }
        while i < text.endIndex {
            let c = text[i]
            if c.isNumber || c == "." || c == "-" || c == "+" || c == "\u{2212}" {
                var j = i
                if c == "-" || c == "+" || c == "\u{2212}" { j = text.index(after: j) }
                while j < text.endIndex, text[j].isASCII, text[j].isNumber || text[j] == "." { j = text.index(after: j) }
                let token = String(text[i..<j])
                guard let value = DecimalNumber.parse(token), j > i else { return fail("\"\(token)\" is not a number") }
                let tokenStart = i
                i = j
                while i < text.endIndex, text[i] == " " || text[i] == "\u{3000}" { i = text.index(after: i) }
                var slot: Int?
                if i < text.endIndex {
                    switch text[i] {
                    case "°", "º", "˚": slot = 0
                    case "'", "′", "’", "‘":
                        let next = text.index(after: i)
                        if next < text.endIndex, text[next] == "'" || text[next] == "′" { slot = 2; i = next } else { slot = 1 }
                    case "\"", "″", "”", "“": slot = 2
                    default: break
                    }
                    if slot != nil { i = text.index(after: i) }
                }
                let target = slot ?? (current.slots.last.map { $0 + 1 } ?? 0)
                if target == 0 || target > 2 || (current.slots.last ?? -1) >= target {
                    if !current.isEmpty { close() }
                }
                let position = slot ?? (current.slots.last.map { $0 + 1 } ?? 0)
                guard position <= 2, (current.slots.last ?? -1) < position else {
                    return fail("\"\(token)\" is out of place: degrees, then minutes ('), then seconds (\")")
                }
                if position > 0 && current.isEmpty { return fail("minutes or seconds without degrees before \"\(token)\"") }
                if current.start == nil { current.start = tokenStart }
                current.end = slot != nil ? i : j
                let minus = token.hasPrefix("-") || token.hasPrefix("\u{2212}")
                if value < 0 || token.hasPrefix("+") || minus {
                    guard position == 0 else { return fail("only the degrees may have a sign (\"\(token)\")") }
                    if minus { current.negative = true }
                }
                current.parts.append(abs(value))
                current.slots.append(position)
                if slot != nil { current.marked = true }
                continue
            }
            switch c.uppercased() {
            case "N", "S", "E", "W":
                if current.hemisphere != nil {
                    close()
                }
                current.hemisphere = Character(c.uppercased())
                // The letter ends the angle it follows (`48°N`) or starts the one it precedes (`N 48°`).
                if current.start == nil { current.start = i }
                current.end = text.index(after: i)
                if !current.isEmpty { close() }
            default:
                if c == "," || c == ";" || c == "，" {
                    close()
                } else if c != " " && c != "\t" && c != "\u{3000}" {
                    return fail("unexpected \"\(c)\" (write e.g. 48°51'24\"N 2°21'08\"E)")
                }
            }
            i = text.index(after: i)
        }
        close()
        guard angles.count == 2 else {
            return fail("expected two angles (latitude and longitude), found \(angles.count)")
        }
        var values: [Double] = []
        let typed = angles.map { angle in
            angle.start.flatMap { start in angle.end.map { String(text[start..<$0]) } } ?? ""
        }
        for angle in angles {
            guard angle.marked || angle.hemisphere != nil || angle.parts.count == 1 else {
                return fail("degrees, minutes and seconds without ° ' \" marks or N/S/E/W letters are ambiguous")
            }
            if angle.negative && angle.hemisphere != nil { return fail("a sign and a hemisphere letter together (\(angle.hemisphere!)) are ambiguous") }
            var total = 0.0
            for (k, part) in angle.parts.enumerated() {
                let slot = angle.slots[k]
                if k + 1 < angle.parts.count, part != part.rounded(.towardZero) {
                    return fail("\(part) has a fraction but finer parts follow it")
                }
                if slot > 0 && part >= 60 { return fail("\(slot == 1 ? "minutes" : "seconds") \(part) are not below 60") }
                total += part / [1, 60, 3600][slot]
            }
            if angle.negative || angle.hemisphere == "S" || angle.hemisphere == "W" { total = -total }
            values.append(total)
        }
        let isLat = angles.map { $0.hemisphere.map { $0 == "N" || $0 == "S" } }
        switch (isLat[0], isLat[1]) {
        case (true?, true?): return fail("two latitudes (N/S) and no longitude")
        case (false?, false?): return fail("two longitudes (E/W) and no latitude")
        case (false?, _), (nil, true?):
            return .success(CoordinatePair(latitude: values[1], longitude: values[0], latitudeText: typed[1], longitudeText: typed[0]))
        default:
            return .success(CoordinatePair(latitude: values[0], longitude: values[1], latitudeText: typed[0], longitudeText: typed[1]))
        }
    }
}
