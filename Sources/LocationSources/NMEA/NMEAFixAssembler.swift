import Foundation
import GeoModel

/// Merges a receiver's sentences into one ``Location`` per reporting cycle, the way the receiver
/// meant them: position and altitude from GGA/GNS (or RMC/GLL), date from RMC or ZDA, speed and
/// course from RMC or VTG, dilution of precision from GSA, error estimates from GST.
///
/// **Cycles.** A receiver sends a burst of sentences per fix, all stamped with the same UTC time. A
/// sentence with a different time starts the next cycle and closes the previous one; sentences
/// without a time (GSA, VTG, GSV, proprietary) belong to the cycle in progress. ``flush()`` closes a
/// cycle on demand: at the end of a file, or when a live line has gone quiet.
///
/// Like gpsd, the assembler learns the cycle's *ender*: the type of the last time-stamped sentence
/// before the time changes, once two cycles in a row agree. The ender completes the cycle's
/// time-stamped part, which matters for receivers whose bursts straddle a second: a B&G Zeus²
/// chartplotter sends `GGA t, GLL t+1, RMC t+1, GGA t+1, GLL t+2, …`, and gpsd reports each second
/// from its GLL, closed there, with the RMC and GGA that follow it (same stamp, about 2 m away) left
/// out. So after the ender a time-stamped sentence of the same second is a late member of a cycle
/// already reported, and is not reported again; untimed sentences after it (GSA, GSV) still join the
/// cycle, which the next time-stamped sentence closes. When the ender was the last sentence of both
/// cycles that taught it (`GGA, GSA, RMC`), the cycle closes as soon as it arrives, so a live fix is
/// not a cycle late. Once learned, an ender is replaced only by another that two cycles confirm.
///
/// **Later enders.** gpsd keeps every sentence type it has seen end a cycle, not just one. Here: a late
/// burst (same stamp as a second already reported) that a new second closes on a sentence *other*
/// than an ender ended a cycle of its own, so its last time-stamped sentence becomes a further ender.
/// When an ender closes the burst instead, the burst straddles seconds and teaches nothing. From
/// 09:48:55 the Zeus² sends `GGA t, GLL t, RMC t, ZDA t`; its burst `RMC, ZDA` of 09:48:54 is closed
/// by the next GGA, so ZDA ends cycles too (the GGA of the straddling bursts before, closed by GLL,
/// never does, as in gpsd's output). While an ender of the second has not arrived yet, the cycle stays
/// open past the first one, and the fix is the second's state at its last ender: RMC's position after
/// GLL's, as gpsd reports it. If that later ender does not come, the fix is the cycle as it stood at
/// the ender that did.
///
/// **Validity.** A cycle is a valid fix when one of its position reports claims a fix (RMC/GLL status
/// `A`, GGA quality 1–8, an FAA mode other than `N`) and none of them denies it (RMC/GLL `V`, GGA
/// quality 0, FAA mode `N`). Cycles that carry a position but are not valid are delivered with
/// quality `.none` and negative accuracy (the manager decides); cycles without any position
/// (a receiver still searching) produce nothing.
///
/// **Accuracy.** `horizontalAccuracy` is the GST 1-sigma horizontal error when the receiver sends one,
/// else HDOP (GGA, GNS, else GSA) × ``Configuration/metresPerDOP`` (the user equivalent range error,
/// UERE). A cycle with neither (an RMC-only receiver; a cycle whose GGA and GSA were cut off) says
/// nothing about its error, so its accuracy is unknown (negative, as ``Location/horizontalAccuracy``
/// writes it) unless ``Configuration/accuracyWithoutDOP`` gives a figure; the fix is still valid. That
/// is gpsd's rule: its TPV for such a cycle has no `eph` (in the corpus, ublox-lea-5h's RMC-only last
/// cycle; a Zeus² second of RMC, VTG and ZDA; another ended at its GLL before its GGA came), and it
/// carries no DOP from one cycle to the next, nor does the assembler. `verticalAccuracy` likewise
/// from GST or VDOP, else unknown.
///
/// **Time.** Receiver date and time. GGA-only cycles use the last date seen (RMC or ZDA), rolled over
/// at midnight. A fix completed before the log has given any date (a GGA before the first RMC/ZDA)
/// is held, as gpsd reports no time until it knows the date, and delivered, stamped with the right
/// day, as soon as a date arrives (just before the fix that brought it). A receiver that sends no
/// date at all would be held forever, so after ``Configuration/undatedCycles`` held fixes (or at the
/// end of input) the day is taken from ``Configuration/clock``: the UTC day that puts the fix nearest
/// to now, right for a live receiver. A cycle with no time at all is stamped with the clock.
public struct NMEAFixAssembler: Sendable {
    /// Tunables.
    public struct Configuration: Sendable {
        /// Metres of position error per unit of DOP: the receiver's UERE. 5 m is a typical 1-sigma value
        /// for single-frequency GNSS, making HDOP × UERE a one-sigma horizontal radius, the kind of
        /// number CoreLocation reports. The GPX source uses the same default.
        public var metresPerDOP: Double
        /// `horizontalAccuracy` of a valid fix whose cycle carries no HDOP (GGA, GNS, GSA) and no GST
        /// error (an RMC-only receiver), in metres; negative (the default) or not finite: unknown, as
        /// ``Location/horizontalAccuracy`` says it. Such a cycle says nothing of its error, so the
        /// assembler does not make a figure up (it used to say 50 m, which a filter read as a measured
        /// 50 m); set one where a consumer needs a number.
        public var accuracyWithoutDOP: Double
        /// Close a cycle as soon as its learned last sentence arrives (see the type's notes).
        public var learnsCycleEnd: Bool
        /// Now, for the date of fixes of a receiver that sends no date (see the type's notes).
        public var clock: @Sendable () -> Date
        /// How many fixes without a date are held waiting for the receiver's first date before the
        /// clock's day is used instead. 10 covers receivers that send RMC or ZDA only every few
        /// cycles, and delays a date-less receiver's first fixes by ten cycles only.
        public var undatedCycles: Int

        public init(metresPerDOP: Double = 5, accuracyWithoutDOP: Double = -1, learnsCycleEnd: Bool = true,
                    undatedCycles: Int = 10, clock: @escaping @Sendable () -> Date = { Date() }) {
            self.metresPerDOP = metresPerDOP
            self.accuracyWithoutDOP = accuracyWithoutDOP
            self.learnsCycleEnd = learnsCycleEnd
            self.undatedCycles = undatedCycles
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
        /// The last time-stamped sentence, and whether any sentence came after it.
        var lastTimedAddress: String?
        var followedLastTimed = false
        /// The learned ender has arrived: a time-stamped sentence now closes the cycle.
        var pastEnder = false
        /// The enders that have arrived in this cycle (see the type's notes on later enders).
        var endersSeen: Set<String> = []

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
    /// The learned ender, and whether it was the last sentence of the cycles that taught it.
    private var learnedEnder: (address: String, isLast: Bool)?
    private var previousEnderCandidate: (address: String, isLast: Bool)?
    /// Further enders, learned from a late burst that a sentence other than an ender closed, and
    /// whether each was the last sentence of that burst.
    private var laterEnders: [String: Bool] = [:]
    /// The cycle as it stood at its last ender, while late sentences of the same second are waiting
    /// for a later ender (see the type's notes): reported if that ender does not come.
    private var endedCycle: Cycle?
    /// Fixes completed before any date, with their time of day (see the type's notes on time).
    private var undated: [(location: Location, time: NMEATimeOfDay)] = []
    /// The receiver sent no date for `undatedCycles` fixes: use the clock's day from now on.
    private var datesAbsent = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// True while a cycle has sentences that have not been reported yet (and ``flush(endOfInput:)``
    /// would report it). Fixes held for want of a date do not count: a quiet line does not date them.
    public var hasPendingCycle: Bool { !cycle.isEmpty }

    /// Adds one sentence; returns the fixes of the cycles it completed (usually none or one).
    public mutating func consume(_ sentence: NMEASentence) -> [Location] {
        var completed: [Location] = []
        if let time = sentence.timeOfDay {
            if cycle.pastEnder {
                if time == cycle.time && !hasSeenAllEnders {
                    // A later ender of this second is still to come: keep the cycle open for it,
                    // remembering it as it was at this ender in case it does not.
                    endedCycle = cycle
                    cycle.pastEnder = false
                } else {
                    close(into: &completed, byEnder: true, start: time)
                }
            } else if let current = cycle.time {
                if current != time { close(into: &completed, byEnder: false, start: time, by: sentence.address) }
            } else if cycle.isUntimed {
                close(into: &completed, byEnder: false, start: time, by: sentence.address)
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
        if configuration.learnsCycleEnd, sentence.timeOfDay != nil, let isLast = enderIsLast(sentence.address) {
            cycle.endersSeen.insert(sentence.address)
            endedCycle = nil
            if isLast && hasSeenAllEnders {
                close(into: &completed, byEnder: true, start: nil)
            } else {
                cycle.pastEnder = true
            }
        }
        return completed
    }

    /// Whether `address` is a learned ender, and if so whether it was the last sentence of the
    /// cycles that taught it.
    private func enderIsLast(_ address: String) -> Bool? {
        if let ender = learnedEnder, ender.address == address { return ender.isLast }
        return laterEnders[address]
    }

    private var hasSeenAllEnders: Bool {
        guard let ender = learnedEnder else { return true }
        return cycle.endersSeen.contains(ender.address) && laterEnders.keys.allSatisfy(cycle.endersSeen.contains)
    }

    /// Closes the cycle in progress and returns its fix, if it has one; at the end of input, also
    /// the fixes still waiting for a date (stamped with the clock's day, see the type's notes).
    public mutating func flush(endOfInput: Bool = false) -> [Location] {
        var completed: [Location] = []
        close(into: &completed, byEnder: false, start: nil)
        if endOfInput { releaseUndated(date: nil, into: &completed) }
        return completed
    }

    private mutating func absorb(_ sentence: NMEASentence) {
        cycle.isEmpty = false
        if sentence.timeOfDay != nil {
            cycle.lastTimedAddress = sentence.address
            cycle.followedLastTimed = false
        } else if cycle.lastTimedAddress != nil {
            cycle.followedLastTimed = true
        }

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
    private mutating func close(into completed: inout [Location], byEnder: Bool, start nextTime: NMEATimeOfDay?,
                                by closer: String? = nil) {
        if !cycle.isEmpty {
            if cycle.isContinuation, !byEnder, let closer, configuration.learnsCycleEnd {
                learnLaterEnder(closer: closer)
            }
            if let ended = endedCycle {
                // The later ender did not come: the cycle is what it was at its last ender.
                cycle = ended
                endedCycle = nil
            }
            // A late member of a reported cycle is not reported twice (gpsd reports a second once,
            // at its ender), and does not teach the first ender.
            if !cycle.isContinuation {
                if !byEnder { learnCycleEnd() }
                let date = resolveDate()
                if let location = makeLocation(date: date) {
                    if let time = cycle.time, date == nil, !datesAbsent {
                        undated.append((location, time))
                        if undated.count > configuration.undatedCycles {
                            datesAbsent = true
                            releaseUndated(date: nil, into: &completed)
                        }
                    } else {
                        if let date { releaseUndated(date: (date, cycle.time), into: &completed) }
                        completed.append(location)
                    }
                }
            }
            if let time = cycle.time { lastClosedTime = time }
        }
        cycle = Cycle()
        if let nextTime {
            cycle.time = nextTime
            cycle.isContinuation = nextTime == lastClosedTime
        }
    }

    /// A late burst (sentences of a second already reported at its ender) that a new second closes
    /// on a sentence other than an ender ended a cycle of its own: its last time-stamped sentence is
    /// a further ender. When an ender closes it instead, the burst straddles seconds and teaches
    /// nothing.
    private mutating func learnLaterEnder(closer: String) {
        guard learnedEnder != nil, enderIsLast(closer) == nil, let address = cycle.lastTimedAddress,
              enderIsLast(address) == nil else { return }
        laterEnders[address] = !cycle.followedLastTimed
    }

    /// Remembers which time-stamped sentence ended this cycle; two cycles in a row ending alike
    /// teach (or replace) the ender.
    /// Only cycles with a position teach: a receiver still searching sends a different burst.
    private mutating func learnCycleEnd() {
        guard let address = cycle.lastTimedAddress, cycle.lastCoordinate != nil else { return }
        let candidate = (address: address, isLast: !cycle.followedLastTimed)
        if let previous = previousEnderCandidate, previous.address == candidate.address {
            if learnedEnder?.address != address { laterEnders = [:] }
            learnedEnder = (address, previous.isLast && candidate.isLast)
        }
        previousEnderCandidate = candidate
    }

    /// Delivers the fixes held for want of a date: on `date` (the day before, for a time of day more
    /// than twelve hours after the dated fix's), or on the clock's day when there is none.
    private mutating func releaseUndated(date dated: (date: NMEADate, time: NMEATimeOfDay?)?,
                                         into completed: inout [Location]) {
        for (var location, time) in undated {
            if let dated {
                var day = dated.date
                if let reference = dated.time,
                   time.totalNanoseconds > reference.totalNanoseconds + 43_200 * 1_000_000_000 {
                    day = NMEADate(daysSinceEpoch: day.daysSinceEpoch - 1)
                }
                location.timestamp = day.date(at: time)
            } else {
                location.timestamp = clockTimestamp(time)
            }
            completed.append(location)
        }
        undated.removeAll()
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
        return clockTimestamp(time)
    }

    /// The UTC day that puts `time` closest to the clock's now.
    private func clockTimestamp(_ time: NMEATimeOfDay) -> Date {
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
        // Without HDOP or GST the log gives no error estimate: unknown, not a made-up radius (see the
        // type's notes), unless the configuration gives one. A non-finite figure would make the fix
        // invalid, which the missing estimate does not.
        let assumed = configuration.accuracyWithoutDOP.isFinite ? configuration.accuracyWithoutDOP : -1
        let horizontal = cycle.gst?.horizontalError
            ?? hdop.map { $0 * configuration.metresPerDOP }
            ?? assumed
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
