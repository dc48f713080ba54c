/// JSON output's half of ``OutputNames``: per record, since each JSON record carries its own keys.
extension RecordEncoder {
    /// The keys (`"name":`) the added members take in one JSON object.
    struct AddedKeys: Sendable {
        var fields: [[UInt8]]
        var error: [UInt8]
    }

    /// The added members' keys in an object that carries `members`: nil (the usual keys) unless a
    /// member has an added name, in any case. Then the one it has exactly gives way (`geocode_country`),
    /// and each clash is warned about once per key, with `--prefix` as the cure. `feature`: the object
    /// also holds a feature's `id`/`lat`/`lon` (NDJSON output), under this record's `names` or the schema's.
    /// Per record, so: only keys of an added name's length (or with escapes) are compared, and no
    /// closure or array is made (a closure capturing the encoder copied it, a retain per array, per row).
    @inline(__always)
    func addedKeys(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], feature: Bool, names: OutputNames.Feature?,
                   line: Int, notices: inout [Notice]) -> AddedKeys? {
        for member in members {
            let length = member.key.count - 2
            guard member.keyHasEscape || (length < 64 && addedLengths & 1 << UInt64(length) != 0) else { continue }
            for name in foldedAddedNames where name.count == length || member.keyHasEscape {
                guard member.keyEqualsIgnoringCase(b, name) else { continue }
                let own = names ?? schema.featureNames
                return givenWayKeys(b, members, beside: feature ? [own.id, own.lat, own.lon] : [], line: line, notices: &notices)
            }
        }
        return nil
    }

    /// ``addedKeys(_:_:feature:names:line:notices:)`` for the rare object that meets an added name.
    private func givenWayKeys(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], beside written: [[UInt8]],
                              line: Int, notices: inout [Notice]) -> AddedKeys? {
        let keys = members.map { JSONScanner.decodeString(b, $0.key) }
        let carried = Set(keys)
        let place = "\(schema.inputName):\(line)"
        let names = schema.addedNames(inJSONBeside: keys + written)
        var renamed = false
        for (name, now) in zip(schema.addedNames, names) where carried.contains(Array(name.utf8)) {
            renamed = true
            if let message = OutputNames.clashMessage(place: place, what: "key", exact: [name],
                                                      writtenInJSON: [String(decoding: now, as: UTF8.self)], caseOnly: []) {
                notices.append(Notice(key: "repeated " + name, message: message))
            }
        }
        let clashes = OutputNames.caseClashes(carried: keys.map { String(decoding: $0, as: UTF8.self) }, added: schema.addedNames)
        for clash in clashes {
            if let message = OutputNames.clashMessage(place: place, what: "key", exact: [], writtenInJSON: nil, caseOnly: [clash]) {
                notices.append(Notice(key: "case " + clash.carried, message: message))
            }
        }
        guard renamed else { return nil }
        return AddedKeys(fields: names.dropLast().map(Self.memberKey), error: Self.memberKey(names[names.count - 1]))
    }

    /// A feature's `id`/`lat`/`lon` names in NDJSON output beside its `properties`: nil (the schema's,
    /// from the first feature) unless a property has one of them in any case; then this record's own.
    @inline(__always)
    func featureNames(_ b: UnsafeBufferPointer<UInt8>, _ properties: [JSONMember]) -> OutputNames.Feature? {
        for member in properties {
            let length = member.key.count - 2
            guard member.keyHasEscape || (length < 64 && featureNameLengths & 1 << UInt64(length) != 0) else { continue }
            if foldedFeatureNames.contains(where: { member.keyEqualsIgnoringCase(b, $0) }) {
                return OutputNames.Feature(beside: properties.map { JSONScanner.decodeString(b, $0.key) })
            }
        }
        return nil
    }
}
