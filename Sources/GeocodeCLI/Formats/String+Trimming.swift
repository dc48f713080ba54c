// Small Foundation-free string helpers for headers, option values and help text.

extension String {
    /// Without leading/trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
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
