import GeoModel

extension NMEASentence {
    /// GLL, geographic position: position, time, status, FAA mode.
    ///
    /// `$GPGLL,ddmm.mm,N,dddmm.mm,E,hhmmss.ss,A,m*hh` (time and status since NMEA 2.0, mode 2.3).
    public struct GLL: Sendable, Hashable {
        public var talker: NMEATalker
        public var coordinate: Coordinate?
        public var time: NMEATimeOfDay?
        /// Status `A`; `false` for `V` or empty.
        public var isActive: Bool
        public var mode: NMEAFAAMode?

        public init(talker: NMEATalker, coordinate: Coordinate? = nil, time: NMEATimeOfDay? = nil,
                    isActive: Bool, mode: NMEAFAAMode? = nil) {
            self.talker = talker
            self.coordinate = coordinate
            self.time = time
            self.isActive = isActive
            self.mode = mode
        }

        /// Status `A` and a mode (if sent) other than `N`.
        public var hasFix: Bool { isActive && mode != .notValid }

        /// The position when the sentence claims a fix.
        public var fixCoordinate: Coordinate? { hasFix ? coordinate : nil }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            coordinate = f.coordinate(1)
            time = f.time(5)
            switch f.letter(6) {
            case UInt8(ascii: "A")?: isActive = true
            case UInt8(ascii: "V")?, nil: isActive = false
            default: isActive = false; f.fail(6)
            }
            if let m = f.letter(7) { mode = NMEAFAAMode(byte: m) }
        }
    }
}
