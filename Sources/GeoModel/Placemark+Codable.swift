/// `Codable` by the field table: one key per ``PlacemarkField`` (its ``PlacemarkField/key``), every key
/// present, null when empty, so a consumer sees the same keys for every placemark (and the same keys as
/// `geocode --json`).
///
/// Decoding accepts any subset of the keys (a file written by an older version lacks the new ones): a
/// missing text is nil, and the old `localityIsProvinceFallback` flag still marks the locality's
/// provenance when no `localitySource` says otherwise. The units' other-language names
/// (``Placemark/Unit/names``) are not written: a placemark is encoded as answered, in its languages.
extension Placemark: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ field: PlacemarkField) { stringValue = field.key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(dataset: try c.decode(String.self, forKey: Key(.dataset)))
        for field in PlacemarkField.allCases where !field.isDerived && field != .dataset {
            let key = Key(field)
            let value: PlacemarkField.Value
            switch field.kind {
            case .text: value = .text(try c.decodeIfPresent(String.self, forKey: key))
            case .number: value = .number(try c.decodeIfPresent(Double.self, forKey: key))
            case .flag: value = .flag(try c.decodeIfPresent(Bool.self, forKey: key) ?? false)
            }
            do {
                try field.set(value, in: &self)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
            }
        }
        let source = Key(.level(.city, .source))
        if try c.decodeIfPresent(String.self, forKey: source) == nil,
           try c.decodeIfPresent(Bool.self, forKey: Key(.localityIsProvinceFallback)) == true {
            localityIsProvinceFallback = true
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for field in PlacemarkField.allCases {
            let key = Key(field)
            switch field.value(of: self) {
            case .text(let s): if let s { try c.encode(s, forKey: key) } else { try c.encodeNil(forKey: key) }
            case .number(let d): if let d { try c.encode(d, forKey: key) } else { try c.encodeNil(forKey: key) }
            case .flag(let b): try c.encode(b, forKey: key)
            }
        }
    }
}
