import GeoModel

extension NMEASentence {
    /// GNS, GNSS fix data (NMEA 3.0+): like GGA, with one FAA mode letter per satellite system.
    ///
    /// `$GNGNS,hhmmss.ss,ddmm.mm,N,dddmm.mm,E,AAN,nn,h.h,a.a,g.g,age,station,n*hh`
    public struct GNS: Sendable, Hashable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        public var coordinate: Coordinate?
        /// Mode per system, in the order GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC (as far as sent).
        public var modes: [NMEAFAAMode]
        public var satellitesInUse: Int?
        public var hdop: Double?
        public var altitudeMSL: Double?
        public var geoidSeparation: Double?

        public init(talker: NMEATalker, time: NMEATimeOfDay? = nil, coordinate: Coordinate? = nil,
                    modes: [NMEAFAAMode], satellitesInUse: Int? = nil, hdop: Double? = nil,
                    altitudeMSL: Double? = nil, geoidSeparation: Double? = nil) {
            self.talker = talker
            self.time = time
            self.coordinate = coordinate
            self.modes = modes
            self.satellitesInUse = satellitesInUse
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
        }

        /// At least one system's mode asserts a fix.
        public var hasFix: Bool { modes.contains { $0.assertsFix } }

        /// The position when the sentence claims a fix.
        public var fixCoordinate: Coordinate? { hasFix ? coordinate : nil }

        /// The first mode that asserts a fix (the one that describes the solution).
        public var primaryMode: NMEAFAAMode? { modes.first { $0.assertsFix } }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            time = f.time(1)
            coordinate = f.coordinate(2)
            let modeText = Array(f.string(6).utf8)
            if modeText.count <= 8, modeText.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
                modes = modeText.map { NMEAFAAMode(byte: $0) }
            } else {
                modes = []
                f.fail(6)
            }
            satellitesInUse = f.integer(7)
            hdop = NMEASentence.dilution(&f, 8)
            altitudeMSL = f.decimal(9)
            geoidSeparation = f.decimal(10)
        }
    }
}
