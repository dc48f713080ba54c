/// Why a GPX file could not be read, and where: `track.gpx:12:7: trkpt lat: "91.5" is outside -90...90`.
public struct GPXParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name (or whatever label the caller gave the data).
    public var file: String
    /// 1-based line; 0 when the problem is not tied to one place (e.g. an unreadable file).
    public var line: Int
    /// 1-based column when the XML parser reported one.
    public var column: Int?
    /// The element/attribute at fault, such as `trkpt lat` or `time`; `nil` for XML syntax errors.
    public var field: String?
    /// What is wrong.
    public var reason: String

    /// An error at `file`:`line`(:`column`), about `field` when one is at fault.
    public init(file: String, line: Int, column: Int? = nil, field: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var place = file
        if line > 0 { place += ":\(line)" }
        if line > 0, let column { place += ":\(column)" }
        if let field { return "\(place): \(field): \(reason)" }
        return "\(place): \(reason)"
    }
}
