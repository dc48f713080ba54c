import ReverseGeocoder

/// `--max-distance METRES`: how far from the nearest unit a point in no unit (at sea, just off a coast)
/// may be and still be answered (``ReverseGeocoder/Options/maxDistance``). Taken by `reverse`, `batch`
/// and `track`.
///
/// Accepted: a decimal number of metres (`5000`, `0` to turn the fallback off), or a number with the unit
/// `m` or `km` right after it (`500m`, `5km`, `2.5km`). Only these two, lower case: `M` could be read as
/// mega or miles, `nm` as nanometres or nautical miles. Anything else, a negative number or a value
/// that is not finite is a usage error (exit 2) naming the option and the text.
///
/// The value reaches the engine factory through ``variable`` in the command's environment (as
/// `--skip-broken-datasets` does), so a stand-in lookup and the real engine get it the same way; the
/// variable may also be set by the user, and is checked the same way.
public enum MaxDistanceOption {
    public static let spec = OptionSpec(
        "max-distance", value: "METRES",
        help: "answer a point in no unit (at sea) with the nearest unit this near, e.g. 10000, 500m, 5km; 0: off (default \(defaultText))")
    /// Environment variable carrying the value in metres (a plain decimal number).
    public static let variable = "GEOCODE_MAX_DISTANCE"

    static var defaultText: String {
        let m = ReverseGeocoder.Options.defaultMaxDistance
        return m.truncatingRemainder(dividingBy: 1000) == 0 ? "\(Int(m / 1000))km" : "\(m)m"
    }

    /// Metres, or nil when `text` is none of the accepted forms.
    public static func metres(_ text: String) -> Double? {
        var number = Substring(text), factor = 1.0
        if number.hasSuffix("km") {
            number = number.dropLast(2); factor = 1000
        } else if number.hasSuffix("m") {
            number = number.dropLast(1)
        }
        // DecimalNumber: digits, one point, an optional sign and exponent; no "inf", "nan" or hex.
        guard !number.isEmpty, number.first != " ", number.last != " ",
              let v = DecimalNumber.parse(String(number)), v.isFinite, v >= 0 else { return nil }
        let m = v * factor
        return m.isFinite ? m : nil
    }

    /// `metres(text)`, or a usage error saying what is accepted. `source` is how the user gave it.
    static func parse(_ text: String, source: String) throws(CLIError) -> Double {
        guard let m = metres(text) else {
            throw .usage("\(source) takes a distance ≥ 0 in metres (e.g. 10000, 500m, 5km; 0 turns it off), not \"\(text)\"")
        }
        return m
    }
}
