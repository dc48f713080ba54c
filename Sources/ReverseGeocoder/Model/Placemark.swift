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
public struct Placemark: Hashable, Sendable, Codable {
    /// Country name as the dataset spells it (e.g. "中国", "Germany").
    public var country: String?
    /// ISO 3166-1 alpha-2 code (e.g. "CN", "DE"), when the dataset knows it.
    public var isoCountryCode: String?
    /// Province / state name.
    public var administrativeArea: String?
    /// Province / state code (e.g. adcode "110000", ISO 3166-2 "DE-BE").
    public var administrativeAreaCode: String?
    /// City name. Inside a province-level city (Beijing, Shanghai, ...) this is the province's name and
    /// ``localityIsProvinceFallback`` is true.
    public var locality: String?
    /// City code.
    public var localityCode: String?
    /// District / county name.
    public var subLocality: String?
    /// District / county code.
    public var subLocalityCode: String?
    /// True when ``locality`` was filled from the province because the unit has no separate city level.
    public var localityIsProvinceFallback: Bool
    /// Name of the dataset that answered (from its manifest).
    public var dataset: String

    public init(country: String? = nil, isoCountryCode: String? = nil,
                administrativeArea: String? = nil, administrativeAreaCode: String? = nil,
                locality: String? = nil, localityCode: String? = nil,
                subLocality: String? = nil, subLocalityCode: String? = nil,
                localityIsProvinceFallback: Bool = false, dataset: String) {
        self.country = country
        self.isoCountryCode = isoCountryCode
        self.administrativeArea = administrativeArea
        self.administrativeAreaCode = administrativeAreaCode
        self.locality = locality
        self.localityCode = localityCode
        self.subLocality = subLocality
        self.subLocalityCode = subLocalityCode
        self.localityIsProvinceFallback = localityIsProvinceFallback
        self.dataset = dataset
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
