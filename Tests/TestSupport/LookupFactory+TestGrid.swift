import GeocodeCLI

extension LookupFactory {
    /// The deterministic test double (see ``GridTestLookup``); needs no data directory.
    public static let testGrid = LookupFactory(needsData: false) { _, _, _ in GridTestLookup() }
}
