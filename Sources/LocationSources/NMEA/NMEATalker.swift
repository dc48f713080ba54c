/// The two-letter talker ID that starts a standard sentence's address (`GP` in `$GPGGA`).
///
/// Any two uppercase letters are accepted, so a receiver with an unusual talker still decodes;
/// ``system`` names the satellite systems the common IDs stand for.
public struct NMEATalker: Sendable, Hashable, CustomStringConvertible {
    /// The satellite system (or combination) a talker ID reports for.
    public enum System: Sendable, Hashable {
        /// `GP`: GPS (and SBAS, QZSS on older receivers).
        case gps
        /// `GL`: GLONASS.
        case glonass
        /// `GA`: Galileo.
        case galileo
        /// `BD`, `GB`: BeiDou.
        case beidou
        /// `GI`: NavIC (IRNSS).
        case navic
        /// `GQ`, `QZ`: QZSS.
        case qzss
        /// `GN`: a solution combining several systems.
        case combined
        /// Any other talker (`II` integrated instrumentation, `EC` ECDIS, …).
        case other
    }

    /// The two ASCII letters.
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    init(_ first: UInt8, _ second: UInt8) {
        rawValue = String(decoding: [first, second], as: UTF8.self)
    }

    public static let gps = NMEATalker("GP")
    public static let combined = NMEATalker("GN")
    public static let glonass = NMEATalker("GL")
    public static let galileo = NMEATalker("GA")
    public static let beidou = NMEATalker("BD")

    public var system: System {
        switch rawValue {
        case "GP": return .gps
        case "GL": return .glonass
        case "GA": return .galileo
        case "BD", "GB": return .beidou
        case "GI": return .navic
        case "GQ", "QZ": return .qzss
        case "GN": return .combined
        default: return .other
        }
    }

    public var description: String { rawValue }
}
