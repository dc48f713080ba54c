extension NMEASentence {
    /// VTG, track made good and ground speed.
    ///
    /// `$GPVTG,c.c,T,c.c,M,s.s,N,s.s,K,m*hh`
    public struct VTG: Sendable, Hashable {
        public var talker: NMEATalker
        /// Course over ground, degrees from true north.
        public var courseTrue: Double?
        /// Course over ground, degrees from magnetic north.
        public var courseMagnetic: Double?
        public var speedKnots: Double?
        public var speedKilometresPerHour: Double?
        public var mode: NMEAFAAMode?

        public init(talker: NMEATalker, courseTrue: Double? = nil, courseMagnetic: Double? = nil,
                    speedKnots: Double? = nil, speedKilometresPerHour: Double? = nil, mode: NMEAFAAMode? = nil) {
            self.talker = talker
            self.courseTrue = courseTrue
            self.courseMagnetic = courseMagnetic
            self.speedKnots = speedKnots
            self.speedKilometresPerHour = speedKilometresPerHour
            self.mode = mode
        }

        /// Speed over ground in metres per second, from knots or else km/h.
        public var speedMetresPerSecond: Double? {
            if let knots = speedKnots { return knots * NMEASentence.metresPerSecondPerKnot }
            if let kmh = speedKilometresPerHour { return kmh / 3.6 }
            return nil
        }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            courseTrue = f.decimal(1)
            courseMagnetic = f.decimal(3)
            speedKnots = f.decimal(5)
            speedKilometresPerHour = f.decimal(7)
            if let m = f.letter(9) { mode = NMEAFAAMode(byte: m) }
        }
    }

    /// 1 knot = 1852 m per hour, exactly.
    static let metresPerSecondPerKnot = 1852.0 / 3600.0
}
