extension NMEASentence {
    /// GST, pseudorange error statistics: the receiver's own 1-sigma error estimates, in metres.
    ///
    /// `$GPGST,hhmmss.ss,rms,major,minor,orientation,lat,lon,alt*hh`
    public struct GST: Sendable, Hashable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        /// RMS of the pseudorange residuals.
        public var rangeRMS: Double?
        public var semiMajorError: Double?
        public var semiMinorError: Double?
        /// Orientation of the semi-major axis, degrees from true north.
        public var orientation: Double?
        /// 1-sigma latitude error, metres.
        public var latitudeError: Double?
        /// 1-sigma longitude error, metres.
        public var longitudeError: Double?
        /// 1-sigma altitude error, metres.
        public var altitudeError: Double?

        public init(talker: NMEATalker, time: NMEATimeOfDay? = nil, rangeRMS: Double? = nil,
                    semiMajorError: Double? = nil, semiMinorError: Double? = nil, orientation: Double? = nil,
                    latitudeError: Double? = nil, longitudeError: Double? = nil, altitudeError: Double? = nil) {
            self.talker = talker
            self.time = time
            self.rangeRMS = rangeRMS
            self.semiMajorError = semiMajorError
            self.semiMinorError = semiMinorError
            self.orientation = orientation
            self.latitudeError = latitudeError
            self.longitudeError = longitudeError
            self.altitudeError = altitudeError
        }

        /// Horizontal 1-sigma radius (DRMS) from the latitude and longitude errors, when both are known.
        public var horizontalError: Double? {
            guard let lat = latitudeError, let lon = longitudeError else { return nil }
            return (lat * lat + lon * lon).squareRoot()
        }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            time = f.time(1)
            rangeRMS = f.positiveDecimal(2)
            semiMajorError = f.positiveDecimal(3)
            semiMinorError = f.positiveDecimal(4)
            orientation = f.decimal(5)
            // Zero-filled errors (no fix yet) are unknown: no receiver is exact.
            latitudeError = f.positiveDecimal(6)
            longitudeError = f.positiveDecimal(7)
            altitudeError = f.positiveDecimal(8)
        }
    }
}
