import Foundation

extension ReverseGeocoder: AdministrativeUnitCatalog {
    /// Every unit of every admin dataset's layers, finest layer first, each as answers show it
    /// (``presented(_:unit:)``: the worldview's country code, the preferred languages). A unit repeated
    /// in a coarser layer (a province in the district layer's placemarks and in the province layer) is
    /// listed once per layer: a caller indexing codes and names does not mind.
    ///
    /// A layer mapped from the index cache and checked on first use (``Options/verifyOnFirstUse``) has
    /// each placemark checked here as a query would; damage found is thrown as
    /// ``GeocoderError/corrupt(file:record:reason:)`` naming the cache file (a query would rebuild the
    /// dataset; a listing at setup says so instead).
    public func administrativeUnits() throws(GeocoderError) -> [Placemark] {
        if let replacement { return try replacement.administrativeUnits() }
        var units: [Placemark] = []
        for set in loaded where set.manifest.role == .admin {
            for layer in set.layers {
                units.reserveCapacity(units.count + layer.unitCount)
                for unit in 0..<layer.unitCount {
                    if let firstUse = layer.firstUse {
                        do throws(LayerFirstUse.Damage) {
                            try firstUse.preparePlacemark(unit)
                        } catch {
                            throw .corrupt(file: set.firstUse?.file ?? set.manifest.name, record: nil,
                                           reason: "index cache damaged: \(error.reason)")
                        }
                    }
                    units.append(presented(layer, unit: unit))
                }
            }
        }
        return units
    }
}
