/// What the engine answers for a point: the administrative units containing it (or nearest to it), the
/// time zone and the water, named the way CoreLocation's `CLPlacemark` names them.
///
/// Every property is listed once in the field table, ``PlacemarkField``: the `Codable` keys, the CLI's
/// columns and `--json`, the Spark schema and the index cache's layout are all derived from it.
///
/// A value type backed by one shared, copy-on-write storage object: the engine hands out the same
/// resolved placemark for every point in a unit, and returning it costs one reference count instead of
/// copying a dozen strings (a quarter of a query's time when it was a plain struct).
///
/// ## Names in several languages
/// A unit may carry its name in several languages (``Unit/names``). Each name the placemark shows is in
/// one language, said by ``language(at:)`` (nil: the dataset's own name, language not recorded).
/// ``localized(to:)`` gives the placemark in the languages a user prefers; see there for the fallback order.
public struct Placemark: Hashable, Sendable {
    /// How a level's unit was found for the point asked about.
    public enum Provenance: Hashable, Sendable {
        /// The point is inside the unit's polygon.
        case inside
        /// The unit has no level of its own here and repeats its province: a province-level division with
        /// no city level, China's municipalities (Beijing's `locality` is Beijing) and its special
        /// administrative regions (Hong Kong's is Hong Kong), which are no "province-level cities".
        case provinceFallback
        /// The nearest populated place, `metres` away (a locality built from places, not polygons).
        case nearestPlace(metres: Double)
        /// The point is in no unit of the level; this is the nearest one, `metres` from the point.
        case nearestUnit(metres: Double)

        /// The provenance without its distance, as the field table writes it.
        public enum Kind: String, Sendable, CaseIterable, Codable {
            case inside
            case provinceFallback = "province_fallback"
            case nearestPlace = "nearest_place"
            case nearestUnit = "nearest_unit"
        }

        public var kind: Kind {
            switch self {
            case .inside: .inside
            case .provinceFallback: .provinceFallback
            case .nearestPlace: .nearestPlace
            case .nearestUnit: .nearestUnit
            }
        }

        /// Metres from the point to the unit or place; nil when the point is in the unit.
        public var distance: Double? {
            switch self {
            case .inside, .provinceFallback: nil
            case .nearestPlace(let m), .nearestUnit(let m): m
            }
        }

        /// Rebuilds a provenance from its parts (a distance is required by the "nearest" kinds; 0 if missing).
        public init(kind: Kind, distance: Double?) {
            switch kind {
            case .inside: self = .inside
            case .provinceFallback: self = .provinceFallback
            case .nearestPlace: self = .nearestPlace(metres: distance ?? 0)
            case .nearestUnit: self = .nearestUnit(metres: distance ?? 0)
            }
        }
    }

    /// One level's unit: its name (in one language), code, other-language names and provenance.
    public struct Unit: Hashable, Sendable {
        /// The name shown (see ``language``).
        public var name: String?
        /// The unit's code: ISO 3166-1 alpha-2 for a country, ISO 3166-2 or the dataset's code below.
        public var code: String?
        /// The language of ``name`` (a BCP 47 tag such as "en", "zh"); nil when the dataset does not say.
        public var language: String?
        /// The unit's names by language tag, for ``Placemark/localized(to:)``. May be empty.
        public var names: [String: String]
        /// How the unit was found.
        public var provenance: Provenance

        public init(name: String? = nil, code: String? = nil, language: String? = nil, names: [String: String] = [:],
                    provenance: Provenance = .inside) {
            self.name = name
            self.code = code
            self.language = language
            self.names = names
            self.provenance = provenance
        }
    }

    private final class Storage: @unchecked Sendable {
        // @unchecked: mutated only through `Placemark`'s setters after a uniqueness check (copy on write).
        /// Indexed by ``AdminLevel/rank``.
        var units: ContiguousArray<Unit>
        var timeZone: String?, ocean: String?, inlandWater: String?
        var dataset: String
        /// The unit's place, for a distance measured when read (``QueryDistance/from(_:)``); no part of
        /// the value (equality, hashing, `Codable` see only the distances it gives).
        var place: NearestPlace?

        init(units: ContiguousArray<Unit>, timeZone: String?, ocean: String?, inlandWater: String?, dataset: String,
             place: NearestPlace? = nil) {
            self.units = units
            self.timeZone = timeZone; self.ocean = ocean; self.inlandWater = inlandWater
            self.dataset = dataset
            self.place = place
        }

        /// A copy; `text` may give each string its own buffer (see ``Placemark/unshared()``).
        func copy(_ text: (String?) -> String? = { $0 }) -> Storage {
            Storage(units: ContiguousArray(units.map { u in
                        Unit(name: text(u.name), code: text(u.code), language: text(u.language), names: u.names, provenance: u.provenance)
                    }),
                    timeZone: text(timeZone), ocean: text(ocean), inlandWater: text(inlandWater), dataset: text(dataset)!,
                    place: place)
        }
    }

    private var storage: Storage

    /// This answer's own distance to its nearest place, for every level whose provenance is
    /// ``Provenance/nearestPlace(metres:)``.
    private enum QueryDistance {
        /// None: the storage's own distances stand.
        case none
        /// This many metres.
        case metres(Double)
        /// From this WGS-84 point to the storage's ``NearestPlace``, measured when read.
        case from(Coordinate)

        /// The same case and the same bits (a cheap "equal" that never measures).
        func isIdentical(to other: QueryDistance) -> Bool {
            switch (self, other) {
            case (.none, .none): true
            case (.metres(let a), .metres(let b)): a.bitPattern == b.bitPattern
            case (.from(let a), .from(let b)): a.latitude.bitPattern == b.latitude.bitPattern && a.longitude.bitPattern == b.longitude.bitPattern
            default: false
            }
        }
    }

    /// Kept beside the shared storage, not in it: the engine sets it per query on the thread's copy of a
    /// unit's placemark without copying that storage (no allocation, no shared reference count). Every
    /// read applies it; the first mutation writes it into the storage (see ``unique()``), so the value
    /// semantics are exactly those of a placemark whose units carry the distance.
    private var queryDistance = QueryDistance.none

    /// Sets the distance of every ``Provenance/nearestPlace(metres:)`` level of this answer, without
    /// touching the shared storage.
    @inline(__always)
    package mutating func setNearestPlaceDistance(_ metres: Double) { queryDistance = metres.isNaN ? .none : .metres(metres) }

    /// Sets the point (WGS-84) every ``Provenance/nearestPlace(metres:)`` level's distance is measured from,
    /// to the place ``setNearestPlace(_:)`` gave the storage, when the distance is read (the engine's
    /// per-query path: nothing is measured for a caller that never reads it). Without such a place the
    /// storage's own distances stand.
    @inline(__always)
    package mutating func setNearestPlaceQuery(_ point: Coordinate) { queryDistance = .from(point) }

    /// Gives the storage the unit's place, for ``setNearestPlaceQuery(_:)`` (once per unit, when the
    /// engine makes its placemark).
    package mutating func setNearestPlace(_ place: NearestPlace) { unique().place = place }

    /// Whether this value carries a per-query distance: two values with the same ``storageIdentity``
    /// then differ in their distances.
    package var hasQueryDistance: Bool {
        if case .none = queryDistance { return false }
        return true
    }

    /// The per-query distance in metres, nil when there is none.
    @inline(__always)
    private var queryMetres: Double? {
        switch queryDistance {
        case .none: nil
        case .metres(let m): m
        case .from(let point): storage.place?.metres(from: point)
        }
    }

    /// A unit as read: the per-query distance applied.
    @inline(__always)
    private func effective(_ unit: Unit) -> Unit {
        guard case .nearestPlace = unit.provenance, let metres = queryMetres else { return unit }
        var u = unit
        u.provenance = .nearestPlace(metres: metres)
        return u
    }

    /// All units as read.
    private var effectiveUnits: ContiguousArray<Unit> {
        hasQueryDistance ? ContiguousArray(storage.units.map(effective)) : storage.units
    }

    /// An equal placemark that shares no reference-counted object read on the query path with this one
    /// (see the engine's `QueryContext.placemark`): threads retaining it never contend for a cache line.
    package func unshared() -> Placemark {
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

    /// The identity of this value's storage: the same for every copy of one placemark, different for any
    /// other placemark alive at the same time. For caches of what was derived from a placemark (the
    /// CLI's encoded columns); whoever keys on it must keep the placemark alive while the key is used.
    package var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        if hasQueryDistance {
            for i in storage.units.indices { storage.units[i] = effective(storage.units[i]) }
            queryDistance = .none
        }
        return storage
    }

    // MARK: - Levels

    /// The unit at a level (an empty unit when the placemark has none there).
    public subscript(level: AdminLevel) -> Unit {
        get { effective(storage.units[level.rank]) }
        set { unique().units[level.rank] = newValue }
    }

    /// Name at a level.
    public func name(at level: AdminLevel) -> String? { storage.units[level.rank].name }
    /// Code at a level (the country's code is its ISO alpha-2).
    public func code(at level: AdminLevel) -> String? { storage.units[level.rank].code }
    /// The language of the name at a level (nil: the dataset's own name, language not recorded).
    public func language(at level: AdminLevel) -> String? { storage.units[level.rank].language }
    /// How the unit at a level was found; nil when the placemark has no unit there.
    public func provenance(at level: AdminLevel) -> Provenance? {
        let u = storage.units[level.rank]
        return u.name == nil && u.code == nil ? nil : effective(u).provenance
    }

    /// Sets a level's name and code, keeping its other names and provenance.
    public mutating func set(_ level: AdminLevel, name: String?, code: String?) {
        let s = unique()
        s.units[level.rank].name = name
        s.units[level.rank].code = code
    }

    // MARK: - CLPlacemark's properties

    /// Whether some administrative level has a unit (a name or a code): false for a placemark that only
    /// an overlay answered, such as the time zone of a point at sea. The CLI's "found" says this.
    public var hasAdministrativeUnit: Bool {
        storage.units.contains { $0.name != nil || $0.code != nil }
    }

    /// The finest name the placemark has: the district, else the city, the sub-administrative area, the
    /// province, the country, else the water the point is in.
    public var name: String? {
        for level in AdminLevel.allCases.reversed() { if let n = storage.units[level.rank].name { return n } }
        return storage.inlandWater ?? storage.ocean
    }
    /// Country name (e.g. "中国", "Germany").
    public var country: String? {
        get { storage.units[AdminLevel.country.rank].name }
        set { unique().units[AdminLevel.country.rank].name = newValue }
    }
    /// ISO 3166-1 alpha-2 code (e.g. "CN", "DE"), when the dataset knows it.
    public var isoCountryCode: String? {
        get { storage.units[AdminLevel.country.rank].code }
        set { unique().units[AdminLevel.country.rank].code = newValue }
    }
    /// Province / state name (China: the province, 省).
    public var administrativeArea: String? {
        get { storage.units[AdminLevel.province.rank].name }
        set { unique().units[AdminLevel.province.rank].name = newValue }
    }
    /// Province / state code (ISO 3166-2 "DE-BE" where one exists, else the dataset's, e.g. adcode "110000").
    public var administrativeAreaCode: String? {
        get { storage.units[AdminLevel.province.rank].code }
        set { unique().units[AdminLevel.province.rank].code = newValue }
    }
    /// Second-order division name where it is not the locality (a county, a département).
    public var subAdministrativeArea: String? {
        get { storage.units[AdminLevel.subAdministrativeArea.rank].name }
        set { unique().units[AdminLevel.subAdministrativeArea.rank].name = newValue }
    }
    /// Second-order division code.
    public var subAdministrativeAreaCode: String? {
        get { storage.units[AdminLevel.subAdministrativeArea.rank].code }
        set { unique().units[AdminLevel.subAdministrativeArea.rank].code = newValue }
    }
    /// City name (China: the prefecture city, 地级市). Inside a province-level division with no city level
    /// (the municipalities Beijing, Shanghai, ...; the SARs Hong Kong and Macau) this is the province's name
    /// and ``localityIsProvinceFallback`` is true. In Taiwan, which the China data has as one unit, the
    /// city is the GeoNames place (Taipei), not the province (see the manifest's `completedBelow`).
    public var locality: String? {
        get { storage.units[AdminLevel.city.rank].name }
        set { unique().units[AdminLevel.city.rank].name = newValue }
    }
    /// City code.
    public var localityCode: String? {
        get { storage.units[AdminLevel.city.rank].code }
        set { unique().units[AdminLevel.city.rank].code = newValue }
    }
    /// District / county name (China: 区/县).
    public var subLocality: String? {
        get { storage.units[AdminLevel.district.rank].name }
        set { unique().units[AdminLevel.district.rank].name = newValue }
    }
    /// District / county code.
    public var subLocalityCode: String? {
        get { storage.units[AdminLevel.district.rank].code }
        set { unique().units[AdminLevel.district.rank].code = newValue }
    }
    /// The IANA time zone of the point (e.g. "Asia/Shanghai"), when the data has time zones.
    public var timeZone: String? {
        get { storage.timeZone }
        set { unique().timeZone = newValue }
    }
    /// The ocean or sea the point is in, when the data names water bodies.
    public var ocean: String? {
        get { storage.ocean }
        set { unique().ocean = newValue }
    }
    /// The lake, river or reservoir the point is in, when the data names water bodies.
    public var inlandWater: String? {
        get { storage.inlandWater }
        set { unique().inlandWater = newValue }
    }
    /// True when ``locality`` was filled from the province because the unit has no separate city level:
    /// a municipality (Beijing) or a special administrative region (Hong Kong, Macau). Not in Taiwan: the
    /// China data has no city there, and the city comes from the GeoNames places (false, `nearest_place`).
    /// (The same as `provenance(at: .city) == .provinceFallback`, kept as the convenience it always was.)
    public var localityIsProvinceFallback: Bool {
        get { storage.units[AdminLevel.city.rank].provenance == .provinceFallback }
        set {
            let s = unique()
            if newValue {
                s.units[AdminLevel.city.rank].provenance = .provinceFallback
            } else if s.units[AdminLevel.city.rank].provenance == .provinceFallback {
                s.units[AdminLevel.city.rank].provenance = .inside
            }
        }
    }
    /// Name of the dataset that answered (from its manifest). In a unit that dataset does not divide
    /// (its manifest's `completedBelow`: Taiwan in the China data) the levels below the unit are the next
    /// dataset's (the GeoNames places); this stays the first dataset's name, and those levels' provenance
    /// (`nearest_place`) says how they were found.
    public var dataset: String {
        get { storage.dataset }
        set { unique().dataset = newValue }
    }

    public init(country: String? = nil, isoCountryCode: String? = nil,
                administrativeArea: String? = nil, administrativeAreaCode: String? = nil,
                subAdministrativeArea: String? = nil, subAdministrativeAreaCode: String? = nil,
                locality: String? = nil, localityCode: String? = nil,
                subLocality: String? = nil, subLocalityCode: String? = nil,
                timeZone: String? = nil, ocean: String? = nil, inlandWater: String? = nil,
                localityIsProvinceFallback: Bool = false, dataset: String) {
        var units = ContiguousArray<Unit>(repeating: Unit(), count: AdminLevel.allCases.count)
        units[AdminLevel.country.rank] = Unit(name: country, code: isoCountryCode)
        units[AdminLevel.province.rank] = Unit(name: administrativeArea, code: administrativeAreaCode)
        units[AdminLevel.subAdministrativeArea.rank] = Unit(name: subAdministrativeArea, code: subAdministrativeAreaCode)
        units[AdminLevel.city.rank] = Unit(name: locality, code: localityCode,
                                           provenance: localityIsProvinceFallback ? .provinceFallback : .inside)
        units[AdminLevel.district.rank] = Unit(name: subLocality, code: subLocalityCode)
        storage = Storage(units: units, timeZone: timeZone, ocean: ocean, inlandWater: inlandWater, dataset: dataset)
    }

    /// A placemark from all its units, indexed by ``AdminLevel/rank`` (one per level).
    package init(units: ContiguousArray<Unit>, dataset: String) {
        precondition(units.count == AdminLevel.allCases.count, "one unit per level")
        storage = Storage(units: units, timeZone: nil, ocean: nil, inlandWater: nil, dataset: dataset)
    }

    /// A placemark from its units (indexed by level; missing levels are empty).
    public init(units: [AdminLevel: Unit], timeZone: String? = nil, ocean: String? = nil, inlandWater: String? = nil,
                dataset: String) {
        var all = ContiguousArray<Unit>(repeating: Unit(), count: AdminLevel.allCases.count)
        for (level, unit) in units { all[level.rank] = unit }
        storage = Storage(units: all, timeZone: timeZone, ocean: ocean, inlandWater: inlandWater, dataset: dataset)
    }

    // MARK: - Languages

    /// This placemark with each level's name in the first of `preferredLanguages` the unit has a name in.
    ///
    /// Fallback order, per level: each preferred language tag in the order given; for each, first a name in
    /// the script the tag names or its region implies (`zh-Hant`, `zh-Hant-TW`, `zh-HK`: Traditional, from
    /// `zh-TW`/`zh-HK`/`zh-MO`; `zh-Hans`: Simplified, from `zh-CN` or China's own `zh`), the tag's region
    /// first (`zh-Hant-HK` takes `zh-HK` before `zh-TW`); then the tag as written and shortened subtag by
    /// subtag (`zh-Hans-CN`, `zh-Hans`, `zh`), compared without regard to case; then, if none of those has
    /// a name, a longer tag of the same language (`zh` takes `zh-CN`, the first such tag in sorted order)
    /// (`LanguageMatch.best(for:among:)` has the rule in full); then the name the dataset gives the unit.
    /// ``language(at:)`` says which tag answered (nil for the dataset's own name when the dataset does not
    /// say its language): `zh-Hant` answered by `zh-TW` says `zh-TW`, and where a level has no Traditional
    /// name it falls back to the Simplified one and says `zh-CN`. Levels may so end up in different
    /// languages; each says its own.
    ///
    /// Not for the hot path: it builds a new placemark. The engine localizes each unit once, on first use.
    public func localized(to preferredLanguages: [String]) -> Placemark {
        guard !preferredLanguages.isEmpty else { return self }
        var p = self
        for level in AdminLevel.allCases {
            let unit = storage.units[level.rank]
            if let (language, name) = Self.pick(unit, preferredLanguages) {
                let s = p.unique()
                s.units[level.rank].name = name
                s.units[level.rank].language = language
            }
        }
        return p
    }

    /// The unit's name in the first matching language of the fallback order, with the tag it matched.
    private static func pick(_ unit: Unit, _ preferred: [String]) -> (String, String)? {
        guard !unit.names.isEmpty || unit.language != nil else { return nil }
        // The dataset's own name first, so it answers for its language before an equal tag of the table.
        var tags: [String] = [], names: [String] = []
        if let own = unit.language, let name = unit.name { tags.append(own); names.append(name) }
        for (language, name) in unit.names { tags.append(language); names.append(name) }
        for tag in preferred {
            if let i = LanguageMatch.best(for: tag, among: tags) { return (tags[i], names[i]) }
        }
        return nil
    }

    // MARK: - Equality

    public static func == (a: Placemark, b: Placemark) -> Bool {
        (a.storage === b.storage && a.queryDistance.isIdentical(to: b.queryDistance))
            || (a.effectiveUnits == b.effectiveUnits && a.storage.timeZone == b.storage.timeZone
                && a.storage.ocean == b.storage.ocean && a.storage.inlandWater == b.storage.inlandWater
                && a.storage.dataset == b.storage.dataset)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(effectiveUnits)
        hasher.combine(storage.timeZone)
        hasher.combine(storage.ocean)
        hasher.combine(storage.inlandWater)
        hasher.combine(storage.dataset)
    }
}

extension StringProtocol {
    /// Whether this tag starts with `prefix` followed by a subtag separator (ASCII case-insensitive).
    func hasLanguagePrefix<S: StringProtocol>(_ prefix: S) -> Bool {
        guard count > prefix.count else { return false }
        let head = self.prefix(prefix.count)
        let next = self[index(startIndex, offsetBy: prefix.count)]
        return (next == "-" || next == "_") && head.caseInsensitivelyEquals(prefix)
    }

    /// ASCII case-insensitive equality (language tags are ASCII).
    func caseInsensitivelyEquals<S: StringProtocol>(_ other: S) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
