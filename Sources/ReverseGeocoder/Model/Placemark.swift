/// The administrative levels the engine resolves, coarsest first.
public enum AdminLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Sovereign country (admin-0).
    case country
    /// Province, state, region (admin-1). CoreLocation's `administrativeArea`.
    case province
    /// City / prefecture (admin-2 in China). CoreLocation's `locality`.
    case city
    /// District / county (admin-3 in China). CoreLocation's `subLocality`.
    case district

    public var rank: Int { AdminLevel.allCases.firstIndex(of: self)! }
    public static func < (a: AdminLevel, b: AdminLevel) -> Bool { a.rank < b.rank }
}

/// What the engine answers for a point: the administrative units containing it, named the way
/// CoreLocation's `CLPlacemark` names them.
///
/// A value type backed by one shared, copy-on-write storage object: the engine hands out the same
/// resolved placemark for every point in a unit, and returning it costs one reference count instead of
/// copying nine strings (a quarter of a query's time when it was a plain struct).
public struct Placemark: Hashable, Sendable, Codable {
    private final class Storage: @unchecked Sendable {
        // @unchecked: mutated only through `Placemark`'s setters after a uniqueness check (copy on write).
        var country: String?, isoCountryCode: String?
        var administrativeArea: String?, administrativeAreaCode: String?
        var locality: String?, localityCode: String?
        var subLocality: String?, subLocalityCode: String?
        var localityIsProvinceFallback: Bool
        var dataset: String

        init(country: String?, isoCountryCode: String?, administrativeArea: String?, administrativeAreaCode: String?,
             locality: String?, localityCode: String?, subLocality: String?, subLocalityCode: String?,
             localityIsProvinceFallback: Bool, dataset: String) {
            self.country = country; self.isoCountryCode = isoCountryCode
            self.administrativeArea = administrativeArea; self.administrativeAreaCode = administrativeAreaCode
            self.locality = locality; self.localityCode = localityCode
            self.subLocality = subLocality; self.subLocalityCode = subLocalityCode
            self.localityIsProvinceFallback = localityIsProvinceFallback; self.dataset = dataset
        }

        /// A copy; `text` may give each string its own buffer (see ``Placemark/unshared()``).
        func copy(_ text: (String?) -> String? = { $0 }) -> Storage {
            Storage(country: text(country), isoCountryCode: text(isoCountryCode), administrativeArea: text(administrativeArea),
                    administrativeAreaCode: text(administrativeAreaCode), locality: text(locality), localityCode: text(localityCode),
                    subLocality: text(subLocality), subLocalityCode: text(subLocalityCode),
                    localityIsProvinceFallback: localityIsProvinceFallback, dataset: text(dataset)!)
        }
    }

    private var storage: Storage

    /// An equal placemark that shares no reference-counted object with this one (see
    /// `QueryContext.placemark`): threads retaining it never contend for a cache line.
    func unshared() -> Placemark {
        var p = self
        // Strings' own buffers too: a shared string buffer is as much a shared reference count.
        p.storage = storage.copy { s in
            s.map { s in
                let utf8 = Array(s.utf8)
                return String(unsafeUninitializedCapacity: utf8.count) { _ = $0.initialize(fromContentsOf: utf8); return utf8.count }
            }
        }
        return p
    }

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Country name as the dataset spells it (e.g. "中国", "Germany").
    public var country: String? {
        get { storage.country }
        set { unique().country = newValue }
    }
    /// ISO 3166-1 alpha-2 code (e.g. "CN", "DE"), when the dataset knows it.
    public var isoCountryCode: String? {
        get { storage.isoCountryCode }
        set { unique().isoCountryCode = newValue }
    }
    /// Province / state name.
    public var administrativeArea: String? {
        get { storage.administrativeArea }
        set { unique().administrativeArea = newValue }
    }
    /// Province / state code (e.g. adcode "110000", ISO 3166-2 "DE-BE").
    public var administrativeAreaCode: String? {
        get { storage.administrativeAreaCode }
        set { unique().administrativeAreaCode = newValue }
    }
    /// City name. Inside a province-level city (Beijing, Shanghai, ...) this is the province's name and
    /// ``localityIsProvinceFallback`` is true.
    public var locality: String? {
        get { storage.locality }
        set { unique().locality = newValue }
    }
    /// City code.
    public var localityCode: String? {
        get { storage.localityCode }
        set { unique().localityCode = newValue }
    }
    /// District / county name.
    public var subLocality: String? {
        get { storage.subLocality }
        set { unique().subLocality = newValue }
    }
    /// District / county code.
    public var subLocalityCode: String? {
        get { storage.subLocalityCode }
        set { unique().subLocalityCode = newValue }
    }
    /// True when ``locality`` was filled from the province because the unit has no separate city level.
    public var localityIsProvinceFallback: Bool {
        get { storage.localityIsProvinceFallback }
        set { unique().localityIsProvinceFallback = newValue }
    }
    /// Name of the dataset that answered (from its manifest).
    public var dataset: String {
        get { storage.dataset }
        set { unique().dataset = newValue }
    }

    public init(country: String? = nil, isoCountryCode: String? = nil,
                administrativeArea: String? = nil, administrativeAreaCode: String? = nil,
                locality: String? = nil, localityCode: String? = nil,
                subLocality: String? = nil, subLocalityCode: String? = nil,
                localityIsProvinceFallback: Bool = false, dataset: String) {
        storage = Storage(country: country, isoCountryCode: isoCountryCode, administrativeArea: administrativeArea,
                          administrativeAreaCode: administrativeAreaCode, locality: locality, localityCode: localityCode,
                          subLocality: subLocality, subLocalityCode: subLocalityCode,
                          localityIsProvinceFallback: localityIsProvinceFallback, dataset: dataset)
    }

    // Equality, hashing and coding by value, as the synthesized ones of the plain struct did (same keys).
    private var fields: [String?] {
        [country, isoCountryCode, administrativeArea, administrativeAreaCode, locality, localityCode, subLocality,
         subLocalityCode, dataset]
    }

    public static func == (a: Placemark, b: Placemark) -> Bool {
        a.storage === b.storage || (a.fields == b.fields && a.localityIsProvinceFallback == b.localityIsProvinceFallback)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(localityIsProvinceFallback)
    }

    private enum CodingKeys: String, CodingKey {
        case country, isoCountryCode, administrativeArea, administrativeAreaCode, locality, localityCode
        case subLocality, subLocalityCode, localityIsProvinceFallback, dataset
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(country: try c.decodeIfPresent(String.self, forKey: .country),
                  isoCountryCode: try c.decodeIfPresent(String.self, forKey: .isoCountryCode),
                  administrativeArea: try c.decodeIfPresent(String.self, forKey: .administrativeArea),
                  administrativeAreaCode: try c.decodeIfPresent(String.self, forKey: .administrativeAreaCode),
                  locality: try c.decodeIfPresent(String.self, forKey: .locality),
                  localityCode: try c.decodeIfPresent(String.self, forKey: .localityCode),
                  subLocality: try c.decodeIfPresent(String.self, forKey: .subLocality),
                  subLocalityCode: try c.decodeIfPresent(String.self, forKey: .subLocalityCode),
                  localityIsProvinceFallback: try c.decode(Bool.self, forKey: .localityIsProvinceFallback),
                  dataset: try c.decode(String.self, forKey: .dataset))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(country, forKey: .country)
        try c.encodeIfPresent(isoCountryCode, forKey: .isoCountryCode)
        try c.encodeIfPresent(administrativeArea, forKey: .administrativeArea)
        try c.encodeIfPresent(administrativeAreaCode, forKey: .administrativeAreaCode)
        try c.encodeIfPresent(locality, forKey: .locality)
        try c.encodeIfPresent(localityCode, forKey: .localityCode)
        try c.encodeIfPresent(subLocality, forKey: .subLocality)
        try c.encodeIfPresent(subLocalityCode, forKey: .subLocalityCode)
        try c.encode(localityIsProvinceFallback, forKey: .localityIsProvinceFallback)
        try c.encode(dataset, forKey: .dataset)
    }

    /// Name at a level.
    public func name(at level: AdminLevel) -> String? {
        switch level {
        case .country: return country
        case .province: return administrativeArea
        case .city: return locality
        case .district: return subLocality
        }
    }

    /// Code at a level (the country's code is its ISO alpha-2).
    public func code(at level: AdminLevel) -> String? {
        switch level {
        case .country: return isoCountryCode
        case .province: return administrativeAreaCode
        case .city: return localityCode
        case .district: return subLocalityCode
        }
    }
}
