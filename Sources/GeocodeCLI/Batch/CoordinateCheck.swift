import ReverseGeocoder

/// Turns the two coordinate values of a record into a ``Coordinate`` or a message that says which value
/// is wrong, where it is (column, key), and how.
enum CoordinateCheck {
    /// What was found for one coordinate.
    enum Value {
        case number(Double, text: String)
        case missing(String)
        case notNumber(text: String)
        case empty
    }

    static func coordinate(lat: Value, latWhere: String, lon: Value, lonWhere: String) -> Result<Coordinate, CoordinateError> {
        var problems: [String] = []
        let latitude = check(lat, name: "latitude", where: latWhere, limit: 90, problems: &problems)
        let longitude = check(lon, name: "longitude", where: lonWhere, limit: 180, problems: &problems)
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
        case .number(let v, let text):
            if !v.isFinite {
                problems.append("\(name) \(quoted(text)) is not a finite number (\(place))")
            } else if abs(v) > limit {
                problems.append("\(name) \(text.trimmingSpaces) is outside -\(Int(limit))...\(Int(limit)) (\(place))")
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

extension String {
    /// Without leading/trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
