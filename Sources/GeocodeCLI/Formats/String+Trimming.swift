// Small Foundation-free string helpers for headers, option values and help text.

extension String {
    /// Without leading/trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// With each U+3000 IDEOGRAPHIC SPACE as an ASCII space: what a full-width (CJK) input method types
    /// between two numbers where a Latin keyboard types a space. For text holding a coordinate pair,
    /// where it can only separate (a number never contains a space of either kind).
    var ideographicSpacesAsASCII: String {
        contains("\u{3000}") ? String(map { $0 == "\u{3000}" ? " " : $0 }) : self
    }

    /// Padded with spaces on the right to `width` characters (help text columns).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension Substring {
    /// Without leading and trailing `character`s.
    func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
