import Foundation
import GeoModel

/// A regions file: what `geocode track --region FILE` reads, and ``RegionMonitor/load(contentsOf:delegateQueue:)``.
///
/// ```json
/// {
///   "format": "offline-geocoder.regions",
///   "version": 1,
///   "hysteresis": { "margin": 25, "minimumDwell": 5 },
///   "regions": [
///     { "id": "depot", "circle": { "latitude": 39.9087, "longitude": 116.3975, "radius": 200 } },
///     { "id": "shenzhen", "area": { "level": "city", "code": "440300" } },
///     { "id": "beijing", "area": { "name": "北京市" }, "notifyOnExit": false },
///     { "id": "berlin", "area": { "level": "province", "code": "DE-BE", "country": "DE" } },
///     { "id": "tianjin", "area": "city 120000" }
///   ]
/// }
/// ```
///
/// - `format`, `version`: optional; when present they must be `"offline-geocoder.regions"` and `1`.
/// - `hysteresis`: optional; `margin` (metres, circles only) and `minimumDwell` (seconds), each
///   optional, default ``RegionHysteresis/default`` (25 m, 5 s). See ``RegionHysteresis``.
/// - `regions`: required, an array. Each region has a unique non-empty `id`, exactly one of
///   - `circle`: `latitude`, `longitude` (WGS-84 degrees) and `radius` (metres, > 0), or
///   - `area`: an administrative unit, as an object with exactly one of `code` / `name`, an optional
///     `level` (`country`, `province`, `city`, `district`; absent: any level) and an optional `country`
///     (ISO 3166-1 alpha-2 the placemark must have); or as a string `"[level] [code|name] VALUE"`:
///     `"city 440300"`, `"北京市"`, `"province name Bavaria"`. In the string form a VALUE of ASCII
///     digits is a code and anything else a name, unless `code` or `name` says which.
///
///   and optional `notifyOnEntry` / `notifyOnExit` (default `true`).
///
/// Names are matched as the data spells them, ignoring case (the bundled China data is in Chinese:
/// `北京市`, not `Beijing`, unless its names table has the other language); codes exactly. Whether the
/// data has each area is not this file's to know: ``RegionMonitor/load(contentsOf:delegateQueue:knownUnits:)``
/// checks it against ``KnownAdministrativeUnits``. Unknown keys are errors (a misspelt `"raduis"` must not
/// silently become a default). Every error names the file and the JSON path of the bad value.
public struct RegionFile: Sendable, Hashable {
    public static let format = "offline-geocoder.regions"
    public static let version = 1

    public var regions: [MonitoredRegion]
    public var hysteresis: RegionHysteresis

    public init(regions: [MonitoredRegion], hysteresis: RegionHysteresis = .default) {
        self.regions = regions
        self.hysteresis = hysteresis
    }

    /// Why a regions file could not be used.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file could not be read.
        case unreadable(path: String, String)
        /// The file is not a valid regions file: the message names the JSON path.
        case invalid(path: String, String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
            case .invalid(let path, let reason): return "\(path): \(reason)"
            }
        }
    }

    /// Reads and checks a regions file.
    public static func load(contentsOf url: URL) throws(Failure) -> RegionFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, error.localizedDescription)
        }
        do {
            return try decode(data)
        } catch {
            throw .invalid(path: url.path, error.message)
        }
    }

    /// Parses regions-file JSON; the error message names the JSON path of the problem.
    public static func decode(_ data: Data) throws(DecodeError) -> RegionFile {
        let file: FileBody
        do {
            file = try JSONDecoder().decode(FileBody.self, from: data)
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError(Self.describe(error))
        }
        var seen = Set<String>()
        for (i, region) in file.regions.enumerated() {
            if let problem = region.problem { throw DecodeError("regions[\(i)] (\"\(region.identifier)\"): \(problem)") }
            guard seen.insert(region.identifier).inserted else {
                throw DecodeError("regions[\(i)]: id \"\(region.identifier)\" is used twice")
            }
        }
        return RegionFile(regions: file.regions, hysteresis: file.hysteresis)
    }

    /// The JSON of this file (the format above, circles and areas as objects), for writing one.
    public func encoded() -> Data {
        var regionsJSON: [[String: Any]] = []
        for region in regions {
            var r: [String: Any] = ["id": region.identifier]
            switch region.area {
            case .circle(let c):
                r["circle"] = ["latitude": c.center.latitude, "longitude": c.center.longitude, "radius": c.radius]
            case .administrative(let a):
                var area: [String: Any] = [:]
                switch a.key {
                case .code(let code): area["code"] = code
                case .name(let name): area["name"] = name
                }
                if let level = a.level { area["level"] = level.rawValue }
                if let country = a.isoCountryCode { area["country"] = country }
                r["area"] = area
            }
            if !region.notifyOnEntry { r["notifyOnEntry"] = false }
            if !region.notifyOnExit { r["notifyOnExit"] = false }
            regionsJSON.append(r)
        }
        let object: [String: Any] = [
            "format": Self.format, "version": Self.version,
            "hysteresis": ["margin": hysteresis.margin, "minimumDwell": hysteresis.minimumDwell],
            "regions": regionsJSON,
        ]
        // Only strings, numbers, booleans, arrays and dictionaries: serialisation cannot fail.
        return (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }

    /// A problem in regions-file JSON.
    public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    // MARK: - Decoding

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func container(_ decoder: any Decoder, allowed: Set<String>) throws -> KeyedDecodingContainer<Key> {
        let c = try decoder.container(keyedBy: Key.self)
        if let unknown = c.allKeys.map(\.stringValue).sorted().first(where: { !allowed.contains($0) }) {
            throw DecodeError("\(path(decoder.codingPath, unknown)): unknown key (expected one of \(allowed.sorted().joined(separator: ", ")))")
        }
        return c
    }

    private struct FileBody: Decodable {
        var regions: [MonitoredRegion]
        var hysteresis: RegionHysteresis

        init(from decoder: any Decoder) throws {
            let c = try RegionFile.container(decoder, allowed: ["format", "version", "hysteresis", "regions"])
            if let format = try c.decodeIfPresent(String.self, forKey: Key("format")), format != RegionFile.format {
                throw DecodeError("format: \"\(format)\" is not \"\(RegionFile.format)\"")
            }
            if let version = try c.decodeIfPresent(Int.self, forKey: Key("version")), version != RegionFile.version {
                throw DecodeError("version: \(version) is not supported (only \(RegionFile.version))")
            }
            hysteresis = try c.decodeIfPresent(HysteresisBody.self, forKey: Key("hysteresis"))?.value ?? .default
            guard c.contains(Key("regions")) else { throw DecodeError("regions: missing") }
            regions = try c.decode([RegionBody].self, forKey: Key("regions")).map(\.value)
        }
    }

    private struct HysteresisBody: Decodable {
        var value: RegionHysteresis

        init(from decoder: any Decoder) throws {
            let c = try RegionFile.container(decoder, allowed: ["margin", "minimumDwell"])
            let margin = try c.decodeIfPresent(Double.self, forKey: Key("margin")) ?? RegionHysteresis.default.margin
            let dwell = try c.decodeIfPresent(Double.self, forKey: Key("minimumDwell")) ?? RegionHysteresis.default.minimumDwell
            guard margin >= 0, margin.isFinite else { throw DecodeError("hysteresis.margin: \(margin) is not ≥ 0 metres") }
            guard dwell >= 0, dwell.isFinite else { throw DecodeError("hysteresis.minimumDwell: \(dwell) is not ≥ 0 seconds") }
            value = RegionHysteresis(margin: margin, minimumDwell: dwell)
        }
    }

    private struct RegionBody: Decodable {
        var value: MonitoredRegion

        init(from decoder: any Decoder) throws {
            let here = RegionFile.path(decoder.codingPath)
            let c = try RegionFile.container(decoder, allowed: ["id", "circle", "area", "notifyOnEntry", "notifyOnExit"])
            guard c.contains(Key("id")) else { throw DecodeError("\(here).id: missing") }
            let id = try c.decode(String.self, forKey: Key("id"))
            let area: MonitoredRegion.Area
            switch (c.contains(Key("circle")), c.contains(Key("area"))) {
            case (true, false):
                area = .circle(try c.decode(CircleBody.self, forKey: Key("circle")).value)
            case (false, true):
                if let text = try? c.decode(String.self, forKey: Key("area")) {
                    do { area = .administrative(try AdministrativeArea(parsing: text)) } catch {
                        throw DecodeError("\(here).area: \(error.message)")
                    }
                } else {
                    area = .administrative(try c.decode(AreaBody.self, forKey: Key("area")).value)
                }
            default:
                throw DecodeError("\(here) (\"\(id)\"): needs exactly one of \"circle\" and \"area\"")
            }
            value = MonitoredRegion(identifier: id, area: area,
                                    notifyOnEntry: try c.decodeIfPresent(Bool.self, forKey: Key("notifyOnEntry")) ?? true,
                                    notifyOnExit: try c.decodeIfPresent(Bool.self, forKey: Key("notifyOnExit")) ?? true)
        }
    }

    private struct CircleBody: Decodable {
        var value: CircularArea

        init(from decoder: any Decoder) throws {
            let c = try RegionFile.container(decoder, allowed: ["latitude", "longitude", "radius"])
            for key in ["latitude", "longitude", "radius"] where !c.contains(Key(key)) {
                throw DecodeError("\(RegionFile.path(decoder.codingPath, key)): missing")
            }
            value = CircularArea(center: Coordinate(latitude: try c.decode(Double.self, forKey: Key("latitude")),
                                                    longitude: try c.decode(Double.self, forKey: Key("longitude"))),
                                 radius: try c.decode(Double.self, forKey: Key("radius")))
        }
    }

    private struct AreaBody: Decodable {
        var value: AdministrativeArea

        init(from decoder: any Decoder) throws {
            let c = try RegionFile.container(decoder, allowed: ["code", "name", "level", "country"])
            let here = RegionFile.path(decoder.codingPath)
            var level: AdminLevel?
            if let text = try c.decodeIfPresent(String.self, forKey: Key("level")) {
                guard let l = AdminLevel(rawValue: text.lowercased()) else {
                    throw DecodeError("\(here).level: \"\(text)\" is not one of country, province, city, district")
                }
                level = l
            }
            let country = try c.decodeIfPresent(String.self, forKey: Key("country"))
            switch (try c.decodeIfPresent(String.self, forKey: Key("code")),
                    try c.decodeIfPresent(String.self, forKey: Key("name"))) {
            case (let code?, nil): value = .code(code, level: level, isoCountryCode: country)
            case (nil, let name?): value = .name(name, level: level, isoCountryCode: country)
            default: throw DecodeError("\(here): needs exactly one of \"code\" and \"name\"")
            }
        }
    }

    static func path(_ codingPath: [any CodingKey], _ last: String? = nil) -> String {
        var text = ""
        for key in codingPath {
            if let i = key.intValue { text += "[\(i)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        if let last { text += (text.isEmpty ? "" : ".") + last }
        return text.isEmpty ? "(top level)" : text
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c):
            return c.codingPath.isEmpty ? "not JSON: \(c.debugDescription)" : "\(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.keyNotFound(let key, let c): return "\(path(c.codingPath, key.stringValue)): missing"
        case DecodingError.typeMismatch(let type, let c): return "\(path(c.codingPath)): expected \(Self.name(of: type))"
        case DecodingError.valueNotFound(let type, let c): return "\(path(c.codingPath)): expected \(Self.name(of: type)), found null"
        default: return "\(error)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default: return "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

extension AdministrativeArea {
    /// Parses `"[level] [code|name] VALUE"`: `"city 440300"`, `"北京市"`, `"province name Bavaria"`,
    /// `"code DE-BE"`. Without `code`/`name`, a VALUE of ASCII digits is a code and anything else a name
    /// (which may contain spaces: `"New South Wales"`). For the CLI and the string form in regions files.
    public init(parsing text: String) throws(RegionFile.DecodeError) {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var level: AdminLevel?
        if words.count > 1, let l = AdminLevel(rawValue: words[0].lowercased()) {
            level = l
            words.removeFirst()
        }
        var kind: String?
        if words.count > 1, ["code", "name"].contains(words[0].lowercased()) {
            kind = words[0].lowercased()
            words.removeFirst()
        }
        let value = words.joined(separator: " ")
        guard !value.isEmpty else { throw RegionFile.DecodeError("\"\(text)\" names no code or name") }
        let isCode = kind.map { $0 == "code" } ?? value.allSatisfy { $0.isASCII && $0.isNumber }
        self = isCode ? .code(value, level: level) : .name(value, level: level)
    }
}
