/// The FAA mode indicator (NMEA 2.3+) at the end of RMC, GLL, VTG and, one per system, in GNS.
public enum NMEAFAAMode: Sendable, Hashable {
    /// `A`: autonomous (plain GNSS).
    case autonomous
    /// `D`: differential (DGPS, SBAS).
    case differential
    /// `E`: estimated (dead reckoning).
    case estimated
    /// `F`: RTK float.
    case rtkFloat
    /// `M`: manual input.
    case manual
    /// `N`: data not valid.
    case notValid
    /// `P`: precise (military P-code, or "high precision" on some receivers).
    case precise
    /// `R`: RTK fixed integer.
    case rtkFixed
    /// `S`: simulator.
    case simulated
    /// Any other letter (Quectel sends `C` and `U`). Neither validates nor invalidates a fix.
    case other(UInt8)

    init(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "A"): self = .autonomous
        case UInt8(ascii: "D"): self = .differential
        case UInt8(ascii: "E"): self = .estimated
        case UInt8(ascii: "F"): self = .rtkFloat
        case UInt8(ascii: "M"): self = .manual
        case UInt8(ascii: "N"): self = .notValid
        case UInt8(ascii: "P"): self = .precise
        case UInt8(ascii: "R"): self = .rtkFixed
        case UInt8(ascii: "S"): self = .simulated
        default: self = .other(byte)
        }
    }

    /// True for the letters that assert a position (everything but `N` and unknown letters).
    public var assertsFix: Bool {
        switch self {
        case .notValid, .other: return false
        default: return true
        }
    }

    /// How a fix in this mode maps to ``Location/FixQuality``; `nil` for plain autonomous (whether it
    /// is 2-D or 3-D is known only from GSA or GGA) and for letters that do not assert a fix.
    var fixQuality: Location.FixQuality? {
        switch self {
        case .autonomous, .notValid, .other: return nil
        case .differential, .precise: return .differential
        case .rtkFixed, .rtkFloat: return .rtk
        case .estimated: return .estimated
        case .manual, .simulated: return .simulated
        }
    }
}
