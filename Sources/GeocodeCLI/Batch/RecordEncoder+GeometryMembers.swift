/// What a Point geometry has besides its type and its longitude and latitude: its `bbox`, foreign
/// members (RFC 7946 §6.1: any but type, coordinates and bbox) and an altitude (a third position value,
/// §3.1.1). CSV, TSV and NDJSON output write the position as lat and lon and have no place for them;
/// GeoJSON and GeoJSONSeq output keep the geometry as it came. As for a feature's own members
/// (``noteUnwrittenMembers(_:_:line:notices:)``), they are said rather than dropped silently: each kind
/// once a run, for the first record that has it.
extension RecordEncoder {
    /// The notices' keys, one a kind.
    static let unwrittenGeometryBboxNotice = "geometry bbox"
    static let unwrittenGeometryMembersNotice = "geometry members"
    static let unwrittenAltitudeNotice = "altitude"

    /// Warns, once a run for each kind (not again once this chunk has said it), of what `record`'s
    /// geometry has that this output does not write. The decoder found the kinds
    /// (``DecodedRecord/geometryExtras``), so a Point without any costs one test here.
    @inline(__always)
    func noteUnwrittenGeometry(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, line: Int, notices: inout [Notice]) {
        guard !record.geometryExtras.isEmpty else { return }
        noteGeometryExtras(b, record, line: line, notices: &notices)
    }

    private func noteGeometryExtras(_ b: UnsafeBufferPointer<UInt8>, _ record: DecodedRecord, line: Int, notices: inout [Notice]) {
        func unsaid(_ key: String) -> Bool { !notices.contains { $0.key == key } }
        let extras = record.geometryExtras
        if extras.contains(.bbox), unsaid(Self.unwrittenGeometryBboxNotice) {
            notices.append(notice(Self.unwrittenGeometryBboxNotice, line: line, has: "the Point geometry has bbox", it: "it",
                                  keptIn: "on the geometry", such: "geometry"))
        }
        if extras.contains(.foreignMembers), unsaid(Self.unwrittenGeometryMembersNotice) {
            let names = RecordDecoder.foreignMemberNames(b, RecordDecoder.geometryMembers(b, of: record.content)).map {
                Self.spelled(member: String(decoding: $0, as: UTF8.self))
            }
            notices.append(notice(Self.unwrittenGeometryMembersNotice, line: line,
                                  has: "the Point geometry has \(names.joined(separator: ", "))",
                                  it: names.count == 1 ? "it" : "them", keptIn: "on the geometry", such: "geometry"))
        }
        if extras.contains(.altitude), unsaid(Self.unwrittenAltitudeNotice) {
            notices.append(notice(Self.unwrittenAltitudeNotice, line: line,
                                  has: "the Point has an altitude (a third value in its coordinates)", it: "it",
                                  keptIn: "in the coordinates", such: "Point"))
        }
    }

    /// `FILE:LINE: <has>, which CSV output does not write (…); GeoJSON and GeoJSONSeq output keep <it> …`.
    private func notice(_ key: String, line: Int, has: String, it: String, keptIn: String, such: String) -> Notice {
        Notice(key: key, message: "\(schema.inputName):\(line): \(has), which \(schema.output.displayName) output does not "
               + "write (it writes the Point's latitude and longitude); GeoJSON and GeoJSONSeq output keep \(it) \(keptIn) "
               + "(said for the first such \(such) only)")
    }
}
