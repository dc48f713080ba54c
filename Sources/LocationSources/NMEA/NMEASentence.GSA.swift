extension NMEASentence {
    /// GSA, DOP and active satellites: 2-D/3-D fix type, satellites used, PDOP/HDOP/VDOP.
    ///
    /// `$GPGSA,A,3,sv,sv,…(12),p.p,h.h,v.v[,system]*hh`. Has no time: it belongs to the cycle it is in.
    public struct GSA: Sendable, Hashable {
        public var talker: NMEATalker
        /// `M` manual or `A` automatic 2-D/3-D selection.
        public var isAutomatic: Bool?
        /// 1 no fix, 2 two-dimensional, 3 three-dimensional.
        public var fixType: Int?
        /// Satellite IDs used in the solution (empty slots left out).
        public var satellites: [Int]
        public var pdop: Double?
        public var hdop: Double?
        public var vdop: Double?
        /// NMEA 4.1 GNSS system ID (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
        public var systemID: Int?

        public init(talker: NMEATalker, isAutomatic: Bool? = nil, fixType: Int? = nil, satellites: [Int] = [],
                    pdop: Double? = nil, hdop: Double? = nil, vdop: Double? = nil, systemID: Int? = nil) {
            self.talker = talker
            self.isAutomatic = isAutomatic
            self.fixType = fixType
            self.satellites = satellites
            self.pdop = pdop
            self.hdop = hdop
            self.vdop = vdop
            self.systemID = systemID
        }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            switch f.letter(1) {
            case UInt8(ascii: "A")?: isAutomatic = true
            case UInt8(ascii: "M")?: isAutomatic = false
            case nil: isAutomatic = nil
            default: isAutomatic = nil; f.fail(1)
            }
            // Antaris sends `E` for a dead-reckoning estimate here: not a fix type, so unknown.
            fixType = f.length(2) == 1 && f.string(2) == "E" ? nil : f.integer(2)
            if let type = fixType, !(1...3).contains(type) { f.fail(2) }
            // The DOPs are the last three fields before the optional system ID. Receivers that list
            // more than 12 satellites (Navior, 24) shift them, so locate them from the end.
            let dopStart: Int
            switch f.count {
            case 18: dopStart = 15; systemID = nil
            case 19: dopStart = 15; systemID = f.integer(18)
            default: dopStart = f.count - 3; systemID = nil
            }
            var satellites: [Int] = []
            for index in 3..<dopStart {
                if let sv = f.integer(index), sv > 0 { satellites.append(sv) }
            }
            self.satellites = satellites
            pdop = NMEASentence.dilution(&f, dopStart)
            hdop = NMEASentence.dilution(&f, dopStart + 1)
            vdop = NMEASentence.dilution(&f, dopStart + 2)
        }
    }
}
