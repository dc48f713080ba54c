import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import GeoModel

/// The XMLParser callbacks behind `GPXParser`: a small state machine over the element stack, handing
/// each point to `onPoint` as soon as its element closes (nothing is collected here).
/// Lives only for one synchronous `parse()` call, so it needs no locking.
final class GPXParserDelegate: NSObject, XMLParserDelegate {
    /// Every point element seen, rejected ones included: they still say which kind the file holds.
    private(set) var counts = GPXPointCounts()
    private(set) var error: GPXParseError?
    private(set) var sawRoot = false
    /// `onPoint` or `onRejectedPoint` asked to stop: parsing was aborted on purpose.
    private(set) var stopped = false
    private let onPoint: (GPXPoint) -> Bool
    /// Where a point with a bad value goes, so that parsing can go on; `nil`: it fails the parse.
    private let onRejectedPoint: ((GPXParseError) -> Bool)?

    private let fileName: String
    /// Local names of the open elements and the lines they opened on.
    private var stack: [(name: String, line: Int)] = []
    /// The point being read and the stack depth of its element.
    private var point: (value: GPXPoint, depth: Int)?
    /// The direct child of the point whose text is being collected, and the line it started on.
    private var field: (name: String, line: Int, text: String)?
    private var segment = 0
    /// Depth of an element whose content is skipped: an `<extensions>`, or a point that was rejected
    /// (the rest of it must not be read as the fields of a point, nor its end deliver one).
    private var skipDepth: Int?

    private static let pointFields: Set<String> = ["ele", "time", "hdop", "vdop", "fix", "name", "speed", "course"]

    /// `onPoint` gets every point in document order and returns false to stop parsing. With
    /// `onRejectedPoint`, a point with a bad value goes there instead (false stops parsing too);
    /// without it, the first bad value fails the parse.
    init(fileName: String, onRejectedPoint: ((GPXParseError) -> Bool)? = nil, onPoint: @escaping (GPXPoint) -> Bool) {
        self.fileName = fileName
        self.onRejectedPoint = onRejectedPoint
        self.onPoint = onPoint
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:]) {
        let name = localName(elementName)
        stack.append((name, parser.lineNumber))
        if skipDepth != nil { return }
        if stack.count == 1 {
            guard name == "gpx" else {
                fail(parser, field: nil, "not a GPX document: the root element is <\(name)>, expected <gpx>")
                return
            }
            sawRoot = true
            return
        }
        if name == "extensions" {
            skipDepth = stack.count
            return
        }
        if let point {
            if stack.count == point.depth + 1, Self.pointFields.contains(name) {
                field = (name, parser.lineNumber, "")
            }
            return
        }
        switch name {
        case "trkseg", "rte":
            segment += 1
        case "trkpt", "rtept", "wpt":
            startPoint(parser, kind: GPXPoint.Kind(rawValue: name)!, attributes: attributes)
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        field?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        field?.text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        defer { stack.removeLast() }
        if let depth = skipDepth {
            if stack.count == depth { skipDepth = nil }
            return
        }
        guard var current = point else { return }
        if let field, stack.count == current.depth + 1 {
            self.field = nil
            guard apply(parser, field: field, to: &current.value) else {
                point = nil
                skipDepth = current.depth
                return
            }
            point = current
        } else if stack.count == current.depth {
            point = nil
            if !onPoint(current.value) {
                stopped = true
                parser.abortParsing()
            }
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        // The first error is the one to report, with the position the parser is at now. On Linux
        // (libxml2 in recovery mode) `parse()` even returns true after errors, so this callback is
        // the only reliable signal, and parsing must be stopped here rather than recovered from.
        guard error == nil, !stopped else { return }
        let code = (parseError as NSError).code
        error = GPXParseError(file: fileName, line: parser.lineNumber,
                              column: parser.columnNumber > 0 ? parser.columnNumber : nil,
                              reason: "malformed XML: \(describe(code: code))")
        parser.abortParsing()
    }

    /// Foundation gives only a code (no libxml2 message on Linux); say what it means for a GPX author,
    /// naming the element left open where that is the likely cause. The codes are libxml2's
    /// `xmlParserErrors`, which Apple's `XMLParser.ErrorCode` raw values also follow; the Linux
    /// `ErrorCode` enum's raw values don't match them, so the numbers are matched directly.
    private func describe(code: Int) -> String {
        let open = stack.last.map { "<\($0.name)> opened on line \($0.line)" }
        switch code {
        case 76, 77:  // tag name mismatch, tag not finished
            return "closing tag does not match " + (open ?? "the open element")
        case 5:  // document end
            if let open { return "document ends before \(open) is closed" }
            return "document ends early, or has content after the root element"
        case 23, 24, 26, 27, 68:  // entity reference: no ';', no name, undeclared
            return "bad entity reference (write a literal & as &amp;)"
        case 38 ... 42, 65, 73:  // attribute / literal not started, not finished, without value, redefined
            return "malformed start tag or attribute (values must be quoted, each attribute given once)"
        case 3, 4:  // document start / empty
            return "no XML content"
        case 9:  // invalid character
            return "invalid character (is the file UTF-8?)"
        default:
            return "XML error \(code)"
        }
    }

    // MARK: - Points

    private func startPoint(_ parser: XMLParser, kind: GPXPoint.Kind, attributes: [String: String]) {
        counts.add(kind)
        let element = kind.rawValue
        guard let lat = coordinateValue(parser, attributes, "lat", element: element, limit: 90),
              let lon = coordinateValue(parser, attributes, "lon", element: element, limit: 180)
        else {
            skipDepth = stack.count
            return
        }
        let value = GPXPoint(kind: kind, coordinate: Coordinate(latitude: lat, longitude: lon),
                             segment: kind == .waypoint ? 0 : segment, line: parser.lineNumber)
        point = (value, stack.count)
    }

    private func coordinateValue(_ parser: XMLParser, _ attributes: [String: String], _ name: String,
                                 element: String, limit: Double) -> Double? {
        let field = "\(element) \(name)"
        guard let text = attributes[name] ?? attributes.first(where: { localName($0.key) == name })?.value else {
            reject(parser, field: field, "missing attribute")
            return nil
        }
        guard let value = number(text), value.isFinite else {
            reject(parser, field: field, "\(quoted(text)) is not a number")
            return nil
        }
        guard abs(value) <= limit else {
            reject(parser, field: field, "\(quoted(text)) is outside -\(Int(limit))...\(Int(limit))")
            return nil
        }
        return value
    }

    /// Stores a child element's value on the point; false (after rejecting the point) when it is invalid.
    private func apply(_ parser: XMLParser, field: (name: String, line: Int, text: String),
                       to point: inout GPXPoint) -> Bool {
        let text = trimmed(field.text)
        let label = "\(point.kind.rawValue) \(field.name)"
        func fail(_ reason: String) -> Bool {
            reject(parser, line: field.line, field: label, reason)
            return false
        }
        func finite(_ range: ClosedRange<Double>? = nil) -> Double? {
            guard let value = number(text), value.isFinite else { return nil }
            if let range, !range.contains(value) { return nil }
            return value
        }
        switch field.name {
        case "ele":
            guard let v = finite() else { return fail("\(quoted(text)) is not a number") }
            point.elevation = v
        case "time":
            guard let date = ISO8601Timestamp.parse(text) else {
                return fail("\(quoted(text)) is not an ISO 8601 date-time like 2024-05-01T12:00:00Z")
            }
            point.time = date
        case "hdop", "vdop":
            guard let v = finite(0...Double.greatestFiniteMagnitude) else {
                return fail("\(quoted(text)) is not a non-negative number")
            }
            if field.name == "hdop" { point.hdop = v } else { point.vdop = v }
        case "fix":
            guard let fix = GPXPoint.Fix(rawValue: text) else {
                return fail("\(quoted(text)) is not one of none, 2d, 3d, dgps, pps")
            }
            point.fix = fix
        case "speed":
            guard let v = finite(0...Double.greatestFiniteMagnitude) else {
                return fail("\(quoted(text)) is not a non-negative number")
            }
            point.speed = v
        case "course":
            guard let v = finite(0...360) else { return fail("\(quoted(text)) is not a bearing in 0...360") }
            point.course = v
        case "name":
            point.name = text
        default:
            break
        }
        return true
    }

    // MARK: - Helpers

    private func fail(_ parser: XMLParser, line: Int? = nil, field: String?, _ reason: String) {
        guard error == nil else { return }
        error = GPXParseError(file: fileName, line: line ?? parser.lineNumber, field: field, reason: reason)
        parser.abortParsing()
    }

    /// A bad value in a point: the point is handed to `onRejectedPoint` if there is one (the caller
    /// then skips the rest of it), else the parse fails. Only a point's own values come here; what
    /// breaks the document (XML errors, a root that is not `<gpx>`) always fails it.
    private func reject(_ parser: XMLParser, line: Int? = nil, field: String, _ reason: String) {
        guard let onRejectedPoint else { return fail(parser, line: line, field: field, reason) }
        let rejection = GPXParseError(file: fileName, line: line ?? parser.lineNumber, field: field, reason: reason)
        if !onRejectedPoint(rejection) {
            stopped = true
            parser.abortParsing()
        }
    }

    /// XML decimals: no hex, no `nan`/`inf` words (Double(String) would take them).
    /// Read over UTF-8 bytes, not Characters: a million-point file reads a few million numbers.
    private func number(_ text: String) -> Double? {
        let t = trimmed(text)
        guard !t.isEmpty, t.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x65 || $0 == 0x45 })
        else { return nil }
        return Double(t)
    }

    /// `text` without leading and trailing white space; values written without any (the usual case)
    /// skip Foundation's Unicode-aware trimming.
    private func trimmed(_ text: String) -> String {
        if let first = text.utf8.first, let last = text.utf8.last,
           (0x21..<0x80).contains(first), (0x21..<0x80).contains(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    private func quoted(_ text: String) -> String {
        "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
    }
}
