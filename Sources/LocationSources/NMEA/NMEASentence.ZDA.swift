extension NMEASentence {
    /// ZDA, time and date: UTC time, day, month, four-digit year, local zone.
    ///
    /// `$GPZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh`. The only standard sentence with the century.
    public struct ZDA: Sendable, Hashable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        /// `nil` when any part is empty or zero-filled.
        public var date: NMEADate?
        public var localZoneHours: Int?
        public var localZoneMinutes: Int?

        public init(talker: NMEATalker, time: NMEATimeOfDay? = nil, date: NMEADate? = nil,
                    localZoneHours: Int? = nil, localZoneMinutes: Int? = nil) {
            self.talker = talker
            self.time = time
            self.date = date
            self.localZoneHours = localZoneHours
            self.localZoneMinutes = localZoneMinutes
        }

        init(_ f: inout NMEAFields, talker: NMEATalker) {
            self.talker = talker
            time = f.time(1)
            let day = f.integer(2), month = f.integer(3), year = f.integer(4)
            if let day, let month, let year, day != 0 || month != 0 || year != 0 {
                date = NMEADate(year: year, month: month, day: day)
                if date == nil { f.fail(2) }
            }
            // Zone hours may be signed (-13…13); only the magnitude is checked here.
            let zone = f.string(5)
            localZoneHours = zone.isEmpty ? nil : Int(zone)
            if !zone.isEmpty && localZoneHours == nil { f.fail(5) }
            localZoneMinutes = f.integer(6)
        }
    }
}
