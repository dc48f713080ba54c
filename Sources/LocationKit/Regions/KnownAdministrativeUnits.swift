import GeoModel

/// The codes and names of the administrative units a geocoder's data has, by level, to check an
/// ``AdministrativeArea`` against before monitoring it: an area no unit of the data matches can never
/// be entered, so a ``RegionMonitor`` given these refuses it up front (``problem(with:)``), naming
/// what is missing, instead of watching it in silence.
///
/// Built from the units' placemarks as the geocoder answers them, so "matches" means what
/// ``AdministrativeArea/contains(_:)`` means on a fix's placemark: codes exactly, names ignoring case
/// (the name shown and every name in other languages), and the placemark's country when the area
/// gives one.
public struct KnownAdministrativeUnits: Sendable {
    /// Per level: code → the (upper-cased) country codes of the placemarks it appears in ("" for none).
    private var codes: [AdminLevel: [String: Set<String>]] = [:]
    /// Per level: normalized name → country codes, likewise.
    private var names: [AdminLevel: [String: Set<String>]] = [:]

    /// One unit as met in a placemark, to index each once.
    private struct UnitKey: Hashable {
        var level: AdminLevel
        var code: String?
        var name: String?
        var country: String
    }

    /// The units of these placemarks (one per unit, or many: repeats cost nothing but time).
    public init(_ placemarks: some Sequence<Placemark>) {
        // A unit recurs in every placemark under it (a country in each of its 40,000 localities), with up
        // to 150 names: each distinct unit is indexed once.
        var seen = Set<UnitKey>()
        for placemark in placemarks {
            let country = placemark.isoCountryCode?.uppercased() ?? ""
            for level in AdminLevel.allCases {
                let unit = placemark[level]
                guard unit.code != nil || unit.name != nil,
                      seen.insert(UnitKey(level: level, code: unit.code, name: unit.name, country: country)).inserted else { continue }
                if let code = unit.code, !code.isEmpty { codes[level, default: [:]][code, default: []].insert(country) }
                for name in [unit.name].compactMap({ $0 }) + unit.names.values {
                    let key = AdministrativeArea.normalized(name)
                    if !key.isEmpty { names[level, default: [:]][key, default: []].insert(country) }
                }
            }
        }
    }

    /// The units a catalog (the engine) lists: ``AdministrativeUnitCatalog/administrativeUnits()``.
    public init(_ catalog: any AdministrativeUnitCatalog) throws(GeocoderError) {
        self.init(try catalog.administrativeUnits())
    }

    /// Only the units of `catalog` that have one of the codes or names of `areas` (at any level, in any
    /// country): enough for ``problem(with:)`` to answer for each of `areas` exactly as with every unit
    /// (the same text, with where else the data has the code or name), found without making every
    /// unit's placemark and normalizing every name of the data
    /// (``AdministrativeUnitCatalog/administrativeUnits(withCode:orName:)``). `geocode track --region` checks its
    /// file so: with every unit listed, the check cost it more CPU than the rest of its start.
    ///
    /// Any other area is reported missing: give every area it will be asked about (a ``RegionMonitor``
    /// checks the regions added later with the same units).
    public init(_ catalog: any AdministrativeUnitCatalog, checking areas: some Sequence<AdministrativeArea>) throws(GeocoderError) {
        var filter = AreaKeyFilter(areas)
        guard !filter.isEmpty else {
            self.init([Placemark]())
            return
        }
        self.init(try catalog.administrativeUnits(withCode: filter.codes, orName: &filter))
    }

    /// ``init(_:checking:)`` with the administrative areas of `regions` (circles need no units).
    public init(_ catalog: any AdministrativeUnitCatalog, checking regions: [MonitoredRegion]) throws(GeocoderError) {
        try self.init(catalog, checking: regions.compactMap { region -> AdministrativeArea? in
            if case .administrative(let area) = region.area { return area }
            return nil
        })
    }

    /// Whether some unit of the data matches `area`, as a fix's placemark would.
    public func contains(_ area: AdministrativeArea) -> Bool {
        problem(with: area) == nil
    }

    /// Why no fix can ever be in `area` with this data (naming the level, the code or name, the country,
    /// and where the data does have it), or `nil` when some unit matches.
    public func problem(with area: AdministrativeArea) -> String? {
        let table: [AdminLevel: [String: Set<String>]], kind: String, value: String, key: String
        switch area.key {
        case .code(let code): (table, kind, value, key) = (codes, "code", code, code)
        case .name(let name): (table, kind, value, key) = (names, "name", name, AdministrativeArea.normalized(name))
        }
        let country = area.isoCountryCode?.uppercased()
        let levels = area.level.map { [$0] } ?? AdminLevel.allCases
        if levels.contains(where: { level in table[level]?[key].map { country == nil || $0.contains(country!) } ?? false }) {
            return nil
        }
        var text = "no \(area.level?.rawValue ?? "unit") in the loaded data has \(kind) \"\(value)\""
            + (country.map { " in country \($0)" } ?? "")
        // Where the data has it after all: another level, or another country.
        let elsewhere = AdminLevel.allCases.compactMap { level -> String? in
            guard let countries = table[level]?[key] else { return nil }
            let listed = countries.filter { !$0.isEmpty }.sorted()
            return level.rawValue + (listed.isEmpty ? "" : " in " + listed.joined(separator: ", "))
        }
        if !elsewhere.isEmpty { text += " (the data has it as: " + elsewhere.joined(separator: ", ") + ")" }
        return text
    }

    /// ``problem(with:)`` for a region's administrative area; `nil` for a circle.
    public func problem(with region: MonitoredRegion) -> String? {
        guard case .administrative(let area) = region.area else { return nil }
        return problem(with: area)
    }
}
