import Foundation
import Synchronization
import GeoModel

/// The CLI's only columns that are not a field of the placemark table: values computed from a field and
/// the outside world, which the library's placemark cannot carry. Declared here, once: `--fields`,
/// `--fields all`, `geocode fields` (and so the Spark schema) and the writers all take them from
/// ``allCases``, and `FieldTableTests` checks each appears everywhere a table field does.
public enum DerivedColumn: String, Hashable, Sendable, CaseIterable {
    /// The time zone's UTC offset now, `+08:00` / `-03:30` / `+00:00`, from the system's tzdata
    /// (Foundation `TimeZone`); null without a time zone or for one the system does not know. Not a
    /// placemark field: it changes with daylight saving time, the placemark does not.
    case utcOffset = "utc_offset"

    /// The table field it is computed from.
    public var source: PlacemarkField {
        switch self {
        case .utcOffset: .timeZone
        }
    }

    /// The library-style key (`geocode fields`), as the table's keys are camelCase.
    public var key: String {
        switch self {
        case .utcOffset: "utcOffset"
        }
    }

    /// Its type, as the table says its fields'.
    public var kind: PlacemarkField.Kind { .text }

    /// The value for a placemark (the offset at the process's start, see ``UTCOffsets/now``).
    public func text(of placemark: Placemark) -> String? {
        switch self {
        case .utcOffset: placemark.timeZone.flatMap(UTCOffsets.now.offset(of:))
        }
    }
}

/// UTC offsets of the system's time zones at one instant, looked up once each: making a Foundation
/// `TimeZone` costs microseconds, too much per row.
public final class UTCOffsets: Sendable {
    /// The instant the offsets are for.
    public let instant: Date
    /// Each zone's offset once asked (nil: a zone the system does not know). Filled on demand: the
    /// system lists about 600 zones, and working them all out took a one-point start 28 M instructions
    /// (a quarter of it); a batch asks each zone once per encoded placemark, not per row.
    private let known = Mutex<[String: String?]>([:])

    /// The offsets now (the process's first use): one instant for a whole run, so a batch that crosses a
    /// daylight-saving change still writes one offset per zone.
    public static let now = UTCOffsets(at: Date())

    /// The offsets at `instant`.
    public init(at instant: Date) {
        self.instant = instant
    }

    /// `+HH:MM` for an IANA id, nil for one the system does not know.
    public func offset(of id: String) -> String? {
        if let hit = known.withLock({ $0[id] }) { return hit }
        let text = Self.compute(id, at: instant)
        known.withLock { $0[id] = .some(text) }
        return text
    }

    private static func compute(_ id: String, at instant: Date) -> String? {
        guard let zone = TimeZone(identifier: id) else { return nil }
        let seconds = zone.secondsFromGMT(for: instant)
        let minutes = abs(seconds) / 60
        let hh = String(minutes / 60), mm = String(minutes % 60)
        return (seconds < 0 ? "-" : "+") + (hh.count < 2 ? "0" + hh : hh) + ":" + (mm.count < 2 ? "0" + mm : mm)
    }
}
