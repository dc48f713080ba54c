import GeoModel

/// Turns the two coordinate values of a record into a ``Coordinate`` or a message that says which value
/// is wrong, where it is (column, key), and how.
enum CoordinateCheck {
    /// The text of a value, kept as bytes until a message needs it (good rows never do).
    enum Text {
        case bytes(UnsafeBufferPointer<UInt8>)
        case string(String)

        var string: String {
            switch self {
            case .bytes(let b): return String(decoding: b, as: UTF8.self)
            case .string(let s): return s
            }
        }
    }

    /// What was found for one coordinate.
    enum Value {
        case number(Double, text: Text)
        case missing(String)
        case notNumber(text: String)
        /// A JSON value of the wrong kind (null, true, an object, ...), shown as JSON text.
        case wrongKind(json: String)
        case empty
    }

    /// `latWhere`/`lonWhere` say where the values came from ("column \"lat\""); only evaluated for messages.
    static func coordinate(lat: Value, latWhere: @autoclosure () -> String,
                           lon: Value, lonWhere: @autoclosure () -> String) -> Result<Coordinate, CoordinateError> {
        // Fast path: two numbers in range, no strings made.
        if case .number(let la, _) = lat, case .number(let lo, _) = lon, la.isFinite, lo.isFinite, abs(la) <= 90, abs(lo) <= 180 {
            return .success(Coordinate(latitude: la, longitude: lo))
        }
        var problems: [String] = []
        let latitude = check(lat, name: "latitude", where: latWhere(), limit: 90, problems: &problems)
        let longitude = check(lon, name: "longitude", where: lonWhere(), limit: 180, problems: &problems)
        if let latitude, let longitude, problems.isEmpty {
            return .success(Coordinate(latitude: latitude, longitude: longitude))
        }
        return .failure(CoordinateError(message: problems.joined(separator: "; ")))
    }

    private static func check(_ value: Value, name: String, where place: String, limit: Double,
                              problems: inout [String]) -> Double? {
        switch value {
        case .missing(let why):
            problems.append("no \(name): \(why)")
        case .empty:
            problems.append("\(name) is empty (\(place))")
        case .notNumber(let text):
            problems.append("\(name) \(quoted(text)) is not a number (\(place))")
        case .wrongKind(let json):
            problems.append("\(name) is \(json.count > 40 ? String(json.prefix(40)) + "…" : json), not a number (\(place))")
        case .number(let v, let text):
            if !v.isFinite {
                // The parser never reads `inf` or `nan`: an infinite value is a number too large for a
                // Double (`1e400`). Said as what it is, out of range, in the user's own digits.
                problems.append("\(name) \(quoted(text.string.trimmingSpaces)) is outside -\(Int(limit))...\(Int(limit)) (\(place))")
            } else if abs(v) > limit {
                problems.append("\(name) \(text.string.trimmingSpaces) is outside -\(Int(limit))...\(Int(limit)) (\(place))")
            } else {
                return v
            }
        }
        return nil
    }

    /// The value in quotes, shortened and with control characters escaped, for a one-line message.
    static func quoted(_ text: String) -> String {
        let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
        var out = "\""
        for scalar in short.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Why a record has no usable coordinate.
struct CoordinateError: Error {
    var message: String
}
