import GeoModel

/// One decoded NMEA 0183 sentence.
///
/// The position-carrying sentences (GGA, RMC, GLL, GNS) each say for themselves whether they hold a
/// fix (``fixCoordinate``); the others add what a fix lacks (DOP from GSA, speed from VTG, a
/// four-digit year from ZDA, error estimates from GST). ``NMEAFixAssembler`` merges them per
/// reporting cycle into one ``Location``.
public enum NMEASentence: Sendable, Hashable {
    case gga(GGA)
    case rmc(RMC)
    case gll(GLL)
    case gns(GNS)
    case gsa(GSA)
    case vtg(VTG)
    case zda(ZDA)
    case gst(GST)
    /// A well-formed sentence this parser does not decode: satellites in view (GSV), text (TXT),
    /// proprietary (`$P…`), AIS (`!AIVDM`), …. Its checksum was verified like any other.
    case other(address: String)

    /// The address field: talker and type (`GPGGA`), or the whole proprietary/AIS address.
    public var address: String {
        switch self {
        case .gga(let s): return s.talker.rawValue + "GGA"
        case .rmc(let s): return s.talker.rawValue + "RMC"
        case .gll(let s): return s.talker.rawValue + "GLL"
        case .gns(let s): return s.talker.rawValue + "GNS"
        case .gsa(let s): return s.talker.rawValue + "GSA"
        case .vtg(let s): return s.talker.rawValue + "VTG"
        case .zda(let s): return s.talker.rawValue + "ZDA"
        case .gst(let s): return s.talker.rawValue + "GST"
        case .other(let address): return address
        }
    }

    /// The position, when this is a GGA/RMC/GLL/GNS that says it has a valid fix; otherwise `nil`.
    public var fixCoordinate: Coordinate? {
        switch self {
        case .gga(let s): return s.fixCoordinate
        case .rmc(let s): return s.fixCoordinate
        case .gll(let s): return s.fixCoordinate
        case .gns(let s): return s.fixCoordinate
        default: return nil
        }
    }

    /// The UTC time of day the sentence refers to, for the sentences that carry one.
    public var timeOfDay: NMEATimeOfDay? {
        switch self {
        case .gga(let s): return s.time
        case .rmc(let s): return s.time
        case .gll(let s): return s.time
        case .gns(let s): return s.time
        case .zda(let s): return s.time
        case .gst(let s): return s.time
        default: return nil
        }
    }

    /// True for the sentence types that report a position (GGA, RMC, GLL, GNS), fix or not.
    public var isPositionReport: Bool {
        switch self {
        case .gga, .rmc, .gll, .gns: return true
        default: return false
        }
    }
}
