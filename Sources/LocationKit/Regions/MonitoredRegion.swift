import Foundation
import LocationSources
import GeoModel

/// A circle on the Earth: CoreLocation's `CLCircularRegion` without the identifier.
public struct CircularArea: Sendable, Hashable, Codable {
    /// WGS-84 centre.
    public var center: Coordinate
    /// Metres (great circle), > 0.
    public var radius: Double

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// Great-circle distance in metres from the centre to `coordinate`.
    public func distance(to coordinate: Coordinate) -> Double {
        center.distance(to: coordinate)
    }
}

/// An administrative unit of the engine's data, recognised from the placemark the manager resolves for
/// each fix: by its code or its name, at one level or at any level.
///
/// - `.code("440300", level: .city)`: the city whose ``Placemark/localityCode`` is 440300 (Shenzhen).
/// - `.name("北京市")`: any unit named 北京市 at any level (Beijing's province and, as a province-level
///   city, its locality).
/// - `.code("DE-BE", level: .province)`: Berlin in the world data (ISO 3166-2 codes).
///
/// Names are compared ignoring case with the name the placemark shows and with every name the unit has in
/// other languages (the datasets' names tables): `.name("Beijing")` and `.name("北京市")` both fire in
/// Beijing. Spellings still differ between sources (iso-codes' `Nei Mongol`, not "Inner Mongolia"), so
/// codes, which do not depend on spelling, stay the surer key. Codes are compared exactly. ``isoCountryCode``, when set, must also match the placemark's (it keeps codes of
/// different countries' datasets apart). A fix with no placemark (at sea, outside the data) is in no
/// administrative area.
public struct AdministrativeArea: Sendable, Hashable {
    /// How the unit is recognised.
    public enum Key: Sendable, Hashable {
        /// By the code at ``AdministrativeArea/level`` (``Placemark/code(at:)``), at any level when `nil`.
        case code(String)
        /// By the name at ``AdministrativeArea/level`` (``Placemark/name(at:)``, or any of the unit's
        /// ``Placemark/Unit/names``), ignoring case.
        case name(String)
    }

    public var key: Key
    /// The level the code or name is looked up at; `nil`: any level.
    public var level: AdminLevel?
    /// ISO 3166-1 alpha-2 code the placemark's country must have; `nil`: any country.
    public var isoCountryCode: String?

    public init(_ key: Key, level: AdminLevel? = nil, isoCountryCode: String? = nil) {
        self.key = key
        self.level = level
        self.isoCountryCode = isoCountryCode
    }

    /// The unit with this code (at `level`, or at any level).
    public static func code(_ code: String, level: AdminLevel? = nil, isoCountryCode: String? = nil) -> Self {
        AdministrativeArea(.code(code), level: level, isoCountryCode: isoCountryCode)
    }

    /// The unit with this name (at `level`, or at any level), ignoring case.
    public static func name(_ name: String, level: AdminLevel? = nil, isoCountryCode: String? = nil) -> Self {
        AdministrativeArea(.name(name), level: level, isoCountryCode: isoCountryCode)
    }

    /// Whether the unit contains the fix whose placemark is `placemark`.
    public func contains(_ placemark: Placemark?) -> Bool {
        guard let placemark else { return false }
        if let isoCountryCode, placemark.isoCountryCode?.uppercased() != isoCountryCode.uppercased() {
            return false
        }
        let levels = level.map { [$0] } ?? AdminLevel.allCases
        switch key {
        case .code(let code):
            return levels.contains { placemark.code(at: $0) == code }
        case .name(let name):
            let wanted = Self.normalized(name)
            return levels.contains { level in
                placemark.name(at: level).map(Self.normalized) == wanted
                    || placemark[level].names.values.contains { Self.normalized($0) == wanted }
            }
        }
    }

    /// ``contains(_:)`` on a placemark whose names a ``NormalizedPlacemarkCache`` normalized once (the
    /// monitor's per-fix path): the same predicate, without normalizing a name per fix. Names not
    /// normalized (``NormalizedPlacemark/names``) are compared as ``contains(_:)`` does.
    func contains(normalized fix: NormalizedPlacemark?) -> Bool {
        guard let fix else { return false }
        if let isoCountryCode, fix.country != isoCountryCode.uppercased() { return false }
        switch key {
        case .code(let code):
            if let level { return fix.placemark.code(at: level) == code }
            return AdminLevel.allCases.contains { fix.placemark.code(at: $0) == code }
        case .name:
            guard fix.names != nil else { return contains(fix.placemark) }
            let wanted = normalizedKey
            if let level { return fix.names(at: level)!.contains(wanted) }
            return AdminLevel.allCases.contains { fix.names(at: $0)!.contains(wanted) }
        }
    }

    /// The code, or the name normalized: what the area is looked up by.
    var normalizedKey: String {
        switch key {
        case .code(let code): return code
        case .name(let name): return Self.normalized(name)
        }
    }

    /// How names are compared: trimmed, lowercased (Swift strings already compare canonically
    /// equivalent forms as equal, also as dictionary keys).
    ///
    /// Foundation's trimming is only called when an end is white space: it bridges to NSString, and
    /// it was over half of `geocode track --region`'s start, which normalizes every name of every unit
    /// the data has (up to 150 per unit) to check the regions against them. Unicode's White_Space
    /// property is exactly `whitespacesAndNewlines` (Zs, tab, the line and paragraph separators, U+000A
    /// to U+000D, U+0085), so the result is the same.
    static func normalized(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
              first.properties.isWhitespace || last.properties.isWhitespace else { return name.lowercased() }
        return name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}

extension AdministrativeArea: CustomStringConvertible {
    public var description: String {
        let what: String
        switch key {
        case .code(let c): what = "code \(c)"
        case .name(let n): what = "name \"\(n)\""
        }
        return "\(level?.rawValue ?? "any level") \(what)\(isoCountryCode.map { " in \($0)" } ?? "")"
    }
}

/// A region a ``RegionMonitor`` watches: an identifier, an area, and which transitions to report.
/// CoreLocation's `CLRegion` (with `notifyOnEntry` / `notifyOnExit`).
public struct MonitoredRegion: Sendable, Hashable, Identifiable {
    /// What the region covers.
    public enum Area: Sendable, Hashable {
        /// A circle: inside at distance ≤ radius, see ``RegionHysteresis`` for leaving it.
        case circle(CircularArea)
        /// An administrative unit, decided from each fix's placemark.
        case administrative(AdministrativeArea)
    }

    /// Unique among a monitor's regions; adding a region with an identifier already in use replaces
    /// the old one.
    public var identifier: String
    public var area: Area
    /// Report ``RegionEvent/entered(_:at:)``. Default true.
    public var notifyOnEntry: Bool
    /// Report ``RegionEvent/exited(_:at:)``. Default true.
    public var notifyOnExit: Bool

    public var id: String { identifier }

    public init(identifier: String, area: Area, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.area = area
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// A circle of `radius` metres around `center`.
    public static func circle(_ identifier: String, center: Coordinate, radius: Double,
                              notifyOnEntry: Bool = true, notifyOnExit: Bool = true) -> Self {
        MonitoredRegion(identifier: identifier, area: .circle(CircularArea(center: center, radius: radius)),
                        notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit)
    }

    /// An administrative unit.
    public static func administrative(_ identifier: String, _ area: AdministrativeArea,
                                      notifyOnEntry: Bool = true, notifyOnExit: Bool = true) -> Self {
        MonitoredRegion(identifier: identifier, area: .administrative(area),
                        notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit)
    }

    /// Why the region cannot be monitored, or `nil` when it can.
    public var problem: String? {
        if identifier.isEmpty { return "empty identifier" }
        switch area {
        case .circle(let c):
            if !c.center.isValid { return "centre \(c.center) is not a valid coordinate" }
            if !(c.radius > 0 && c.radius.isFinite) { return "radius \(c.radius) is not a positive number of metres" }
        case .administrative(let a):
            switch a.key {
            case .code(let c) where c.isEmpty: return "empty code"
            case .name(let n) where AdministrativeArea.normalized(n).isEmpty: return "empty name"
            default: break
            }
        }
        return nil
    }
}

/// Where the device is relative to a region (CoreLocation's `CLRegionState`).
public enum RegionState: String, Sendable, Hashable, Codable {
    /// No fix has been seen since the region was added.
    case unknown
    case inside
    case outside
}

/// What a ``RegionMonitor`` reports. The ``RegionMonitor/events`` sequence yields these; the delegate
/// and the closures get the same events in the same order.
public enum RegionEvent: Sendable, Hashable {
    /// The region's initial state: sent once when the region is added (`.unknown` with no location
    /// when the monitor has not seen a fix yet, otherwise from its latest fix), and, if that was
    /// `.unknown`, once more with the first fix after it. Never followed by an `entered`/`exited` for
    /// the same determination. Sent regardless of `notifyOnEntry`/`notifyOnExit`.
    /// Delegate: `didDetermineState`. Closure: `onStateDetermined`.
    case stateDetermined(MonitoredRegion, RegionState, at: Location?)
    /// The device entered the region (after the hysteresis; `at` is the fix that confirmed it).
    /// Delegate: `didEnterRegion`. Closure: `onEnter`.
    case entered(MonitoredRegion, at: Location)
    /// The device left the region. Delegate: `didExitRegion`. Closure: `onExit`.
    case exited(MonitoredRegion, at: Location)

    /// The region the event is about.
    public var region: MonitoredRegion {
        switch self {
        case .stateDetermined(let r, _, _), .entered(let r, _), .exited(let r, _): return r
        }
    }
}

extension RegionEvent: CustomStringConvertible {
    /// One short line, for logs and test output (not a stable format).
    public var description: String {
        switch self {
        case .stateDetermined(let r, let s, let l):
            return "state \(r.identifier) \(s.rawValue)\(l.map { " at \($0.coordinate)" } ?? "")"
        case .entered(let r, let l): return "entered \(r.identifier) at \(l.coordinate)"
        case .exited(let r, let l): return "exited \(r.identifier) at \(l.coordinate)"
        }
    }
}

/// What keeps a fix jittering on a region's border from flapping in and out.
///
/// **Margin** (circles only). The device enters a circle at distance ≤ `radius` from its centre and
/// leaves it only at distance > `radius + margin`. A fix in the band between counts for the side the
/// device is already on. (An administrative unit has no distance to its border in the placemark, so
/// there the dwell time does the work.)
///
/// **Dwell.** A transition is confirmed by the first fix that is at least `minimumDwell` seconds
/// (fix timestamps) after the first fix that pointed to it, provided every fix in between pointed to
/// it too; one fix on the old side cancels it. With `minimumDwell` 0 the first such fix confirms at
/// once. A fix whose timestamp is earlier than the pending transition's start (receiver clock went
/// back) restarts the wait from that fix.
///
/// The initial state (unknown → inside/outside) is decided by the first fix alone, at distance ≤
/// `radius` for a circle, without waiting.
public struct RegionHysteresis: Sendable, Hashable, Codable {
    /// Metres beyond a circle's radius the device must go to leave it (≥ 0).
    public var margin: Double
    /// Seconds a new side must hold before a transition is reported (≥ 0).
    public var minimumDwell: TimeInterval

    public init(margin: Double, minimumDwell: TimeInterval) {
        self.margin = margin.isFinite ? max(0, margin) : 0
        self.minimumDwell = minimumDwell.isFinite ? max(0, minimumDwell) : 0
    }

    /// 25 m and 5 s: a consumer receiver's jitter of a few metres, and a few fixes at 1 Hz.
    public static let `default` = RegionHysteresis(margin: 25, minimumDwell: 5)
    /// None: the first fix on the other side of the exact border decides.
    public static let off = RegionHysteresis(margin: 0, minimumDwell: 0)
}
