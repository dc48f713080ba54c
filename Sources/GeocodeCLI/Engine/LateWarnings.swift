import GeoModel
import Synchronization

/// Says on stderr, once each, the warnings a lookup adds after its load: the engine prints what its load
/// found (``LookupFactory/engine``), but a query that finds an index cache damaged
/// (``ReverseGeocoder/Options/verifyOnFirstUse``) rebuilds the dataset and answers from the rebuilt one,
/// and without this nobody would hear that a file on the disk went bad.
final class LateWarnings: Sendable {
    private let lookup: any GeocodeLookup
    private let stderr: Console
    /// How many of the lookup's warnings are said (those of the load, by the factory).
    private let said: Mutex<Int>

    init(_ lookup: any GeocodeLookup, stderr: Console) {
        self.lookup = lookup
        self.stderr = stderr
        said = Mutex(lookup.warnings.count)
    }

    /// Says the warnings added since the last call.
    func sayNew() {
        let all = lookup.warnings
        let new = said.withLock { (count: inout Int) -> ArraySlice<String> in
            defer { count = max(count, all.count) }
            return all.dropFirst(count)
        }
        for warning in new { stderr.write("geocode: warning: \(warning)\n") }
    }
}

/// A lookup that says its late warnings as they come (``LateWarnings``): what `track` hands the location
/// manager, so a damaged cache found hours into a run is said then, not when the run ends. After each
/// query it reads the engine's warnings (a short array, only ever appended to) and compares the count:
/// nothing next to a fix's own cost in the location manager.
struct WarningLookup: PlacemarkProvider {
    let base: any GeocodeLookup
    let late: LateWarnings

    func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        defer { late.sayNew() }
        return try base.placemark(for: coordinate, datum: datum)
    }

    func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws(GeocoderError) -> Placemark? {
        defer { late.sayNew() }
        return try base.placemark(for: coordinate, previous: previous)
    }
}
