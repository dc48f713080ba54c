import Foundation

/// Describes one dataset: which shapefiles, which administrative level each holds, which DBF fields carry
/// the names and codes, the datum of the coordinates, and where the data came from. Stored as
/// `manifest.json` beside the shapefiles; presets build one for Natural Earth and GADM files.
///
/// ```json
/// { "format": 1, "name": "china", "datum": "gcj02", "priority": 10,
///   "constants": { "country": { "name": "中国", "code": "CN" } },
///   "layers": [ { "file": "china_district.shp", "level": "district",
///                 "fields": { "district": { "name": "name", "code": "adcode" },
///                             "province": { "name": "province", "code": "prov_code" } } } ] }
/// ```
///
/// An **overlay** dataset (`"role": "overlay"`, e.g. time zones) fills fields other than the
/// administrative levels into whatever placemark the admin datasets answer, and answers alone where no
/// admin unit contains the point (at sea). Its layers have no `level`; their `fields` are keyed by the
/// placemark field they fill (``overlayFields``: `timeZone`, `ocean`, `inlandWater`):
///
/// ```json
/// { "format": 1, "name": "timezones", "role": "overlay", "datum": "wgs84", "priority": 200,
///   "attribution": "Time zones: timezone-boundary-builder by Evan Siroky, ODbL 1.0",
///   "layers": [ { "file": "timezones.shp", "fields": { "timeZone": { "name": "tzid" } } } ] }
/// ```
///
/// An admin layer made from populated places says which levels are the nearest place rather than a
/// polygon containing the point (``Layer/provenance``) and where each record's place is (``Layer/place``):
/// those levels then answer `.nearestPlace(metres:)`, the distance computed per query.
public struct DatasetManifest: Codable, Sendable, Equatable {
    /// Manifest format version (1).
    public var format: Int?
    /// Short name, reported in every placemark this dataset answers.
    public var name: String
    public var title: String?
    /// Datum of the coordinates in the files.
    public var datum: Datum
    /// Datasets are consulted in ascending priority; the first admin one with a polygon containing the point
    /// answers, then every overlay one fills its fields (the first overlay to give a field wins).
    public var priority: Int
    /// What the dataset answers: administrative units (the default) or overlay fields.
    public var role: Role
    /// The one line of credit the data's licence asks for (CC BY, ODbL), printed by `geocode info`.
    public var attribution: String?
    public var source: String?
    public var sourceVersion: String?
    public var license: String?
    /// The command that rebuilds the files.
    public var build: String?
    /// Values for levels the files do not carry (e.g. the country of a China-only dataset), by level name.
    public var constants: [String: Unit]?
    /// Province codes of the province-level divisions that have no city level of their own (China's
    /// municipalities Beijing, Shanghai, ... and its special administrative regions Hong Kong and Macau):
    /// their locality falls back to the province even where the dataset has no city level at all.
    public var municipalityCodes: [String]?
    /// Units this dataset has no finer division of, by level name and the unit's code at that level
    /// (China's `{"province": ["710000"]}`: the data has Taiwan as one polygon, with no city or district).
    /// The dataset answers such a unit down to its own level only, and the levels below it
    /// (sub-administrative area, city, district) come from the next admin dataset, by priority, that has a
    /// unit containing the point (the GeoNames places: Taipei), with that dataset's provenance (a
    /// nearest place's distance). Without such a dataset they stay empty. A listed unit is answered by the
    /// layer of its level (no record of a finer layer may lie in it), and is no municipality.
    public var completedBelow: [String: [String]]?
    public var layers: [Layer]
    /// The dataset's names table (path relative to the manifest's directory, or absolute): every unit's
    /// name in other languages, by level and code (format: `Data/README.md`, "Names tables"; read by
    /// ``NamesTable``). nil: the data's own names only.
    public var names: String?
    /// ISO 3166-1 country codes for units the dataset files under another country, by level name and the
    /// unit's code at that level (China's `{"province": {"710000": "TW", "810000": "HK", "820000": "MO"}}`).
    /// Answered as `isoCountryCode` under ``ReverseGeocoder/Worldview/iso3166`` (the default); the names
    /// stay the dataset's. ``ReverseGeocoder/Worldview/dataset`` keeps the dataset's own codes.
    public var isoCountryCodes: [String: [String: String]]?
    /// Admin dataset: how far, in metres, its borders between countries may lie from the true line (a
    /// generalized source's error). Where an overlay's time zone belongs to one other country
    /// (``timeZoneCountries``), the answer moves to that country's nearest unit of this dataset if one
    /// is this near (``ReverseGeocoder/Options/refinesBordersByTimeZone``). nil: the borders are trusted
    /// as drawn (China's, from Amap).
    public var borderAccuracy: Double?
    /// Overlay dataset: the one ISO 3166-1 alpha-2 country of each time zone that belongs to exactly one
    /// (tzdata's `zone1970.tab`, else `zone.tab`), by the zone's name. Zones shared by several countries
    /// (Europe/Belgrade, Asia/Bangkok) and the oceans' are absent: they say nothing about a border.
    public var timeZoneCountries: [String: String]?
    /// Overlay dataset: pairs of countries whose border the time zones are not to move (the zones follow
    /// who administers a place where the admin data follows another view: East Jerusalem and the West
    /// Bank's settlements under Asia/Jerusalem, say).
    public var disputedBorders: [[String]]?
    /// Size and SHA-256 of each file, by path relative to the manifest's directory (as `Data/build.py`
    /// writes them). When an index is built from the shapefiles, every source file listed here is checked
    /// against its digest (see ``ReverseGeocoder/Options/allowModifiedData``); files not listed are not.
    public var files: [String: FileDigest]?

    /// What a dataset answers.
    public enum Role: String, Codable, Sendable, CaseIterable {
        /// Administrative units (country ... district): the first admin dataset containing the point answers.
        case admin
        /// Fields laid over every answer (time zone, water), from polygons of their own.
        case overlay

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            let raw = try c.decode(String.self)
            guard let role = Role(rawValue: raw) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown role \"\(raw)\" (admin, overlay)")
            }
            self = role
        }
    }

    /// The placemark fields an overlay layer may fill, by their ``PlacemarkField/key``.
    public static let overlayFields: [PlacemarkField] = [.timeZone, .ocean, .inlandWater]

    /// How the units of a level were found for a point.
    public enum LevelProvenance: String, Codable, Sendable, CaseIterable {
        /// The record's polygon contains the point (the default).
        case inside
        /// The record is the cell of a populated place: the unit is the nearest place, at a distance
        /// computed per query from ``Layer/place``.
        case nearestPlace = "nearest_place"

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            let raw = try c.decode(String.self)
            guard let p = LevelProvenance(rawValue: raw) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown provenance \"\(raw)\" (inside, nearest_place)")
            }
            self = p
        }
    }

    /// DBF character fields holding a record's place in WGS-84 decimal degrees.
    public struct Place: Codable, Sendable, Equatable {
        public var latitude: String
        public var longitude: String
        public init(latitude: String, longitude: String) { self.latitude = latitude; self.longitude = longitude }
    }

    /// What a manifest records of one file.
    public struct FileDigest: Codable, Sendable, Equatable {
        public var bytes: Int?
        /// 64 hex digits.
        public var sha256: String?
        public init(bytes: Int? = nil, sha256: String? = nil) { self.bytes = bytes; self.sha256 = sha256 }
    }

    /// One shapefile and the level of its records.
    public struct Layer: Codable, Sendable, Equatable {
        /// Path of the `.shp`, relative to the manifest's directory (or absolute).
        public var file: String
        /// The level of each record in this file; nil (and required to be) in an overlay dataset.
        public var level: AdminLevel?
        /// Admin layer: for each level the records carry (their own and, ideally, all coarser ones), the
        /// DBF fields of its name and code, by level name. Overlay layer: for each field it fills (by
        /// ``PlacemarkField/key``, see ``DatasetManifest/overlayFields``), the DBF field of its value
        /// (`name`).
        public var fields: [String: Fields]
        /// Per level name, how its units were found (absent: ``LevelProvenance/inside``).
        public var provenance: [String: LevelProvenance]?
        /// Where each record's place is, for the levels whose provenance is
        /// ``LevelProvenance/nearestPlace``.
        public var place: Place?

        public init(file: String, level: AdminLevel, fields: [AdminLevel: Fields],
                    provenance: [AdminLevel: LevelProvenance] = [:], place: Place? = nil) {
            self.file = file
            self.level = level
            self.fields = Dictionary(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) })
            self.provenance = provenance.isEmpty ? nil : Dictionary(uniqueKeysWithValues: provenance.map { ($0.key.rawValue, $0.value) })
            self.place = place
        }

        /// An overlay layer: the DBF field of each placemark field it fills.
        public init(file: String, overlayFields: [PlacemarkField: String]) {
            self.file = file
            level = nil
            fields = Dictionary(uniqueKeysWithValues: overlayFields.map { ($0.key.key, Fields(name: [$0.value])) })
        }

        /// The provenance of a level's units in this layer.
        public func provenance(of level: AdminLevel) -> LevelProvenance { provenance?[level.rawValue] ?? .inside }
    }

    /// DBF fields holding a level's name and code. Each may list several candidates: the first field that
    /// exists and has a usable value for a record is taken (e.g. Natural Earth's `ISO_A2_EH`, then `ISO_A2`).
    public struct Fields: Codable, Sendable, Equatable {
        public var name: FieldList?
        public var code: FieldList?

        public init(name: [String]? = nil, code: [String]? = nil) {
            self.name = name.map(FieldList.init)
            self.code = code.map(FieldList.init)
        }
    }

    /// One field name or a list of candidates (JSON: a string or an array of strings).
    public struct FieldList: Codable, Sendable, Equatable {
        public var candidates: [String]
        public init(_ candidates: [String]) { self.candidates = candidates }
        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let one = try? c.decode(String.self) { candidates = [one] } else { candidates = try c.decode([String].self) }
        }
        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            if candidates.count == 1 { try c.encode(candidates[0]) } else { try c.encode(candidates) }
        }
    }

    /// A fixed name/code for a level.
    public struct Unit: Codable, Sendable, Equatable {
        public var name: String?
        public var code: String?
        public init(name: String?, code: String?) { self.name = name; self.code = code }
    }

    public init(name: String, title: String? = nil, datum: Datum = .wgs84, priority: Int = 100, role: Role = .admin,
                source: String? = nil, sourceVersion: String? = nil, license: String? = nil, attribution: String? = nil,
                build: String? = nil, constants: [AdminLevel: Unit] = [:], municipalityCodes: [String] = [], layers: [Layer]) {
        format = 1
        self.name = name
        self.role = role
        self.attribution = attribution
        self.title = title
        self.datum = datum
        self.priority = priority
        self.source = source
        self.sourceVersion = sourceVersion
        self.license = license
        self.build = build
        self.constants = constants.isEmpty ? nil : Dictionary(uniqueKeysWithValues: constants.map { ($0.key.rawValue, $0.value) })
        self.municipalityCodes = municipalityCodes.isEmpty ? nil : municipalityCodes
        self.layers = layers
    }

    enum CodingKeys: String, CodingKey {
        case format, name, title, datum, priority, role, source, sourceVersion, license, attribution, build, constants,
             municipalityCodes, layers, files
        case names, isoCountryCodes
        case borderAccuracy, timeZoneCountries, disputedBorders
        case completedBelow
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decodeIfPresent(Int.self, forKey: .format)
        name = try c.decode(String.self, forKey: .name)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        datum = try c.decodeIfPresent(Datum.self, forKey: .datum) ?? .wgs84
        priority = try c.decodeIfPresent(Int.self, forKey: .priority) ?? 100
        role = try c.decodeIfPresent(Role.self, forKey: .role) ?? .admin
        attribution = try c.decodeIfPresent(String.self, forKey: .attribution)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        sourceVersion = try c.decodeIfPresent(String.self, forKey: .sourceVersion)
        license = try c.decodeIfPresent(String.self, forKey: .license)
        build = try c.decodeIfPresent(String.self, forKey: .build)
        constants = try c.decodeIfPresent([String: Unit].self, forKey: .constants)
        municipalityCodes = try c.decodeIfPresent([String].self, forKey: .municipalityCodes)
        layers = try c.decode([Layer].self, forKey: .layers)
        files = try c.decodeIfPresent([String: FileDigest].self, forKey: .files)
        names = try c.decodeIfPresent(String.self, forKey: .names)
        isoCountryCodes = try c.decodeIfPresent([String: [String: String]].self, forKey: .isoCountryCodes)
        borderAccuracy = try c.decodeIfPresent(Double.self, forKey: .borderAccuracy)
        timeZoneCountries = try c.decodeIfPresent([String: String].self, forKey: .timeZoneCountries)
        disputedBorders = try c.decodeIfPresent([[String]].self, forKey: .disputedBorders)
        completedBelow = try c.decodeIfPresent([String: [String]].self, forKey: .completedBelow)
    }

    /// Reads and checks a `manifest.json`.
    public static func load(from url: URL) throws -> DatasetManifest {
        let file = url.path
        let data = try FileReading.contents(of: file)
        let manifest: DatasetManifest
        do {
            manifest = try JSONDecoder().decode(DatasetManifest.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw GeocoderError.badManifest(file: file, reason: "invalid JSON at \(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw GeocoderError.badManifest(file: file, reason: "missing \"\(key.stringValue)\" at \(Self.path(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw GeocoderError.badManifest(file: file, reason: "wrong type at \(Self.path(context.codingPath + [])): \(context.debugDescription)")
        } catch let DecodingError.valueNotFound(_, context) {
            throw GeocoderError.badManifest(file: file, reason: "null at \(Self.path(context.codingPath))")
        } catch {
            throw GeocoderError.badManifest(file: file, reason: "\(error)")
        }
        try manifest.validate(file: file)
        return manifest
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// Checks what JSON decoding cannot: level names used as keys, field lists, format version.
    public func validate(file: String) throws {
        if let format, format != 1 {
            throw GeocoderError.badManifest(file: file, reason: "format \(format) is not supported (this engine reads format 1)")
        }
        if layers.isEmpty { throw GeocoderError.badManifest(file: file, reason: "no layers") }
        for key in (constants ?? [:]).keys where AdminLevel(rawValue: key) == nil {
            throw GeocoderError.badManifest(file: file, reason: "constants: unknown level \"\(key)\" (country, province, city, district)")
        }
        if role == .overlay {
            if constants != nil { throw GeocoderError.badManifest(file: file, reason: "constants: an overlay dataset has no levels") }
            if municipalityCodes != nil { throw GeocoderError.badManifest(file: file, reason: "municipalityCodes: an overlay dataset has no levels") }
        }
        for (key, codes) in isoCountryCodes ?? [:] {
            guard AdminLevel(rawValue: key) != nil else {
                throw GeocoderError.badManifest(file: file, reason: "isoCountryCodes: unknown level \"\(key)\" (country, province, city, district)")
            }
            for (unit, code) in codes where CountryCodes.alpha2(code) != code {
                throw GeocoderError.badManifest(file: file, reason: "isoCountryCodes.\(key).\(unit): \"\(code)\" is not an ISO 3166-1 alpha-2 code")
            }
        }
        for (key, codes) in completedBelow ?? [:] {
            let reason = "completedBelow.\(key)"
            if role == .overlay { throw GeocoderError.badManifest(file: file, reason: "completedBelow: an overlay dataset has no levels") }
            guard let level = AdminLevel(rawValue: key) else {
                throw GeocoderError.badManifest(file: file, reason: "completedBelow: unknown level \"\(key)\" (country, province, city, district)")
            }
            guard level < .district else {
                throw GeocoderError.badManifest(file: file, reason: "\(reason): district has no finer level to complete")
            }
            guard layers.contains(where: { $0.level == level }) else {
                throw GeocoderError.badManifest(file: file, reason: "\(reason): no layer of level \(key) answers these units")
            }
            for code in codes where code.isEmpty { throw GeocoderError.badManifest(file: file, reason: "\(reason): empty code") }
            if level == .province, let both = codes.first(where: { (municipalityCodes ?? []).contains($0) }) {
                throw GeocoderError.badManifest(file: file, reason: "\(reason): \(both) is also in municipalityCodes (a unit with no finer level has no city to fall back from)")
            }
        }
        if let names, names.isEmpty { throw GeocoderError.badManifest(file: file, reason: "names: empty file name") }
        try validateBorderFields(file: file)
        for (i, layer) in layers.enumerated() {
            if role == .overlay { try validateOverlay(layer, i, file: file) } else { try validateAdmin(layer, i, file: file) }
        }
    }

    private func validateAdmin(_ layer: Layer, _ i: Int, file: String) throws {
        guard let own = layer.level else {
            throw GeocoderError.badManifest(file: file, reason: "layers[\(i)]: missing \"level\" (an admin layer needs one; \"role\": \"overlay\" for a layer of time zones or water)")
        }
        for key in layer.fields.keys {
            guard let level = AdminLevel(rawValue: key) else {
                let overlay = Self.overlayFields.contains { $0.key == key } ? " (\(key) is an overlay field: give it its own dataset with \"role\": \"overlay\")" : ""
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields: unknown level \"\(key)\"\(overlay)")
            }
            if level > own {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields: \(key) is finer than the layer's level \(own.rawValue)")
            }
        }
        if layer.fields[own.rawValue] == nil {
            throw GeocoderError.badManifest(file: file, reason: "layers[\(i)]: no fields for its own level \(own.rawValue)")
        }
        for (key, value) in layer.provenance ?? [:] {
            guard let level = AdminLevel(rawValue: key) else {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].provenance: unknown level \"\(key)\"")
            }
            if level > own {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].provenance: \(key) is finer than the layer's level \(own.rawValue)")
            }
            if value == .nearestPlace && layer.place == nil {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].provenance.\(key): nearest_place needs the layer's \"place\" fields (latitude, longitude)")
            }
        }
        if let place = layer.place {
            if place.latitude.isEmpty { throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].place.latitude: empty field name") }
            if place.longitude.isEmpty { throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].place.longitude: empty field name") }
            if !(layer.provenance ?? [:]).values.contains(.nearestPlace) {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].place: no level's provenance is nearest_place, so the place would never be used")
            }
        }
    }

    private func validateOverlay(_ layer: Layer, _ i: Int, file: String) throws {
        if let level = layer.level {
            throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].level: an overlay layer has no level (got \"\(level.rawValue)\")")
        }
        if layer.provenance != nil { throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].provenance: not for an overlay layer") }
        if layer.place != nil { throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].place: not for an overlay layer") }
        if layer.fields.isEmpty { throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields: an overlay layer fills at least one field") }
        let known = Self.overlayFields.map(\.key)
        for (key, fields) in layer.fields {
            guard known.contains(key) else {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields: \"\(key)\" is not an overlay field (\(known.joined(separator: ", ")))")
            }
            if fields.name == nil || fields.name!.candidates.isEmpty {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields.\(key): missing \"name\" (the DBF field of its value)")
            }
            if fields.code != nil {
                throw GeocoderError.badManifest(file: file, reason: "layers[\(i)].fields.\(key).code: an overlay field has a value only (\"name\")")
            }
        }
    }

    private func validateBorderFields(file: String) throws {
        if let borderAccuracy {
            if role == .overlay { throw GeocoderError.badManifest(file: file, reason: "borderAccuracy: an overlay dataset has no borders between countries") }
            guard borderAccuracy.isFinite, borderAccuracy >= 0 else {
                throw GeocoderError.badManifest(file: file, reason: "borderAccuracy: \(borderAccuracy) is not a distance in metres (0 or more)")
            }
        }
        if role == .admin {
            if timeZoneCountries != nil { throw GeocoderError.badManifest(file: file, reason: "timeZoneCountries: only an overlay dataset has time zones") }
            if disputedBorders != nil { throw GeocoderError.badManifest(file: file, reason: "disputedBorders: only an overlay dataset has time zones") }
        }
        for (zone, code) in timeZoneCountries ?? [:] where CountryCodes.alpha2(code) != code {
            throw GeocoderError.badManifest(file: file, reason: "timeZoneCountries.\(zone): \"\(code)\" is not an ISO 3166-1 alpha-2 code")
        }
        for (i, pair) in (disputedBorders ?? []).enumerated() {
            guard pair.count == 2, pair.allSatisfy({ CountryCodes.alpha2($0) == $0 }) else {
                throw GeocoderError.badManifest(file: file, reason: "disputedBorders[\(i)]: \(pair) is not two ISO 3166-1 alpha-2 codes")
            }
        }
    }

    func fields(of layer: Layer, at level: AdminLevel) -> Fields? { layer.fields[level.rawValue] }
    func constant(at level: AdminLevel) -> Unit? { constants?[level.rawValue] }
}
