import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads GPX 1.0 / 1.1 documents into points. Pure: bytes in, points or `GPXParseError` out.
///
/// Reads `trkpt`, `rtept` and `wpt` with their `ele`, `time`, `hdop`, `vdop`, `fix`, `name` and the
/// GPX 1.0 `speed` / `course`. Elements are matched by local name in any namespace (GPX 1.0, 1.1 and
/// namespace-less Xcode files all occur); anything inside `<extensions>` is skipped. Every value is
/// checked, and a point is never dropped silently: a bad value fails a parse (a ``GPXDocument`` holds
/// every point of the file or none), while a streaming read may hand each bad point to
/// `onRejectedPoint` and go on, so playback can report it and play the rest, as NMEA replay does with
/// a rejected line. What breaks the document itself (malformed or truncated XML, no `<gpx>`) always
/// fails.
///
/// **Any size.** The file is streamed: read in 64 KiB chunks, prepared (``GPXEncoding``) and pushed
/// into libxml2 through `XMLParser(stream:)`, each point handed over as its element closes
/// (``read(contentsOf:_:)``). Memory stays flat however long the file is, and libxml2's 10 MB
/// lookahead limit, which `XMLParser(data:)` hits, does not apply. libxml2 stays the judge of XML
/// (well-formedness, entities, CDATA, namespaces, encodings): a tokenizer of our own would have to
/// earn that trust again, and the fuzz harness checks us against libxml2 itself.
public enum GPXParser {
    /// Parses `data`; `fileName` labels error messages.
    public static func parse(_ data: Data, fileName: String = "GPX") throws(GPXParseError) -> GPXDocument {
        var document = GPXDocument()
        _ = try read(GPXInputStream(.data(data), fileName: fileName), fileName: fileName) {
            document.append($0)
            return true
        }
        return document
    }

    /// Reads and parses the file at `url`; errors name the file's last path component. The points
    /// are collected; to play or scan a large file without keeping them, use ``read(contentsOf:_:)``.
    public static func parse(contentsOf url: URL) throws(GPXParseError) -> GPXDocument {
        var document = GPXDocument()
        _ = try read(contentsOf: url) {
            document.append($0)
            return true
        }
        return document
    }

    /// Streams the file at `url`: `body` gets every point in document order as soon as it is read,
    /// and returns false to stop reading (no error then). Returns the point elements read, by kind
    /// (rejected ones included). An XML error is thrown when it is reached, after the points before
    /// it; so is the first bad value, unless `onRejectedPoint` is given: then each point with a bad
    /// value goes there instead of to `body` (the error names its line and field), and reading goes
    /// on; it too returns false to stop.
    @discardableResult
    public static func read(contentsOf url: URL, onRejectedPoint: ((GPXParseError) -> Bool)? = nil,
                            _ body: (GPXPoint) -> Bool) throws(GPXParseError) -> GPXPointCounts {
        let name = url.lastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw GPXParseError(file: name, line: 0, reason: "cannot read \(url.path): it is a directory, not a GPX file")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw GPXParseError(file: name, line: 0, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        return try read(GPXInputStream(.file(handle, path: url.path), fileName: name), fileName: name,
                        onRejectedPoint: onRejectedPoint, body)
    }

    private static func read(_ stream: GPXInputStream, fileName: String, onRejectedPoint: ((GPXParseError) -> Bool)? = nil,
                             _ body: (GPXPoint) -> Bool) throws(GPXParseError) -> GPXPointCounts {
        let result = withoutActuallyEscaping(body) { body -> Result<GPXPointCounts, GPXParseError> in
            let parser = XMLParser(stream: stream)
            parser.shouldProcessNamespaces = true
            parser.shouldResolveExternalEntities = false
            let reader = GPXParserDelegate(fileName: fileName, onRejectedPoint: onRejectedPoint, onPoint: body)
            parser.delegate = reader
            let ok = parser.parse()
            // What the stream could not read or prepare comes first: the XML parser only saw its end.
            if let failure = stream.failure { return .failure(failure) }
            if reader.stopped { return .success(reader.counts) }
            if let error = reader.error { return .failure(error) }
            if !ok {
                // Errors normally arrive through the delegate; this covers a parser that fails without calling it.
                return .failure(GPXParseError(file: fileName, line: parser.lineNumber,
                                              column: parser.columnNumber > 0 ? parser.columnNumber : nil,
                                              reason: "malformed XML (\(parser.parserError.map { "\($0)" } ?? "unknown error"))"))
            }
            guard reader.sawRoot else {
                return .failure(GPXParseError(file: fileName, line: 0, reason: "empty document, no <gpx> element"))
            }
            return .success(reader.counts)
        }
        return try result.get()
    }
}
