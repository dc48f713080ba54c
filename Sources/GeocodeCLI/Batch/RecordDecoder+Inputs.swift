/// The decoder's hooks for the input variants: decimal commas, one column holding both coordinates
/// (`--coords`), and dotted paths into nested NDJSON objects. Kept apart from the hot path's file.
extension RecordDecoder {
    /// A coordinate value's number, with a decimal comma when the schema says so.
    @inline(__always)
    func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        DecimalNumber.parse(bytes, decimalComma: schema.decimalComma)
    }

    func number(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { number($0) }
    }

    /// `--coords COL` for delimited input.
    func decodePairColumn(_ b: UnsafeBufferPointer<UInt8>, _ values: [CSVValue], _ column: Int, into record: inout DecodedRecord) {
        let label = schema.columnLabel(column)
        guard column < values.count else {
            let plural = values.count == 1 ? "field" : "fields"
            record.error = "no coordinates: the row has \(values.count) \(plural), so no \(label)"
            return
        }
        decodePair(values[column].string(in: b), label: label, into: &record)
    }

    /// `--coords KEY` for NDJSON: a string holding the pair, or an array of two numbers.
    func decodePairKey(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], _ key: [UInt8], into record: inout DecodedRecord) {
        let label = "key \"\(String(decoding: key, as: UTF8.self))\""
        // A repeated key on the way was found (and is said) by decodeObject; its last value is read here.
        guard let member = members.lastMember(named: key, in: b).map({ members[$0.index] }) ?? nestedMember(b, members, path: key) else {
            record.error = "no coordinates: the object has no \(label)"
            return
        }
        switch member.kind {
        case .string:
            decodePair(String(decoding: JSONScanner.decodeString(b, member.value), as: UTF8.self), label: label, into: &record)
        case .array:
            var scanner = JSONScanner(b, range: member.value)
            let elements = (try? scanner.arrayElements()) ?? []
            let numbers = elements.compactMap { element -> (value: Double, text: String)? in
                guard element.0 == .number, let v = DecimalNumber.parse(UnsafeBufferPointer(rebasing: b[element.1])) else { return nil }
                return (v, String(decoding: b[element.1], as: UTF8.self))
            }
            guard elements.count == 2, numbers.count == 2 else {
                record.error = "coordinates \(CoordinateCheck.quoted(String(decoding: b[member.value], as: UTF8.self))) are not "
                    + "an array of two numbers (\(label))"
                return
            }
            let (lat, lon) = schema.lonFirst ? (numbers[1], numbers[0]) : (numbers[0], numbers[1])
            check(CoordinatePair(latitude: lat.value, longitude: lon.value, latitudeText: lat.text, longitudeText: lon.text),
                  label: label, into: &record)
        default:
            record.error = "coordinates are \(String(decoding: b[member.value], as: UTF8.self).prefix(40)), not a string or an array (\(label))"
        }
    }

    private func decodePair(_ text: String, label: String, into record: inout DecodedRecord) {
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) {
            record.error = "coordinates are empty (\(label))"
            return
        }
        // Decimal pairs and WKT first; then degrees, minutes and seconds (`48°51'24"N 2°21'08"E`).
        var parsed = CoordinatePair.parse(text, lonFirst: schema.lonFirst, decimalComma: schema.decimalComma)
        if parsed == nil, text.contains(where: { "°'′\"″".contains($0) }), case .success(let dms) = DMSCoordinate.parse(text) {
            parsed = dms
        }
        guard let pair = parsed else {
            record.error = "coordinates \(CoordinateCheck.quoted(text)) are not \"lat,lon\", \"lat lon\" or POINT(lon lat) (\(label))"
            return
        }
        check(pair, label: label, into: &record)
    }

    private func check(_ pair: CoordinatePair, label: String, into record: inout DecodedRecord) {
        let lat = CoordinateCheck.Value.number(pair.latitude, text: .string(pair.latitudeText))
        let lon = CoordinateCheck.Value.number(pair.longitude, text: .string(pair.longitudeText))
        let order = schema.lonFirst ? " read as lon,lat" : ""
        switch CoordinateCheck.coordinate(lat: lat, latWhere: label + order, lon: lon, lonWhere: label + order) {
        case .success(let c): record.coordinate = c
        case .failure(let e): record.error = e.message
        }
    }

    /// The member at a dotted path (`location.lat`) through nested objects, when the path has a dot and
    /// no member is named by the whole path itself. Nil otherwise. At each level the last member of a
    /// repeated key is the one read (``Swift/Array/lastMember(where:)``), as the output holds it
    /// (``DistinctJSON``).
    func nestedMember(_ b: UnsafeBufferPointer<UInt8>, _ members: [JSONMember], path: [UInt8]) -> JSONMember? {
        guard let dot = path.firstIndex(of: UInt8(ascii: ".")), dot > 0, dot < path.count - 1 else { return nil }
        let head = Array(path[..<dot]), rest = Array(path[(dot + 1)...])
        guard let (index, _) = members.lastMember(named: head, in: b), members[index].kind == .object else {
            return nil
        }
        var scanner = JSONScanner(b, range: members[index].value)
        guard let inner = try? scanner.objectMembers() else { return nil }
        return inner.lastMember(named: rest, in: b).map { inner[$0.index] } ?? nestedMember(b, inner, path: rest)
    }
}
