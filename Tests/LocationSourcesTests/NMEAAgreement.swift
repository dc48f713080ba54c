/// How a decoded angle compares with gpsd's 9-decimal print of it.
enum NMEAAgreement: Equatable {
    /// Ours, rounded to 9 decimals, is exactly what gpsd printed.
    case equal
    /// The exact value lies on a rounding tie (…5 in the 10th decimal) and gpsd rounded the other way:
    /// |Δ| is 5e-10, half a unit in the last printed place. Both roundings are correct.
    case tie
    case different

    /// `ours` in degrees against gpsd's value in integer nanodegrees.
    init(_ ours: Double, gpsdNanodegrees: Int64) {
        let scaled = ours * 1e9
        if Int64(scaled.rounded()) == gpsdNanodegrees {
            self = .equal
        } else if abs(scaled - Double(gpsdNanodegrees)) <= 0.5 + 1e-4 {
            // 1e-4 nanodegrees: the float error of `ours * 1e9` at 1.8e11, not a tolerance on the data.
            self = .tie
        } else {
            self = .different
        }
    }
}

extension NMEAAgreement {
    /// Whether the exact value of an NMEA angle field (`dddmm.mmmm`, as written in the sentence) lies
    /// exactly halfway between two 9-decimal values, computed in integers, independently of the parser.
    static func isExactTie(_ field: Substring) -> Bool {
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard let whole = Int128(parts[0]) else { return false }
        let fractionText = parts.count > 1 ? parts[1] : ""
        guard let fraction = Int128(fractionText.isEmpty ? "0" : String(fractionText)) else { return false }
        var scale: Int128 = 1
        for _ in 0..<fractionText.count { scale *= 10 }
        // value = N / D degrees with N = (degrees·60 + minutes)·scale + fraction, D = 60·scale.
        let numerator = ((whole / 100) * 60 + whole % 100) * scale + fraction
        let denominator = 60 * scale
        // value·1e9 = k + ½ exactly  ⇔  2·N·1e9 ≡ D (mod 2·D).
        return (2 * numerator * 1_000_000_000) % (2 * denominator) == denominator
    }
}
