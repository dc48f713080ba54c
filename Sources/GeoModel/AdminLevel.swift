/// The administrative levels a placemark names, coarsest first.
///
/// Each level is one of CoreLocation's `CLPlacemark` properties. In China the levels follow what
/// `CLGeocoder` answers there: province (省/自治区/直辖市) → ``province`` (`administrativeArea`), prefecture
/// city (地级市) → ``city`` (`locality`), district or county (区/县) → ``district`` (`subLocality`).
/// Province-level divisions with no prefecture level (the municipalities Beijing, Shanghai, ...; the special
/// administrative regions Hong Kong and Macau): their `locality` is the province itself, with the provenance
/// ``Placemark/Provenance/provinceFallback``.
public enum AdminLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Sovereign country (admin-0). `country` / `isoCountryCode`.
    case country
    /// Province, state, region (admin-1). `administrativeArea`.
    case province
    /// The second-order division where it is not the locality (a US county, a French département, GeoNames
    /// admin-2). `subAdministrativeArea`. China's prefecture cities are ``city``, not this level.
    case subAdministrativeArea = "subadministrativearea"
    /// City (a prefecture city in China, a municipality or populated place elsewhere). `locality`.
    case city
    /// District / county within the city (admin-3 in China). `subLocality`.
    case district

    /// Position in ``allCases`` (0 = country), the index of the level's slot in a placemark.
    public var rank: Int {
        switch self {
        case .country: 0
        case .province: 1
        case .subAdministrativeArea: 2
        case .city: 3
        case .district: 4
        }
    }
    public static func < (a: AdminLevel, b: AdminLevel) -> Bool { a.rank < b.rank }

    /// The CLPlacemark-style name of the level's name property (`administrativeArea` for ``province``): the
    /// key the field table builds this level's fields from.
    public var placemarkKey: String {
        switch self {
        case .country: "country"
        case .province: "administrativeArea"
        case .subAdministrativeArea: "subAdministrativeArea"
        case .city: "locality"
        case .district: "subLocality"
        }
    }
}
