import Foundation
import LocationSources
import GeoModel

/// The regions of a ``RegionMonitor``, their states and indexes, and the per-fix state machine of
/// ``RegionHysteresis``. Pure (no queues, no I/O), so it is tested directly.
///
/// Per fix, only these regions are evaluated:
/// - circles the ``CircleGrid`` returns for the fix (their bounding box touches its cell: every circle
///   the fix is inside of, and a few more),
/// - administrative areas the ``AdministrativeIndex`` returns for the fix's placemark,
/// - regions the device is inside of or has a transition pending for (the *active* set: they may be
///   about to be left, even when the fix is far away),
/// - regions whose state is still unknown (only before the first fix, or regions added with none).
///
/// A region that is in none of these is outside and stays outside: nothing to do. So the work per fix
/// is the number of regions near the fix, not the number of regions.
struct RegionBook: Sendable {
    struct Entry: Sendable {
        var region: MonitoredRegion
        var state: RegionState = .unknown
        /// A transition waiting for its dwell time: the side it goes to and the timestamp of the first
        /// fix that pointed there.
        var pending: (target: RegionState, since: Date)?
    }

    /// Work counters: how many regions were evaluated (distance or placemark comparison).
    struct Counters: Sendable, Hashable {
        var fixes = 0
        var evaluations = 0
        var lastFixEvaluations = 0
        var maximumFixEvaluations = 0
        /// Placemarks whose names were normalized (``NormalizedPlacemarkCache/namesNormalized``).
        var placemarksNormalized = 0
    }

    private(set) var hysteresis: RegionHysteresis
    private var entries: [Int: Entry] = [:]
    private var handles: [String: Int] = [:]
    private var nextHandle = 0
    private var grid = CircleGrid()
    private var administrative = AdministrativeIndex()
    private var active = Set<Int>()
    private var undetermined = Set<Int>()
    /// The latest fix and its placemark (used to decide a new region's initial state).
    private(set) var lastFix: (location: Location, placemark: Placemark?)?
    private var tally = Counters()
    /// The normalized names of the last few placemarks: consecutive fixes mostly share one.
    private var placemarks: NormalizedPlacemarkCache

    /// `cachedPlacemarks`: how many placemarks' normalized names are kept (0: normalized on every fix,
    /// as the tests compare against).
    init(hysteresis: RegionHysteresis, cachedPlacemarks: Int = 4) {
        self.hysteresis = hysteresis
        placemarks = NormalizedPlacemarkCache(capacity: cachedPlacemarks)
    }

    var counters: Counters {
        var c = tally
        c.placemarksNormalized = placemarks.namesNormalized
        return c
    }

    var count: Int { entries.count }

    /// The regions, in the order they were added.
    var regions: [MonitoredRegion] {
        entries.sorted { $0.key < $1.key }.map(\.value.region)
    }

    func region(_ identifier: String) -> MonitoredRegion? {
        handles[identifier].flatMap { entries[$0]?.region }
    }

    func state(of identifier: String) -> RegionState? {
        handles[identifier].flatMap { entries[$0]?.state }
    }

    /// Changes the hysteresis from the next fix on. Pending transitions keep their start and are judged
    /// by the new dwell. (The index does not depend on the margin: see ``CircleGrid``.)
    mutating func setHysteresis(_ new: RegionHysteresis) {
        hysteresis = new
    }

    /// Adds `region` (replacing one with its identifier) and returns its initial-state event: from the
    /// latest fix when there is one, else `.unknown`. The region must be valid (``MonitoredRegion/problem``).
    mutating func add(_ region: MonitoredRegion) -> RegionEvent {
        remove(region.identifier)
        let handle = nextHandle
        nextHandle += 1
        handles[region.identifier] = handle
        switch region.area {
        case .circle(let c): grid.insert(handle, center: c.center, reach: c.radius)
        case .administrative(let a): administrative.insert(handle, area: a)
        }
        var entry = Entry(region: region)
        guard let lastFix else {
            entries[handle] = entry
            undetermined.insert(handle)
            return .stateDetermined(region, .unknown, at: nil)
        }
        entry.state = side(of: entry, for: lastFix.location, placemark: normalized(lastFix.placemark))
        tally.evaluations += 1
        entries[handle] = entry
        if entry.state == .inside { active.insert(handle) }
        return .stateDetermined(region, entry.state, at: lastFix.location)
    }

    /// Stops monitoring the region with `identifier` (no event); false when there is none.
    @discardableResult
    mutating func remove(_ identifier: String) -> Bool {
        guard let handle = handles.removeValue(forKey: identifier) else { return false }
        entries[handle] = nil
        grid.remove(handle)
        administrative.remove(handle)
        active.remove(handle)
        undetermined.remove(handle)
        return true
    }

    mutating func removeAll() {
        entries = [:]
        handles = [:]
        grid.removeAll()
        administrative.removeAll()
        active = []
        undetermined = []
        placemarks.removeAll()
    }

    /// One accepted fix and its placemark: the events it causes, in the order the regions were added.
    mutating func observe(_ location: Location, placemark: Placemark?) -> [RegionEvent] {
        lastFix = (location, placemark)
        let fix = normalized(placemark)
        var candidates: [Int] = []
        grid.candidates(near: location.coordinate, into: &candidates)
        administrative.candidates(for: fix, into: &candidates)
        candidates.append(contentsOf: active)
        candidates.append(contentsOf: undetermined)
        let toEvaluate = Set(candidates).sorted()
        undetermined = []

        var events: [RegionEvent] = []
        for handle in toEvaluate {
            guard var entry = entries[handle] else { continue }
            let signal = side(of: entry, for: location, placemark: fix)
            if let event = step(&entry, signal: signal, at: location) { events.append(event) }
            entries[handle] = entry
            if entry.state == .inside || entry.pending != nil {
                active.insert(handle)
            } else {
                active.remove(handle)
            }
        }
        tally.fixes += 1
        tally.evaluations += toEvaluate.count
        tally.lastFixEvaluations = toEvaluate.count
        tally.maximumFixEvaluations = max(tally.maximumFixEvaluations, toEvaluate.count)
        return events
    }

    /// The fix's placemark as the rules compare it, from the cache; its names normalized only when some
    /// area is recognised by name.
    private mutating func normalized(_ placemark: Placemark?) -> NormalizedPlacemark? {
        guard let placemark else { return nil }
        return placemarks.normalized(placemark, names: administrative.nameAreas > 0)
    }

    /// Which side of the region the fix points to, given the side the device is on now (the margin
    /// keeps an inside device inside up to radius + margin).
    private func side(of entry: Entry, for location: Location, placemark: NormalizedPlacemark?) -> RegionState {
        switch entry.region.area {
        case .circle(let c):
            let d = c.distance(to: location.coordinate)
            if entry.state == .inside { return d > c.radius + hysteresis.margin ? .outside : .inside }
            return d <= c.radius ? .inside : .outside
        case .administrative(let a):
            return a.contains(normalized: placemark) ? .inside : .outside
        }
    }

    /// Advances one region's state machine by a fix pointing to `signal`.
    private func step(_ entry: inout Entry, signal: RegionState, at location: Location) -> RegionEvent? {
        if entry.state == .unknown {
            entry.state = signal
            entry.pending = nil
            return .stateDetermined(entry.region, signal, at: location)
        }
        if signal == entry.state {
            entry.pending = nil
            return nil
        }
        if entry.pending?.target != signal || location.timestamp < entry.pending!.since {
            entry.pending = (signal, location.timestamp)
        }
        guard location.timestamp.timeIntervalSince(entry.pending!.since) >= hysteresis.minimumDwell else { return nil }
        entry.state = signal
        entry.pending = nil
        if signal == .inside {
            return entry.region.notifyOnEntry ? .entered(entry.region, at: location) : nil
        }
        return entry.region.notifyOnExit ? .exited(entry.region, at: location) : nil
    }
}
