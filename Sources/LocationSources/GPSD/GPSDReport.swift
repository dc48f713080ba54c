import Foundation

/// One line of gpsd's JSON protocol, as far as a position client cares.
public enum GPSDReport: Sendable, Hashable {
    /// A time-position-velocity report.
    case tpv(GPSDTPV)
    /// A DEVICE report: gpsd (de)activated a device. `active` is false when gpsd says it closed it.
    case device(path: String?, active: Bool)
    /// An ERROR report: gpsd refused something we sent.
    case error(message: String)
    /// Any other class (VERSION, DEVICES, WATCH, SKY, GST, ATT, PPS, TOFF, …), ignored by the client.
    case other(className: String)

    /// Parses one line (without its line ending). Pure.
    public static func parse(_ line: String) throws(GPSDParseError) -> GPSDReport {
        let data = Data(line.utf8)
        let className = try decode(Envelope.self, from: data, line: line, className: nil).className
        switch className {
        case "TPV":
            let f = try decode(TPVFields.self, from: data, line: line, className: className)
            var time: Date?
            if let text = f.time {
                guard let date = ISO8601Timestamp.parse(text) else {
                    throw GPSDParseError(line: line, field: "TPV time", reason: "\"\(text)\" is not an ISO 8601 time")
                }
                time = date
            }
            return .tpv(GPSDTPV(device: f.device, mode: f.mode ?? 0, status: f.status, time: time,
                                latitude: f.lat, longitude: f.lon, altitudeHAE: f.altHAE, altitudeMSL: f.altMSL,
                                altitude: f.alt, geoidSeparation: f.geoidSep, speed: f.speed, track: f.track,
                                eph: f.eph, epx: f.epx, epy: f.epy, epv: f.epv))
        case "DEVICE":
            let f = try decode(DeviceFields.self, from: data, line: line, className: className)
            return .device(path: f.path, active: f.activated?.isActive ?? false)
        case "ERROR":
            let f = try decode(ErrorFields.self, from: data, line: line, className: className)
            return .error(message: f.message ?? "")
        default:
            return .other(className: className)
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, from data: Data, line: String,
                                             className: String?) throws(GPSDParseError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw describe(error, line: line, className: className)
        } catch {
            throw GPSDParseError(line: line, reason: "not JSON")
        }
    }

    /// Turns Codable's error into one naming the class and field, as a user reading a log needs it.
    private static func describe(_ error: DecodingError, line: String, className: String?) -> GPSDParseError {
        func field(_ path: [any CodingKey]) -> String? {
            guard let key = path.last?.stringValue else { return nil }
            return [className, key].compactMap { $0 }.joined(separator: " ")
        }
        switch error {
        case .typeMismatch(let type, let context):
            let expected = type == String.self ? "a string" : (type == Int.self ? "an integer" : "a number")
            return GPSDParseError(line: line, field: field(context.codingPath), reason: "expected \(expected)")
        case .valueNotFound(_, let context):
            return GPSDParseError(line: line, field: field(context.codingPath), reason: "null")
        case .keyNotFound(let key, _):
            return GPSDParseError(line: line, field: key.stringValue, reason: "missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return GPSDParseError(line: line, reason: "not a JSON object") }
            return GPSDParseError(line: line, field: field(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return GPSDParseError(line: line, reason: "\(error)")
        }
    }

    private struct Envelope: Decodable {
        let className: String
        enum CodingKeys: String, CodingKey { case className = "class" }
    }

    private struct TPVFields: Decodable {
        let device: String?
        let mode: Int?
        let status: Int?
        let time: String?
        let lat, lon, altHAE, altMSL, alt, geoidSep, speed, track, eph, epx, epy, epv: Double?
    }

    private struct DeviceFields: Decodable {
        let path: String?
        let activated: Activated?
    }

    /// gpsd writes `"activated": "<ISO time>"` when it opens a device and `"activated": 0` when it
    /// closes one (older versions: a number of seconds since the epoch, 0 meaning closed).
    private enum Activated: Decodable {
        case time(String)
        case number(Double)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .time(text)
            } else {
                self = .number(try container.decode(Double.self))
            }
        }

        var isActive: Bool {
            switch self {
            case .time(let text): return !text.isEmpty
            case .number(let seconds): return seconds > 0
            }
        }
    }

    private struct ErrorFields: Decodable {
        let message: String?
    }
}
