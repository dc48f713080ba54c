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
                    try prepare(set, layer, unit)
                    units.append(presented(layer, unit: unit))
                }
            }
        }
        return units
    }

    /// The placemarks of ``administrativeUnits()`` with a level `wanted` accepts, in the same order.
    /// The units are read as stored, and `wanted` is asked once per distinct unit (level, code, name and
    /// number of names: a country recurs in each of its 30,000 localities' placemarks, with 150 names;
    /// a layer's own units once per record);
    /// only the placemarks it selects are made as answers show them. Listing every placemark for
    /// `geocode track --region` and normalizing every name of every unit cost half a second of CPU at
    /// start, for a file naming a few units.
    public func administrativeUnits(where wanted: (AdminLevel, Placemark.Unit) -> Bool) throws(GeocoderError) -> [Placemark] {
        if let replacement { return try replacement.administrativeUnits(where: wanted) }
        /// A unit as stored, to ask `wanted` about each once.
        struct UnitKey: Hashable {
            var level: AdminLevel
            var code: String?
            var name: String?
            var nameCount: Int
        }
        var verdicts: [UnitKey: Bool] = [:]
        // Per level, the unit of the previous placemark: neighbouring records mostly share their coarser
        // units, and comparing with it spares hashing their strings.
        var previous = [(key: UnitKey, verdict: Bool)?](repeating: nil, count: AdminLevel.allCases.count)
        var units: [Placemark] = []
        for set in loaded where set.manifest.role == .admin {
            for layer in set.layers {
                let hot = hotLayerOf[ObjectIdentifier(layer)]
                for unit in 0..<layer.unitCount {
                    try prepare(set, layer, unit)
                    let stored = layer.placemark(unit)
                    var selected = false
                    for level in AdminLevel.allCases {
                        var u = stored[level]
                        guard u.code != nil || u.name != nil else { continue }
                        // The country's code as answers show it: 台湾省's placemarks answer TW, not CN.
                        if level == .country, let hot, let iso = presentedCountryCode(layer: hot, of: stored) { u.code = iso }
                        let verdict: Bool
                        if level == layer.level {
                            // The layer's own unit: one per record, nothing to share.
                            verdict = wanted(level, u)
                        } else {
                            let key = UnitKey(level: level, code: u.code, name: u.name, nameCount: u.names.count)
                            if let last = previous[level.rank], last.key == key {
                                verdict = last.verdict
                            } else if let known = verdicts[key] {
                                verdict = known
                            } else {
                                verdict = wanted(level, u)
                                verdicts[key] = verdict
                            }
                            previous[level.rank] = (key, verdict)
                        }
                        if verdict { selected = true }
                    }
                    if selected { units.append(presented(layer, unit: unit)) }
                }
            }
        }
        return units
    }

    /// A first-use layer's placemark checked before it is read, as a query would check it.
    private func prepare(_ set: LoadedDataset, _ layer: LayerIndex, _ unit: Int) throws(GeocoderError) {
        guard let firstUse = layer.firstUse else { return }
        do throws(LayerFirstUse.Damage) {
            try firstUse.preparePlacemark(unit)
        } catch {
            throw .corrupt(file: set.firstUse?.file ?? set.manifest.name, record: nil,
                           reason: "index cache damaged: \(error.reason)")
        }
    }
}
