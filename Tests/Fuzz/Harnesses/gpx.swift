// libFuzzer harness: a GPX document through GPXParser.
//
// Invariants:
// - no point is dropped silently: when the parser succeeds, its track/route/waypoint counts equal
//   the counts of a reference pass written here over the same XML events (every trkpt/rtept/wpt by
//   local name, outside <extensions>, not nested in another point, under a <gpx> root);
// - every value it returns is in the range GPX allows (coordinates valid, dops/speed non-negative,
//   course 0...360, all finite), points come in document order (line numbers never decrease) and
//   segments never decrease along a track;
// - parsing is deterministic (twice the same input, twice the same answer or error).
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import LocationSources

/// Counts points from the raw XML events, knowing nothing about GPXParser's state machine.
private final class ReferenceCounter: NSObject, XMLParserDelegate {
    var names: [String] = []
    var counts = ["trkpt": 0, "rtept": 0, "wpt": 0]
    var rootIsGPX = false
    var failed = false

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:]) {
        let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
        if names.isEmpty { rootIsGPX = local == "gpx" }
        let inside = names.dropFirst()  // the root itself may be anything for this count
        if counts[local] != nil, names.count >= 1, !inside.contains("extensions"),
           !inside.contains(where: { counts[$0] != nil }), local != "extensions", !(names.count == 1 && local == "extensions") {
            counts[local]! += 1
        }
        names.append(local)
    }
    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        names.removeLast()
    }
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failed = true
        parser.abortParsing()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    let first = Result { () throws(GPXParseError) in try GPXParser.parse(input, fileName: "fuzz.gpx") }
    let second = Result { () throws(GPXParseError) in try GPXParser.parse(input, fileName: "fuzz.gpx") }
    check(first == second, "two parses of the same bytes differ")
    guard case .success(let document) = first else { return 0 }

    let reference = ReferenceCounter()
    // The reference reads the bytes XMLParser can take (GPXEncoding: UTF-8, no empty processing
    // instructions), as the parser did; the raw input can crash FoundationXML and libxml2.
    guard let prepared = try? GPXEncoding.prepare(input, fileName: "fuzz.gpx") else {
        violation("GPXParser accepted input that GPXEncoding refuses")
    }
    let xml = XMLParser(data: prepared)
    xml.shouldProcessNamespaces = true
    xml.shouldResolveExternalEntities = false
    xml.delegate = reference
    _ = xml.parse()
    check(!reference.failed, "GPXParser accepted a document the XML parser rejects")
    check(reference.rootIsGPX, "GPXParser accepted a document whose root is not <gpx>")
    check(document.trackPoints.count == reference.counts["trkpt"]
          && document.routePoints.count == reference.counts["rtept"]
          && document.waypoints.count == reference.counts["wpt"],
          "points dropped or invented: parser \(document.trackPoints.count)/\(document.routePoints.count)/\(document.waypoints.count), reference \(reference.counts)")

    for (list, kind) in [(document.trackPoints, GPXPoint.Kind.trackPoint), (document.routePoints, .routePoint), (document.waypoints, .waypoint)] {
        var line = 0, segment = 0
        for p in list {
            check(p.kind == kind, "a \(p.kind) in the \(kind) list")
            check(p.coordinate.isValid, "invalid coordinate \(p.coordinate)")
            check(p.line >= line, "points out of document order (line \(p.line) after \(line))")
            check(p.segment >= segment, "segment went back from \(segment) to \(p.segment)")
            line = p.line
            segment = p.segment
            if let v = p.elevation { check(v.isFinite, "elevation \(v)") }
            if let v = p.hdop { check(v.isFinite && v >= 0, "hdop \(v)") }
            if let v = p.vdop { check(v.isFinite && v >= 0, "vdop \(v)") }
            if let v = p.speed { check(v.isFinite && v >= 0, "speed \(v)") }
            if let v = p.course { check(v.isFinite && (0...360).contains(v), "course \(v)") }
            if let t = p.time { check(t.timeIntervalSince1970.isFinite, "time \(t)") }
        }
    }
    return 0
}
