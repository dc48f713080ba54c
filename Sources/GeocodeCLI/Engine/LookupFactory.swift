import Foundation
import ReverseGeocoder

/// Opens the lookup a command uses, given the data directory the user chose (or the default one).
///
/// The one integration point with the engine. The executable passes ``LookupFactory/engine``; tests and
/// the hidden `GEOCODE_TEST_LOOKUP=grid` switch use ``GridTestLookup`` instead.
public struct LookupFactory: Sendable {
    /// Opens the data in `directory`. Errors are shown to the user as "cannot load data from DIR: …".
    /// `manyQueries` says whether the command will ask many points (batch, track): then the engine builds
    /// its cell quadtree, which costs load time and pays back per point; one point skips it.
    public let open: @Sendable (_ directory: URL, _ manyQueries: Bool) throws -> any PlacemarkLookup
    /// Whether this factory needs a data directory at all (the test grid does not).
    public let needsData: Bool

    public init(needsData: Bool = true, open: @escaping @Sendable (_ directory: URL, _ manyQueries: Bool) throws -> any PlacemarkLookup) {
        self.open = open
        self.needsData = needsData
    }

    /// The real engine on the data directory.
    /// `GEOCODE_CELL_SIZE` (degrees; 0 turns the quadtree off) overrides the cell size for batch and track.
    public static let engine = LookupFactory { directory, manyQueries in
        var options = ReverseGeocoder.Options(cellSize: nil)
        if manyQueries {
            options = ReverseGeocoder.Options()
            if let text = ProcessInfo.processInfo.environment["GEOCODE_CELL_SIZE"], let size = Double(text), size >= 0 {
                options.cellSize = size > 0 ? size : nil
            }
        }
        return try ReverseGeocoder(directory: directory, options: options)
    }

    /// The deterministic test double (see ``GridTestLookup``); needs no data directory.
    public static let testGrid = LookupFactory(needsData: false) { _, _ in GridTestLookup() }
}

/// The engine answers exactly what the CLI asks: a coordinate in a datum.
extension ReverseGeocoder: PlacemarkLookup {}
