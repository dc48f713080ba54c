import Foundation
import GeoModel

/// Merges a receiver's sentences into one ``Location`` per reporting cycle, the way the receiver
/// meant them: position and altitude from GGA/GNS (or RMC/GLL), date from RMC or ZDA, speed and
/// course from RMC or VTG, dilution of precision from GSA, error estimates from GST.
///
/// **Cycles.** A receiver sends a burst of sentences per fix, all stamped with the same UTC time. A
/// sentence with a different time starts the next cycle and closes the previous one; sentences
/// without a time (GSA, VTG, GSV, proprietary) belong to the cycle in progress. Waiting for the next
/// burst would deliver every fix a cycle late, so the assembler also learns which sentence ends a
/// burst (the same one, appearing once, last in two cycles running, like gpsd's cycle-ender) and
/// closes the cycle as soon as it sees it. ``flush()`` closes a cycle on demand: at the end of a
/// file, or when a live line has gone quiet.
///
/// **Validity.** A cycle is a valid fix when one of its position reports claims a fix (RMC/GLL status
/// `A`, GGA quality 1–8, an FAA mode other than `N`) and none of them denies it (RMC/GLL `V`, GGA
/// quality 0, FAA mode `N`). Cycles that carry a position but are not valid are delivered with
/// quality `.none` and negative accuracy (the manager decides); cycles without any position
/// (a receiver still searching) produce nothing.
///
/// **Accuracy.** `horizontalAccuracy` is the GST 1-sigma horizontal error when the receiver sends one,
/// else HDOP × ``Configuration/metresPerDOP`` (the user equivalent range error, UERE), else
/// ``Configuration/accuracyWithoutDOP``. `verticalAccuracy` likewise from GST or VDOP.
///
/// **Time.** Receiver date and time. GGA-only cycles use the last date seen (RMC or ZDA), rolled over
/// at midnight; before any date, the day is taken from ``Configuration/clock`` (the UTC day that
/// puts the fix nearest to now). A cycle with no time at all is stamped with the clock.
public struct NMEAFixAssembler: Sendable {
    /// Tunables.
    public struct Configuration: Sendable {
        /// Metres of position error per unit of DOP: the receiver's UERE. 5 m is a typical 1-sigma value
        /// for single-frequency GNSS, making HDOP × UERE a one-sigma horizontal radius, the kind of
        /// number CoreLocation reports. The GPX source uses the same default.
        public var metresPerDOP: Double
        /// `horizontalAccuracy` of a valid fix whose cycle carries no HDOP, GSA or GST (an RMC-only
        /// receiver): deliberately pessimistic, so a filter does not mistake "unknown" for "good".
        public var accuracyWithoutDOP: Double
        /// Close a cycle as soon as its learned last sentence arrives (see the type's notes).
        public var learnsCycleEnd: Bool
        /// Now, for the date of fixes that come before the receiver has sent any date.
        public var clock: @Sendable () -> Date

        public init(metresPerDOP: Double = 5, accuracyWithoutDOP: Double = 50, learnsCycleEnd: Bool = true,
                    clock: @escaping @Sendable () -> Date = { Date() }) {
            self.metresPerDOP = metresPerDOP
            self.accuracyWithoutDOP = accuracyWithoutDOP
            self.learnsCycleEnd = learnsCycleEnd
            self.clock = clock
        }
    }

    /// What one cycle has gathered so far.
    private struct Cycle {
        var isEmpty = true
        var time: NMEATimeOfDay?
        /// Started by a position report that had no time (a receiver that has lost its clock).
        var isUntimed = false
        /// Same time as a cycle already closed: a burst that was reported early. Not reported twice.
        var isContinuation = false
        var lastAddress: String?
        var lastAddressRepeated = false
        var addresses: Set<String> = []

        var lastCoordinate: Coordinate?
        var fixCoordinate: Coordinate?
        var deniesFix = false
        var ggaQuality: NMEASentence.GGA.Quality?
        var modeQuality: Location.FixQuality?
        var fixType: Int?
        var altitude: Double?
        var positionHDOP: Double?
        var gsaHDOP: Double?
        var vdop: Double?
        var gst: NMEASentence.GST?
        var speed: Double?
        var course: Double?
        var date: NMEADate?
    }

    public let configuration: Configuration
    private var cycle = Cycle()
    private var lastDate: NMEADate?
    private var lastDateTime: NMEATimeOfDay?
    private var lastClosedTime: NMEATimeOfDay?
    private var learnedEnder: String?
    private var previousEnderCandidate: String?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// True while a cycle has sentences that have not been reported yet.
    public var hasPendingCycle: Bool { !cycle.isEmpty }

    /// Adds one sentence; returns the fixes of the cycles it completed (usually none or one).
    public mutating func consume(_ sentence: NMEASentence) -> [Location] {
        var completed: [Location] = []
        if let time = sentence.timeOfDay {
            if let current = cycle.time {
                if current != time { close(into: &completed, byEnder: false, start: time) }
            } else if cycle.isUntimed {
                close(into: &completed, byEnder: false, start: time)
            } else {
                // Only untimed sentences so far: they lead this cycle.
                cycle.time = time
                cycle.isContinuation = time == lastClosedTime
            }
        } else if sentence.isPositionReport {
            if cycle.time != nil { close(into: &completed, byEnder: false, start: nil) }
            cycle.isUntimed = true
        }
        absorb(sentence)
        if configuration.learnsCycleEnd, let ender = learnedEnder, sentence.address == ender {
            close(into: &completed, byEnder: true, start: nil)
        }
        return completed
    }

    /// Closes the cycle in progress and returns its fix, if it has one.
    public mutating func flush() -> Location? {
        var completed: [Location] = []
        close(into: &completed, byEnder: false, start: nil)
        return completed.first
    }

    private mutating func absorb(_ sentence: NMEASentence) {
        cycle.isEmpty = false
        let address = sentence.address
        cycle.lastAddressRepeated = cycle.addresses.contains(address)
        cycle.lastAddress = address
        cycle.addresses.insert(address)

        switch sentence {
        case .gga(let gga):
            notePosition(gga.coordinate, claimsFix: gga.hasFix)
            if gga.hasFix {
                cycle.ggaQuality = gga.quality
                cycle.altitude = gga.altitudeMSL ?? cycle.altitude
                cycle.positionHDOP = gga.hdop ?? cycle.positionHDOP
            } else if gga.quality == .invalid {
                cycle.deniesFix = true
            }
        case .rmc(let rmc):
            notePosition(rmc.coordinate, claimsFix: rmc.hasFix)
            // A receiver knows the date before it has a fix; keep it for later cycles.
            cycle.date = rmc.date ?? cycle.date
            if rmc.hasFix {
                if let knots = rmc.speedKnots { cycle.speed = knots * NMEASentence.metresPerSecondPerKnot }
                cycle.course = rmc.courseTrue ?? cycle.course
                cycle.modeQuality = rmc.mode?.fixQuality ?? cycle.modeQuality
            } else {
                cycle.deniesFix = true
            }
        case .gll(let gll):
            notePosition(gll.coordinate, claimsFix: gll.hasFix)
            if gll.hasFix {
                cycle.modeQuality = gll.mode?.fixQuality ?? cycle.modeQuality
            } else {
                cycle.deniesFix = true
            }
        case .gns(let gns):
            notePosition(gns.coordinate, claimsFix: gns.hasFix)
            if gns.hasFix {
                cycle.altitude = gns.altitudeMSL ?? cycle.altitude
                cycle.positionHDOP = gns.hdop ?? cycle.positionHDOP
                cycle.modeQuality = gns.primaryMode?.fixQuality ?? cycle.modeQuality
            } else if !gns.modes.isEmpty {
                cycle.deniesFix = true
            }
        case .gsa(let gsa):
            if let type = gsa.fixType, type >= 2 { cycle.fixType = type }
            cycle.gsaHDOP = gsa.hdop ?? cycle.gsaHDOP
            cycle.vdop = gsa.vdop ?? cycle.vdop
        case .vtg(let vtg):
            if vtg.mode != .notValid {
                cycle.speed = vtg.speedMetresPerSecond ?? cycle.speed
                cycle.course = vtg.courseTrue ?? cycle.course
            }
        case .zda(let zda):
            cycle.date = zda.date ?? cycle.date
        case .gst(let gst):
            cycle.gst = gst
        case .other:
            break
        }
    }

    private mutating func notePosition(_ coordinate: Coordinate?, claimsFix: Bool) {
        guard let coordinate else { return }
        cycle.lastCoordinate = coordinate
        if claimsFix { cycle.fixCoordinate = coordinate }
    }

    /// Ends the cycle in progress, appending its fix (if any) to `completed`, and starts the next one.
    private mutating func close(into completed: inout [Location], byEnder: Bool, start nextTime: NMEATimeOfDay?) {
        if !cycle.isEmpty {
            if !byEnder { learnCycleEnd() }
            if cycle.isContinuation {
                // The learned ender was wrong (sentences of its cycle came after it): forget it.
                learnedEnder = nil
                previousEnderCandidate = nil
            } else {
                let date = resolveDate()
                if let location = makeLocation(date: date) { completed.append(location) }
            }
            if let time = cycle.time { lastClosedTime = time }
        }
        cycle = Cycle()
        if let nextTime {
            cycle.time = nextTime
            cycle.isContinuation = nextTime == lastClosedTime
        }
    }

    /// Remembers which sentence ended this cycle; two cycles in a row ending alike teach the ender.
    private mutating func learnCycleEnd() {
        let candidate = cycle.lastAddressRepeated ? nil : cycle.lastAddress
        if let candidate, candidate == previousEnderCandidate {
            learnedEnder = candidate
        } else if candidate != learnedEnder {
            learnedEnder = nil
        }
        previousEnderCandidate = candidate
    }

    /// The date of the cycle: its own, else the last one seen (the next day if the time wrapped past
    /// midnight). Updates the carried date.
    private mutating func resolveDate() -> NMEADate? {
        guard let time = cycle.time else { return cycle.date }
        var date = cycle.date
        if date == nil, let last = lastDate, let lastTime = lastDateTime {
            // Twelve hours backwards is a new day, not a receiver going back in time.
            let wrapped = time.totalNanoseconds + 43_200 * 1_000_000_000 < lastTime.totalNanoseconds
            date = wrapped ? last.next : last
        }
        if let date {
            lastDate = date
            lastDateTime = time
        }
        return date
    }

    private func timestamp(date: NMEADate?) -> Date {
        guard let time = cycle.time else { return configuration.clock() }
        if let date { return date.date(at: time) }
        // No date yet: the UTC day that puts this time of day closest to now.
        let now = configuration.clock()
        let today = NMEADate(daysSinceEpoch: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down)))
        let candidates = [NMEADate(daysSinceEpoch: today.daysSinceEpoch - 1), today, today.next]
            .map { $0.date(at: time) }
        return candidates.min { abs($0.timeIntervalSince(now)) < abs($1.timeIntervalSince(now)) } ?? now
    }

    private func makeLocation(date: NMEADate?) -> Location? {
        guard let coordinate = cycle.fixCoordinate ?? cycle.lastCoordinate else { return nil }
        let timestamp = timestamp(date: date)
        guard let fixCoordinate = cycle.fixCoordinate, !cycle.deniesFix else {
            return Location(coordinate: coordinate, horizontalAccuracy: -1, timestamp: timestamp, quality: .none)
        }

        let dimensional: Location.FixQuality
        switch cycle.fixType {
        case 3?: dimensional = .fix3D
        case 2?: dimensional = .fix2D
        default: dimensional = cycle.altitude != nil ? .fix3D : .fix2D
        }
        let quality: Location.FixQuality
        switch cycle.ggaQuality {
        case .gps?, .pps?: quality = dimensional
        case .differential?: quality = .differential
        case .rtkFixed?, .rtkFloat?: quality = .rtk
        case .estimated?: quality = .estimated
        case .manual?, .simulated?: quality = .simulated
        case .invalid?, nil: quality = cycle.modeQuality ?? dimensional
        }

        let altitude = cycle.altitude
        let hdop = cycle.positionHDOP ?? cycle.gsaHDOP
        let horizontal = cycle.gst?.horizontalError
            ?? hdop.map { $0 * configuration.metresPerDOP }
            ?? configuration.accuracyWithoutDOP
        var vertical = -1.0
        // A 2-D fix's altitude is the receiver's assumption, not a measurement: delivered as the
        // receiver sent it, but with its accuracy unknown.
        if altitude != nil && cycle.fixType != 2 {
            vertical = cycle.gst?.altitudeError ?? cycle.vdop.map { $0 * configuration.metresPerDOP } ?? -1
        }
        let course = cycle.course.flatMap { $0 >= 0 && $0 <= 360 ? $0 : nil } ?? -1
        let speed = cycle.speed.flatMap { $0 >= 0 ? $0 : nil } ?? -1
        return Location(coordinate: fixCoordinate, altitude: altitude, horizontalAccuracy: horizontal,
                        verticalAccuracy: vertical, speed: speed, course: course, timestamp: timestamp,
                        quality: quality)
    }
}
