/// A line from gpsd that could not be understood: which line (abridged) and why.
public struct GPSDParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending line, cut to 120 characters.
    public var line: String
    /// The field at fault, such as `TPV lat`; `nil` when the line isn't JSON at all.
    public var field: String?
    /// What is wrong.
    public var reason: String

    /// An error about `line` (abridged here), naming `field` when one is at fault.
    public init(line: String, field: String? = nil, reason: String) {
        self.line = line.count > 120 ? String(line.prefix(120)) + "…" : line
        self.field = field
        self.reason = reason
    }

    public var description: String {
        "gpsd: \(field.map { "\($0): " } ?? "")\(reason) in \(line)"
    }
}
