/// THE field table: every value a ``Placemark`` carries, once, in output order.
///
/// Everything that writes or reads placemarks is derived from ``allCases``: the library's `Codable`
/// keys (``key``), the CLI's batch columns and `--fields` names (``column``), `geocode --json`,
/// `geocode track --json`, the Spark schema (`geocode fields --json`) and the index cache's placemark
/// layout. Adding a field is one case here (the compiler then asks for its key, kind, value and setter),
/// plus the data that fills it.
///
/// Keys are CLPlacemark's property names (`administrativeArea`, `timeZone`); columns are the same
/// names in snake_case (`administrative_area`, `time_zone`), derived mechanically from the key.
public enum PlacemarkField: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The finest name the placemark has (derived: the district, else the city, ... else the water).
    case name
    /// One level's name, code, provenance, distance or name language.
    case level(AdminLevel, Aspect)
    /// IANA time zone id.
    case timeZone
    /// Ocean or sea name.
    case ocean
    /// Lake, river or reservoir name.
    case inlandWater
    /// The dataset that answered.
    case dataset
    /// Derived from the locality's provenance: true when the city is the province itself.
    case localityIsProvinceFallback

    /// What a level field says about its unit.
    public enum Aspect: String, Hashable, Sendable, CaseIterable {
        case name, code, source, distance, language
    }

    /// How a field's value is written.
    public enum Kind: String, Sendable {
        /// A string, or null.
        case text
        /// A number (metres), or null.
        case number
        /// true or false, never null.
        case flag
    }

    /// A field's value in one placemark.
    public enum Value: Hashable, Sendable {
        case text(String?)
        case number(Double?)
        case flag(Bool)

        /// The value as CLI text: nil for null, "true"/"false" for flags, the shortest round-trip digits
        /// for numbers.
        public var text: String? {
            switch self {
            case .text(let s): s
            case .number(let d): d.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : String($0) }
            case .flag(let b): b ? "true" : "false"
            }
        }
    }

    /// Every field, in output order: the placemark's name, then each level coarse to fine (name, code,
    /// provenance, distance, language), then time zone, water, dataset and the derived flag.
    public static let allCases: [PlacemarkField] =
        [.name] + AdminLevel.allCases.flatMap { level in Aspect.allCases.map { PlacemarkField.level(level, $0) } }
        + [.timeZone, .ocean, .inlandWater, .dataset, .localityIsProvinceFallback]

    /// The library's key (`Codable`, `geocode --json`): CLPlacemark's property name.
    public var key: String {
        switch self {
        case .name: return "name"
        case .level(.country, .code): return "isoCountryCode"
        case .level(let level, let aspect):
            return aspect == .name ? level.placemarkKey : level.placemarkKey + aspect.rawValue.prefix(1).uppercased() + aspect.rawValue.dropFirst()
        case .timeZone: return "timeZone"
        case .ocean: return "ocean"
        case .inlandWater: return "inlandWater"
        case .dataset: return "dataset"
        case .localityIsProvinceFallback: return "localityIsProvinceFallback"
        }
    }

    /// The CLI's column and `--fields` name: ``key`` in snake_case (`timeZone` → `time_zone`).
    public var column: String { Self.snakeCase(key) }

    public var description: String { key }

    /// `camelCase` → `camel_case` (ASCII keys only).
    public static func snakeCase(_ key: String) -> String {
        var out = ""
        for c in key {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }

    public var kind: Kind {
        switch self {
        case .level(_, .distance): .number
        case .localityIsProvinceFallback: .flag
        default: .text
        }
    }

    /// Whether the value is computed from other fields (never stored, never set).
    public var isDerived: Bool {
        switch self {
        case .name, .localityIsProvinceFallback: true
        default: false
        }
    }

    /// The field by library key or column name (exact).
    public init?(key: String) {
        guard let field = Self.byName[key] else { return nil }
        self = field
    }

    private static let byName: [String: PlacemarkField] = {
        var map: [String: PlacemarkField] = [:]
        for field in allCases { map[field.key] = field; map[field.column] = field }
        return map
    }()

    /// The field's value in `placemark`.
    public func value(of placemark: Placemark) -> Value {
        switch self {
        case .name: return .text(placemark.name)
        case .level(let level, let aspect):
            let unit = placemark[level]
            switch aspect {
            case .name: return .text(unit.name)
            case .code: return .text(unit.code)
            case .source: return .text(placemark.provenance(at: level)?.kind.rawValue)
            case .distance: return .number(placemark.provenance(at: level)?.distance)
            case .language: return .text(unit.language)
            }
        case .timeZone: return .text(placemark.timeZone)
        case .ocean: return .text(placemark.ocean)
        case .inlandWater: return .text(placemark.inlandWater)
        case .dataset: return .text(placemark.dataset)
        case .localityIsProvinceFallback: return .flag(placemark.localityIsProvinceFallback)
        }
    }

    /// Sets the field in `placemark` (derived fields ignore it). A source sets the kind of provenance and
    /// keeps its distance (0 for a "nearest" kind until its distance is set: decoding sets the source,
    /// then the distance, as the table orders them); a distance sets the distance of a "nearest"
    /// provenance and is ignored by the others.
    public func set(_ value: Value, in placemark: inout Placemark) throws(PlacemarkFieldError) {
        switch self {
        case .name, .localityIsProvinceFallback: return
        case .level(let level, _):
            var unit = placemark[level]
            try set(value, in: &unit)
            placemark[level] = unit
        case .timeZone: placemark.timeZone = try text(of: value)
        case .ocean: placemark.ocean = try text(of: value)
        case .inlandWater: placemark.inlandWater = try text(of: value)
        case .dataset:
            guard let s = try text(of: value) else { throw PlacemarkFieldError(field: self, reason: "must not be null") }
            placemark.dataset = s
        }
    }

    /// Sets a level field in its unit, as the placemark form of `set` does; other fields
    /// leave the unit as it is. For decoders that build a placemark's units first and the placemark once
    /// (the index cache: setting field by field on a placemark copied a unit per field, a third of a
    /// cold start's instructions).
    public func set(_ value: Value, in unit: inout Placemark.Unit) throws(PlacemarkFieldError) {
        guard case .level(_, let aspect) = self else { return }
        switch aspect {
        case .name: unit.name = try text(of: value)
        case .code: unit.code = try text(of: value)
        case .language: unit.language = try text(of: value)
        case .source:
            guard let raw = try text(of: value) else { unit.provenance = .inside; break }
            guard let kind = Placemark.Provenance.Kind(rawValue: raw) else {
                throw PlacemarkFieldError(field: self, reason: "unknown provenance \"\(raw)\" (known: "
                                          + Placemark.Provenance.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            unit.provenance = Placemark.Provenance(kind: kind, distance: unit.provenance.distance)
        case .distance:
            guard case .number(let d) = value else { throw PlacemarkFieldError(field: self, reason: "expected a number") }
            unit.provenance = Placemark.Provenance(kind: unit.provenance.kind, distance: d)
        }
    }

    private func text(of value: Value) throws(PlacemarkFieldError) -> String? {
        guard case .text(let s) = value else { throw PlacemarkFieldError(field: self, reason: "expected text") }
        return s
    }
}

/// A value that does not fit its field (decoding a placemark).
public struct PlacemarkFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: PlacemarkField
    public var reason: String
    public var description: String { "placemark field \(field.key): \(reason)" }
}

extension Placemark: CustomStringConvertible {
    /// The fields that have a value, by the table's keys: `Placemark(country: 中国, isoCountryCode: CN, ...)`.
    public var description: String {
        let parts = PlacemarkField.allCases.compactMap { field -> String? in
            guard field != .name, field != .localityIsProvinceFallback, let text = field.value(of: self).text else { return nil }
            if case .level(_, .source) = field, text == Placemark.Provenance.Kind.inside.rawValue { return nil }
            return "\(field.key): \(text)"
        }
        return "Placemark(" + parts.joined(separator: ", ") + ")"
    }
}
