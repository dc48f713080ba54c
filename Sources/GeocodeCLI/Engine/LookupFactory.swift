import Foundation
import ReverseGeocoder

/// Opens the lookup a command uses, given the data directory the user chose (or the default one).
///
/// THE integration point with the engine. The executable passes ``LookupFactory/engine``; tests and the
/// hidden `GEOCODE_TEST_LOOKUP=grid` switch use ``GridTestLookup`` instead. When the `ReverseGeocoder`
/// class lands, wiring it is:
///
/// ```swift
/// extension ReverseGeocoder: PlacemarkLookup {}     // its placemark(for:datum:) already matches
///
/// public static let engine = LookupFactory { directory in try ReverseGeocoder(directory: directory) }
/// ```
///
/// and deleting ``EngineNotAvailable``.
public struct LookupFactory: Sendable {
    /// Opens the data in `directory`. Errors are shown to the user as "cannot load data from DIR: …".
    public let open: @Sendable (_ directory: URL) throws -> any PlacemarkLookup
    /// Whether this factory needs a data directory at all (the test grid does not).
    public let needsData: Bool

    public init(needsData: Bool = true, open: @escaping @Sendable (_ directory: URL) throws -> any PlacemarkLookup) {
        self.open = open
        self.needsData = needsData
    }

    /// The real engine. Until `ReverseGeocoder` is merged this throws ``EngineNotAvailable``.
    public static let engine = LookupFactory { _ in throw EngineNotAvailable() }

    /// The deterministic test double (see ``GridTestLookup``); needs no data directory.
    public static let testGrid = LookupFactory(needsData: false) { _ in GridTestLookup() }
}

/// Thrown by ``LookupFactory/engine`` while the engine class is not merged yet.
public struct EngineNotAvailable: Error, CustomStringConvertible {
    public var description: String { "the reverse-geocoding engine is not built into this version of geocode yet" }
}
