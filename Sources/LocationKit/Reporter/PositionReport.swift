import Foundation
import LocationSources
import GeoModel

/// One position report, as a ``PositionReporter`` queues and sends it.
///
/// Wire format: one JSON object per report. HTTP sends a JSON array of them per request; the file
/// destination appends one per line (NDJSON). Keys (absent when unknown):
/// ```json
/// {"id":"9F6A0E8C-1B1D-4C55-9E0B-2C1F3A3C1B7E","seq":17,
///  "time":"2023-11-14T22:13:20.000Z","recorded":"2023-11-14T22:13:20.412Z",
///  "latitude":39.9087,"longitude":116.3975,"horizontalAccuracy":5,
///  "altitude":43.5,"verticalAccuracy":8,"speed":13.9,"course":135.2,
///  "placemark":{"country":"中国","isoCountryCode":"CN","administrativeArea":"北京市",
///               "administrativeAreaCode":"110000","locality":"北京市","localityCode":"110000",
///               "subLocality":"东城区","subLocalityCode":"110101",
///               "localityIsProvinceFallback":true,"dataset":"china"}}
/// ```
/// - `id`: unique (a UUID), so a server can drop the duplicates that at-least-once delivery causes.
/// - `seq`: 1, 2, 3, ... per queue directory, in the order reports were queued; it survives restarts.
/// - `time`: the fix's timestamp; `recorded`: when the report was queued (this machine's clock).
/// - `placemark`: the placemark the manager resolved for the fix (`null`: outside the data), with
///   `Placemark`'s fields.
public struct PositionReport: Sendable, Hashable, Codable {
    public var id: String
    public var seq: UInt64
    public var time: Date
    public var recorded: Date
    public var latitude: Double
    public var longitude: Double
    /// Metres; negative: unknown (``Location/horizontalAccuracy``), and then absent from the JSON like
    /// every other unknown value (a `-1` there would read as a radius).
    public var horizontalAccuracy: Double
    public var altitude: Double?
    public var verticalAccuracy: Double?
    public var speed: Double?
    public var course: Double?
    public var placemark: Placemark?

    public init(id: String = UUID().uuidString, seq: UInt64, location: Location, placemark: Placemark?,
                recorded: Date = Date()) {
        self.id = id
        self.seq = seq
        self.time = Self.wholeMilliseconds(location.timestamp)
        self.recorded = Self.wholeMilliseconds(recorded)
        self.latitude = location.coordinate.latitude
        self.longitude = location.coordinate.longitude
        self.horizontalAccuracy = location.horizontalAccuracy
        self.altitude = location.altitude
        self.verticalAccuracy = location.verticalAccuracy >= 0 ? location.verticalAccuracy : nil
        self.speed = location.speed >= 0 ? location.speed : nil
        self.course = location.course >= 0 ? location.course : nil
        self.placemark = placemark
    }

    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    private enum CodingKeys: String, CodingKey {
        case id, seq, time, recorded, latitude, longitude, horizontalAccuracy, altitude, verticalAccuracy, speed,
             course, placemark
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        seq = try c.decode(UInt64.self, forKey: .seq)
        time = try Self.date(c, .time)
        recorded = try Self.date(c, .recorded)
        latitude = try c.decode(Double.self, forKey: .latitude)
        longitude = try c.decode(Double.self, forKey: .longitude)
        horizontalAccuracy = try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy) ?? -1
        altitude = try c.decodeIfPresent(Double.self, forKey: .altitude)
        verticalAccuracy = try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy)
        speed = try c.decodeIfPresent(Double.self, forKey: .speed)
        course = try c.decodeIfPresent(Double.self, forKey: .course)
        placemark = try c.decodeIfPresent(Placemark.self, forKey: .placemark)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(seq, forKey: .seq)
        try c.encode(Self.format(time), forKey: .time)
        try c.encode(Self.format(recorded), forKey: .recorded)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        if horizontalAccuracy >= 0 { try c.encode(horizontalAccuracy, forKey: .horizontalAccuracy) }
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encode(placemark, forKey: .placemark)
    }

    /// Times are kept to whole milliseconds, the precision of the JSON, so a report read back from the
    /// queue equals the one written.
    static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// ISO 8601, UTC, exactly three decimals (`2023-11-14T22:13:20.412Z`). Formatted by hand because
    /// the format style truncates: 0.412 is stored as 0.41199999… and would print as .411.
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        return String(whole.dropLast()) + String(format: ".%03dZ", Int(fraction))
    }

    private static func date(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Date {
        let text = try c.decode(String.self, forKey: key)
        do {
            return wholeMilliseconds(try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not an ISO 8601 time: \(text)")
        }
    }

    /// The JSON bytes of one report (compact, keys sorted): what the queue stores and the sinks send.
    func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// CRC-32 (IEEE 802.3, the zlib one): the checksum each queue line carries.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
