import GeoModel

extension NMEASentence {
    /// RMC, recommended minimum data: time, status, position, speed, course, date, FAA mode.
    ///
    /// `$GPRMC,hhmmss.ss,A,ddmm.mm,N,dddmm.mm,E,s.s,c.c,ddmmyy,v.v,E,m,n*hh`
    /// (the mode is NMEA 2.3+, the navigational status `n` NMEA 4.1+).
    public struct RMC: Sendable, Hashable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        /// Status `A` (data valid); `false` for `V` (receiver warning) or an empty status.
        public var isActive: Bool
        public var coordinate: Coordinate?
        /// Speed over ground, knots.
        public var speedKnots: Double?
        /// Course over ground, degrees from true north.
        public var courseTrue: Double?
        public var date: NMEADate?
        /// Magnetic variation in degrees, east positive.
        public var magneticVariation: Double?
        public var mode: NMEAFAAMode?

        public init(talker: NMEATalker, time: NMEATimeOfDay? = nil, isActive: Bool, coordinate: Coordinate? = nil,
                    speedKnots: Double? = nil, courseTrue: Double? = nil, date: NMEADate? = nil,
                    magneticVariation: Double? = nil, mode: NMEAFAAMode? = nil) {
            self.talker = talker
            self.time = time
            self.isActive = isActive
            self.coordinate = coordinate
            self.speedKnots = speedKnots
            self.courseTrue = courseTrue
            self.date = date
            self.magneticVariation = magneticVariation
            self.mode = mode
        }

        /// Status `A` and a mode (if sent) other than `N`. The NMEA 4.1 navigational status is not
        /// consulted: Quectel sends `V` there ("no status given") on every valid fix.
        public var hasFix: Bool { isActive && mode != .notValid }

        /// The position when the sentence claims a fix.
        public var fixCoordinate: Coordinate? { hasFix ? coordinate : nil }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            time = f.time(1)
            switch f.letter(2) {
            case UInt8(ascii: "A")?: isActive = true
            case UInt8(ascii: "V")?, nil: isActive = false
            default: isActive = false; f.fail(2)
            }
            coordinate = f.coordinate(3)
            speedKnots = f.decimal(7)
            courseTrue = f.decimal(8)
            date = f.dateDDMMYY(9)
            if let variation = f.decimal(10) {
                switch f.letter(11) {
                case UInt8(ascii: "E")?: magneticVariation = variation
                case UInt8(ascii: "W")?: magneticVariation = -variation
                case nil: magneticVariation = nil
                default: f.fail(11)
                }
            }
            if let m = f.letter(12) { mode = NMEAFAAMode(byte: m) }
        }
    }
}
