import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads GPX 1.0 / 1.1 documents into points. Pure: bytes in, `GPXDocument` or `GPXParseError` out.
///
/// Reads `trkpt`, `rtept` and `wpt` with their `ele`, `time`, `hdop`, `vdop`, `fix`, `name` and the
/// GPX 1.0 `speed` / `course`. Elements are matched by local name in any namespace (GPX 1.0, 1.1 and
/// namespace-less Xcode files all occur); anything inside `<extensions>` is skipped. Every value is
/// checked, and the first bad one fails the whole file: playing a track with a silently dropped point
/// would be worse than refusing it.
public enum GPXParser {
    /// Parses `data`; `fileName` labels error messages.
    public static func parse(_ data: Data, fileName: String = "GPX") throws(GPXParseError) -> GPXDocument {
        let parser = XMLParser(data: try GPXEncoding.prepare(data, fileName: fileName))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let reader = GPXParserDelegate(fileName: fileName)
        parser.delegate = reader
        let ok = parser.parse()
        if let error = reader.error { throw error }
        if !ok {
            // Errors normally arrive through the delegate; this covers a parser that fails without calling it.
            throw GPXParseError(file: fileName, line: parser.lineNumber,
                                column: parser.columnNumber > 0 ? parser.columnNumber : nil,
                                reason: "malformed XML (\(parser.parserError.map { "\($0)" } ?? "unknown error"))")
        }
        guard reader.sawRoot else {
            throw GPXParseError(file: fileName, line: 0, reason: "empty document, no <gpx> element")
        }
        return reader.document
    }

    /// Reads and parses the file at `url`; errors name the file's last path component.
    public static func parse(contentsOf url: URL) throws(GPXParseError) -> GPXDocument {
        let name = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw GPXParseError(file: name, line: 0, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try parse(data, fileName: name)
    }
}
