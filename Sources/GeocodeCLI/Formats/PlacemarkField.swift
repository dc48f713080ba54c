import ReverseGeocoder

/// A placemark value the batch output can carry, with its column/key name.
///
/// Names are snake_case so they work unquoted as CSV headers, SQL columns and JSON keys; the CoreLocation
/// names of ``Placemark``'s properties are accepted as synonyms in `--fields`.
public enum PlacemarkField: String, Sendable, CaseIterable {
    case country
    case countryCode = "country_code"
    case province
    case provinceCode = "province_code"
    case city
    case cityCode = "city_code"
    case district
    case districtCode = "district_code"
    /// "true" when the city is the province itself (province-level cities such as Beijing).
    case cityIsProvince = "city_is_province"
    /// Name of the dataset that answered.
    case dataset

    /// What `--fields` means when not given: the names a person reads, plus the country code that
    /// joins with other data.
    public static let defaults: [PlacemarkField] = [.country, .countryCode, .province, .city, .district]

    /// Accepts the column name, the CoreLocation name, any case, `-` or `_`.
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "_" && $0 != "-" }
        switch key {
        case "country": self = .country
        case "countrycode", "isocountrycode", "iso": self = .countryCode
        case "province", "state", "administrativearea", "admin1": self = .province
        case "provincecode", "statecode", "administrativeareacode": self = .provinceCode
        case "city", "locality": self = .city
        case "citycode", "localitycode": self = .cityCode
        case "district", "county", "sublocality": self = .district
        case "districtcode", "countycode", "sublocalitycode": self = .districtCode
        case "cityisprovince", "localityisprovincefallback": self = .cityIsProvince
        case "dataset": self = .dataset
        default: return nil
        }
    }

    /// Parses a `--fields` list: comma-separated names, or `all`, or `default`.
    public static func parseList(_ text: String) throws(CLIError) -> [PlacemarkField] {
        var fields: [PlacemarkField] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: " ")
            switch name.lowercased() {
            case "all": fields += allCases
            case "default", "defaults": fields += defaults
            default:
                guard let field = PlacemarkField(name: name) else {
                    let known = allCases.map(\.rawValue).joined(separator: ", ")
                    throw .usage("unknown field \"\(name)\" in --fields (known: \(known), all, default)")
                }
                fields.append(field)
            }
        }
        var seen = Set<PlacemarkField>()
        return fields.filter { seen.insert($0).inserted }
    }

    /// The field's value as text (nil when the placemark has none).
    public func text(of placemark: Placemark) -> String? {
        switch self {
        case .country: return placemark.country
        case .countryCode: return placemark.isoCountryCode
        case .province: return placemark.administrativeArea
        case .provinceCode: return placemark.administrativeAreaCode
        case .city: return placemark.locality
        case .cityCode: return placemark.localityCode
        case .district: return placemark.subLocality
        case .districtCode: return placemark.subLocalityCode
        case .cityIsProvince: return placemark.localityIsProvinceFallback ? "true" : "false"
        case .dataset: return placemark.dataset
        }
    }

    /// Appends the value as JSON: a string, a boolean for ``cityIsProvince``, or null.
    func appendJSON(of placemark: Placemark?, to out: inout [UInt8]) {
        guard let placemark else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if self == .cityIsProvince {
            out.append(contentsOf: (placemark.localityIsProvinceFallback ? "true" : "false").utf8)
        } else if let text = text(of: placemark) {
            JSONWriter.appendString(text, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }
}
