/// A GeoJSON feature's members that CSV, TSV and NDJSON output have no place for: its `bbox` and any
/// foreign member (RFC 7946 §6.1: any but type, id, geometry, properties and bbox). GeoJSON and
/// GeoJSONSeq output keep them on the feature; the others write the id, the position and the
/// properties, and say once a run what they left out rather than a column per member.
extension RecordEncoder {
    /// The notice's key: one warning a run, for the first feature that has such members.
    static let unwrittenMembersNotice = "feature members"

    /// Warns (once a run: not again once this chunk has said it) when the feature `members` (each key
    /// once) hold any but type, id, geometry and properties, naming them. Per feature, so a member's
    /// key is told by its length first, and nothing is built for a feature without one.
    @inline(__always)
    func noteUnwrittenMembers(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], line: Int, notices: inout [Notice]) {
        for member in members where !Self.isWrittenFeatureMember(b, member) {
            guard !notices.contains(where: { $0.key == Self.unwrittenMembersNotice }) else { return }
            notices.append(unwrittenMembersNotice(b, members, line: line))
            return
        }
    }

    /// Whether a feature's member is one that every output writes (its type, id, geometry's position,
    /// properties).
    @inline(__always)
    private static func isWrittenFeatureMember(_ b: UnsafeBufferPointer<UInt8>, _ member: JSONMember) -> Bool {
        guard !member.keyHasEscape else {
            return writtenMemberNames.contains(JSONScanner.decodeString(b, member.key))
        }
        let name: [UInt8]
        switch member.key.count - 2 {
        case 2: name = writtenMemberNames[1]
        case 4: name = writtenMemberNames[0]
        case 8: name = writtenMemberNames[2]
        case 10: name = writtenMemberNames[3]
        default: return false
        }
        return JSONScanner.plainStringEquals(b, member.key, name)
    }

    /// A GeoJSON member's name as the warnings spell it: bbox is GeoJSON's own; a foreign member is
    /// quoted, as the file spells a key.
    static func spelled(member name: String) -> String { name == "bbox" ? name : "\"\(name)\"" }

    private static let writtenMemberNames = ["type", "id", "geometry", "properties"].map { Array($0.utf8) }

    /// The warning: `FILE:LINE: the feature has bbox, "source", …`, with the outputs that keep them.
    private func unwrittenMembersNotice(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], line: Int) -> Notice {
        let names = members.filter { !Self.isWrittenFeatureMember(b, $0) }.map { member in
            Self.spelled(member: String(decoding: JSONScanner.decodeString(b, member.key), as: UTF8.self))
        }
        return Notice(key: Self.unwrittenMembersNotice, message: "\(schema.inputName):\(line): the feature has "
                      + "\(names.joined(separator: ", ")), which \(schema.output.displayName) output does not write (it "
                      + "writes a feature's id, position and properties); GeoJSON and GeoJSONSeq output keep "
                      + "\(names.count == 1 ? "it" : "them") on the feature (said for the first such feature only)")
    }
}
