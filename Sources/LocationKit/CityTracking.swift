import GeoModel

/// Which city a placemark is in, for deciding whether the city changed.
///
/// - When the placemark has a ``Placemark/localityCode``: that code (with the country, so codes of
///   different datasets cannot collide).
/// - Otherwise its ``Placemark/locality`` name, together with country and province names (two towns
///   of the same name in different provinces stay different).
/// - When it has neither (a dataset without a city level): the province, by code or else by name, so
///   such datasets report province changes as city changes.
/// - No locality and no province at all: no city (`init` returns `nil`).
///
/// The engine fills `locality` / `localityCode` from the province inside province-level divisions with no
/// city level (Beijing, Shanghai, Tianjin, Chongqing; Hong Kong, Macau), so those compare as cities like
/// any other.
public struct CityIdentity: Hashable, Sendable, CustomStringConvertible {
    private enum Key: Hashable, Sendable {
        case cityCode(country: String?, code: String)
        case cityName(country: String?, province: String?, name: String)
        case provinceCode(country: String?, code: String)
        case provinceName(country: String?, name: String)
    }
    private let key: Key

    public init?(_ placemark: Placemark) {
        let country = placemark.isoCountryCode ?? placemark.country
        if let code = placemark.localityCode, !code.isEmpty {
            key = .cityCode(country: country, code: code)
        } else if let name = placemark.locality, !name.isEmpty {
            key = .cityName(country: country, province: placemark.administrativeArea, name: name)
        } else if let code = placemark.administrativeAreaCode, !code.isEmpty {
            key = .provinceCode(country: country, code: code)
        } else if let name = placemark.administrativeArea, !name.isEmpty {
            key = .provinceName(country: country, name: name)
        } else {
            return nil
        }
    }

    public var description: String {
        switch key {
        case .cityCode(let c, let code): return "city \(code) (\(c ?? "?"))"
        case .cityName(let c, let p, let n): return "city \(n), \(p ?? "?") (\(c ?? "?"))"
        case .provinceCode(let c, let code): return "province \(code) (\(c ?? "?"))"
        case .provinceName(let c, let n): return "province \(n) (\(c ?? "?"))"
        }
    }
}

/// When a new city replaces the current one: the rule that keeps a track along a border from flapping.
///
/// Only accepted fixes whose placemark has a city (see ``CityIdentity``) take part; fixes without one
/// (no placemark: sea, outside the dataset) are skipped: they neither count nor break a run.
///
/// 1. **No current city** (first run, nothing persisted): the first city seen becomes current at once.
///    That is *not* a change: no `cityChanged` event (the placemark event already says where we are).
/// 2. **A fix in the current city** confirms it and cancels any candidate.
/// 3. **A fix in another city** C makes C the candidate; a run of fixes in C starts at that fix's
///    position P (a fix in a third city D restarts the run with D). C replaces the current city, with
///    one `cityChanged(from: current, to: C)` event, on the fix where **both** hold:
///    - (a) C was the city of the last ``consecutiveFixes`` city-bearing fixes, and
///    - (b) that fix is at least ``minimumDistance`` metres (great circle) from P.
///
///    Criterion (b) is waived while the current city has not yet been seen in this run of the manager
///    (it was restored from the file or left from an earlier run): a receiver parked in another city
///    would otherwise never get there. Then ``consecutiveFixes`` fixes alone decide.
///
/// ``off`` (1 fix, 0 m) reports every first fix in another city as a change: a jittery track along a
/// border then flaps. Note that the manager counts *accepted* fixes, so a `distanceFilter` stretches
/// the run in space as well. Neither criterion can stop flapping on a long track running exactly
/// along a border (that would need the distance to the border, which only the engine knows).
public struct CityChangeHysteresis: Sendable, Hashable {
    /// Fixes in a row that must show the new city (at least 1).
    public var consecutiveFixes: Int
    /// Metres the confirming fix must be from where the new city was first seen (at least 0).
    public var minimumDistance: Double

    public init(consecutiveFixes: Int, minimumDistance: Double) {
        self.consecutiveFixes = max(1, consecutiveFixes)
        self.minimumDistance = minimumDistance.isFinite ? max(0, minimumDistance) : 0
    }

    /// 3 fixes and 30 m: a 1 Hz receiver confirms a crossing after about 3 s, while GPS jitter of a few
    /// metres around a border point does not.
    public static let `default` = CityChangeHysteresis(consecutiveFixes: 3, minimumDistance: 30)
    /// No hysteresis: the first fix in another city changes it.
    public static let off = CityChangeHysteresis(consecutiveFixes: 1, minimumDistance: 0)
}

/// The city state machine of ``CityChangeHysteresis``; pure, so it is tested on its own.
struct CityTracker: Sendable {
    struct Outcome: Equatable, Sendable {
        /// The current place changed (adopted, new district in the same city, or new city). A placemark
        /// that differs only in its nearest-place or nearest-unit distance is no change
        /// (``Placemark/isSamePlace(as:)``).
        var currentChanged = false
        /// Set when the city changed: (from, to).
        var cityChange: (from: Placemark, to: Placemark)? = nil

        static func == (a: Outcome, b: Outcome) -> Bool {
            a.currentChanged == b.currentChanged && a.cityChange?.from == b.cityChange?.from
                && a.cityChange?.to == b.cityChange?.to
        }
    }

    private struct Candidate: Sendable {
        var city: CityIdentity
        var count: Int
        var firstSeen: Coordinate
    }

    var hysteresis: CityChangeHysteresis
    /// The placemark shown to the user: the latest placemark seen in the current city.
    private(set) var current: Placemark?
    private var currentCity: CityIdentity?
    /// The current city was seen by a fix in this run.
    private var confirmedThisRun = false
    private var candidate: Candidate?

    init(hysteresis: CityChangeHysteresis, current: Placemark? = nil) {
        self.hysteresis = hysteresis
        restore(current)
    }

    /// Sets the current placemark without an event (restoring from a file).
    mutating func restore(_ placemark: Placemark?) {
        current = placemark
        currentCity = placemark.flatMap(CityIdentity.init)
        if currentCity == nil { current = nil }
        confirmedThisRun = false
        candidate = nil
    }

    /// A new run of the manager: the current city is kept but counts as not seen yet.
    mutating func beginRun() {
        confirmedThisRun = false
        candidate = nil
    }

    mutating func observe(_ placemark: Placemark?, at coordinate: Coordinate) -> Outcome {
        guard let placemark, let city = CityIdentity(placemark) else { return Outcome() }
        guard let currentCity else {
            current = placemark
            self.currentCity = city
            confirmedThisRun = true
            candidate = nil
            return Outcome(currentChanged: true)
        }
        if city == currentCity {
            confirmedThisRun = true
            candidate = nil
            // The place, not the placemark: in a locality cell built from populated places the distance
            // to the place changes on every fix, which is no change to save or report. `current` still
            // takes the latest placemark, so it carries the latest distance.
            let changed = current.map { !placemark.isSamePlace(as: $0) } ?? true
            current = placemark
            return Outcome(currentChanged: changed)
        }
        if var c = candidate, c.city == city {
            c.count += 1
            candidate = c
        } else {
            candidate = Candidate(city: city, count: 1, firstSeen: coordinate)
        }
        let c = candidate!
        let farEnough = !confirmedThisRun || coordinate.distance(to: c.firstSeen) >= hysteresis.minimumDistance
        guard c.count >= hysteresis.consecutiveFixes, farEnough else { return Outcome() }
        let from = current!
        current = placemark
        self.currentCity = city
        confirmedThisRun = true
        candidate = nil
        return Outcome(currentChanged: true, cityChange: (from, placemark))
    }
}
