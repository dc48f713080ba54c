import GeoModel

extension NMEASentence {
    /// GGA, fix data: time, position, fix quality, satellites, HDOP, altitude above mean sea level.
    ///
    /// `$GPGGA,hhmmss.ss,ddmm.mm,N,dddmm.mm,E,q,nn,h.h,a.a,M,g.g,M,age,station*hh`
    public struct GGA: Sendable, Hashable {
        /// The GGA quality indicator (field 6).
        public enum Quality: Int, Sendable, Hashable {
            case invalid = 0
            case gps = 1
            case differential = 2
            /// PPS / precise positioning service.
            case pps = 3
            case rtkFixed = 4
            case rtkFloat = 5
            /// Dead reckoning.
            case estimated = 6
            case manual = 7
            case simulated = 8
        }

        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        /// `nil` when empty or zero-filled.
        public var coordinate: Coordinate?
        /// `nil` when the field is empty (which also means no fix).
        public var quality: Quality?
        public var satellitesInUse: Int?
        /// `nil` when empty, zero-filled, or the 99.99 receivers send for "none".
        public var hdop: Double?
        /// Metres above mean sea level (the geoid).
        public var altitudeMSL: Double?
        /// Height of the geoid above the WGS-84 ellipsoid, metres.
        public var geoidSeparation: Double?

        public init(talker: NMEATalker, time: NMEATimeOfDay? = nil, coordinate: Coordinate? = nil,
                    quality: Quality? = nil, satellitesInUse: Int? = nil, hdop: Double? = nil,
                    altitudeMSL: Double? = nil, geoidSeparation: Double? = nil) {
            self.talker = talker
            self.time = time
            self.coordinate = coordinate
            self.quality = quality
            self.satellitesInUse = satellitesInUse
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
        }

        /// The receiver claims a fix: any quality but 0 (or empty).
        public var hasFix: Bool { quality != nil && quality != .invalid }

        /// The position when the sentence claims a fix.
        public var fixCoordinate: Coordinate? { hasFix ? coordinate : nil }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            time = f.time(1)
            coordinate = f.coordinate(2)
            if let q = f.integer(6) {
                quality = Quality(rawValue: q)
                if quality == nil { f.fail(6) }
            }
            satellitesInUse = f.integer(7)
            hdop = NMEASentence.dilution(&f, 8)
            // Altitude and separation are only metres when their unit field says so (or is empty, as
            // with receivers that leave the unit out).
            altitudeMSL = NMEASentence.metres(&f, 9)
            geoidSeparation = NMEASentence.metres(&f, 11)
        }
    }

    /// A dilution of precision: unknown when empty, zero, or ≥ 99 (the "no value" 99.99 some send).
    static func dilution(_ f: inout NMEAFields, _ index: Int) -> Double? {
        guard let dop = f.positiveDecimal(index), dop < 99 else { return nil }
        return dop
    }

    /// A length in field `index` whose unit letter is in `index + 1`; only `M` (or no letter) is metres.
    static func metres(_ f: inout NMEAFields, _ index: Int) -> Double? {
        guard let value = f.decimal(index) else { return nil }
        switch f.letter(index + 1) {
        case nil, UInt8(ascii: "M")?: return value
        default: return nil
        }
    }
}
