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
        return try selecting { (_, layer) throws(GeocoderError) in Array(0..<layer.unitCount) }
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
        var verdicts = StoredUnitVerdicts()
        return try selecting { (set, layer) throws(GeocoderError) in try selected(of: layer, in: set, verdicts: &verdicts, wanted) }
    }

    /// The placemarks of ``administrativeUnits()`` with a unit whose code is one of `codes` or one of
    /// whose names `names` has (``Placemark/Unit/has(codeIn:orName:)``), in the same order, as
    /// ``administrativeUnits(where:)`` selects them. A layer mapped from the index cache and checked on
    /// first use is read from its placemark slots (``PlacemarkSlots/UnitTexts``): only the placemarks
    /// selected are decoded, and its codes and names are compared as the UTF-8 bytes stored
    /// (``TextSet``, ``UnitNameTest/hasName(utf8:)``). Decoding all of them (42,000 for the bundled data,
    /// kept for the run) was nearly all of `geocode track --region`'s start: 0.6 s of CPU and 60 MB; then
    /// making a String of every code and name read was most of what was left.
    public func administrativeUnits<Names: UnitNameTest>(withCode codes: Set<String>, orName names: inout Names) throws(GeocoderError) -> [Placemark] {
        if let replacement { return try replacement.administrativeUnits(withCode: codes, orName: &names) }
        var verdicts = StoredUnitVerdicts()
        let storedCodes = TextSet(codes)
        return try selecting { (set, layer) throws(GeocoderError) in
            if let firstUse = layer.firstUse {
                return try selectedByText(of: layer, in: set, firstUse, codes: storedCodes, names: &names)
            }
            return try selected(of: layer, in: set, verdicts: &verdicts) { _, unit in unit.has(codeIn: codes, orName: &names) }
        }
    }

    /// The placemarks, as answers show them, of the units `select` picks (by index, ascending) in each
    /// admin layer.
    private func selecting(_ select: (LoadedDataset, LayerIndex) throws(GeocoderError) -> [Int]) throws(GeocoderError) -> [Placemark] {
        var units: [Placemark] = []
        for set in loaded where set.manifest.role == .admin {
            for layer in set.layers {
                for unit in try select(set, layer) {
                    try prepare(set, layer, unit)
                    units.append(presented(layer, unit: unit))
                }
            }
        }
        return units
    }

    /// What ``administrativeUnits(where:)`` has asked about units as stored, kept across layers.
    private struct StoredUnitVerdicts {
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
    }

    /// The units of `layer` with a level `wanted` accepts, each placemark decoded (and checked) to ask.
    private func selected(of layer: LayerIndex, in set: LoadedDataset, verdicts asked: inout StoredUnitVerdicts,
                          _ wanted: (AdminLevel, Placemark.Unit) -> Bool) throws(GeocoderError) -> [Int] {
        let hot = hotLayerOf[ObjectIdentifier(layer)]
        var units: [Int] = []
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
                    let key = StoredUnitVerdicts.UnitKey(level: level, code: u.code, name: u.name, nameCount: u.names.count)
                    if let last = asked.previous[level.rank], last.key == key {
                        verdict = last.verdict
                    } else if let known = asked.verdicts[key] {
                        verdict = known
                    } else {
                        verdict = wanted(level, u)
                        asked.verdicts[key] = verdict
                    }
                    asked.previous[level.rank] = (key, verdict)
                }
                if verdict { selected = true }
            }
            if selected { units.append(unit) }
        }
        return units
    }

    /// The units of a first-use layer with a level that ``Placemark/Unit/selects(code:name:wantedCode:wantedName:wantedOtherName:)``
    /// (the rule ``Placemark/Unit/has(codeIn:orName:)`` asks of a decoded unit): a code, as answers show
    /// it, in `codes`, or a name `names` has; read from the placemark slots, so that no placemark is
    /// decoded to ask, and compared as the bytes stored, so that no String is made for most codes and
    /// names. Names in other languages are asked about once per distinct names text of a coarser level (a
    /// country's 150, under each of its localities), once per record for the layer's own units. Damage in
    /// the slots is thrown as a query's would be, naming the cache file.
    private func selectedByText<Names: UnitNameTest>(of layer: LayerIndex, in set: LoadedDataset, _ firstUse: LayerFirstUse,
                                                     codes: TextSet, names: inout Names) throws(GeocoderError) -> [Int] {
        let hot = hotLayerOf[ObjectIdentifier(layer)]
        func scan(_ texts: PlacemarkSlots.UnitTexts) throws(PlacemarkSlots.Damage) -> [Int] {
            var units: [Int] = []
            var namesVerdicts: [UInt64: Bool] = [:]
            // Per level, the previous unit's names key and verdict: neighbouring records mostly share their
            // coarser units, and comparing with it spares hashing the key.
            var previous = [(key: UInt64, verdict: Bool)?](repeating: nil, count: AdminLevel.allCases.count)
            func has(_ unit: Int, _ level: AdminLevel) throws(PlacemarkSlots.Damage) -> Bool {
                let name = try texts.name(unit, level)
                var code = try texts.code(unit, level).map(ShownCode.stored)
                // The country's code as answers show it (台湾省's placemarks answer TW), of a level that is a
                // unit, as ``selected(of:in:verdicts:_:)`` gives it.
                if level == .country, code != nil || name != nil, let hot,
                   let iso = try presentedCountryCode(layer: hot, code: { (l) throws(PlacemarkSlots.Damage) in
                       try texts.code(unit, l).map { String(decoding: $0, as: UTF8.self) }
                   }) {
                    code = .presented(iso)
                }
                return try Placemark.Unit.selects(code: code, name: name, wantedCode: { $0.isIn(codes) },
                                                  wantedName: { names.hasName(utf8: $0) }) { () throws(PlacemarkSlots.Damage) in
                    guard let key = texts.namesKey(unit, level) else { return false }
                    if level == layer.level { return try texts.hasName(unit, level) { names.hasName(utf8: $0) } }  // one per record
                    if let last = previous[level.rank], last.key == key { return last.verdict }
                    let verdict: Bool
                    if let known = namesVerdicts[key] {
                        verdict = known
                    } else {
                        verdict = try texts.hasName(unit, level) { names.hasName(utf8: $0) }
                        namesVerdicts[key] = verdict
                    }
                    previous[level.rank] = (key, verdict)
                    return verdict
                }
            }
            let levels = AdminLevel.allCases
            for unit in 0..<layer.unitCount {
                for level in levels where try has(unit, level) {
                    units.append(unit)
                    break
                }
            }
            return units
        }
        do throws(LayerFirstUse.Damage) {
            let texts = try firstUse.unitTexts()
            do throws(PlacemarkSlots.Damage) { return try scan(texts) } catch { throw LayerFirstUse.Damage(reason: "\(firstUse.name): \(error.reason)") }
        } catch {
            throw Self.damaged(set, error)
        }
    }

    /// A unit's code as answers show it: as stored (UTF-8 in the placemark slots), or the worldview's
    /// country code (``presentedCountryCode(layer:code:)``).
    private enum ShownCode {
        case stored(UnsafeRawBufferPointer)
        case presented(String)

        func isIn(_ codes: TextSet) -> Bool {
            switch self {
            case .stored(let bytes): codes.contains(utf8: bytes)
            case .presented(let code): codes.contains(code)
            }
        }
    }

    /// A first-use layer's placemark checked before it is read, as a query would check it.
    private func prepare(_ set: LoadedDataset, _ layer: LayerIndex, _ unit: Int) throws(GeocoderError) {
        guard let firstUse = layer.firstUse else { return }
        do throws(LayerFirstUse.Damage) {
            try firstUse.preparePlacemark(unit)
        } catch {
            throw Self.damaged(set, error)
        }
    }

    /// Damage a listing found in a first-use dataset's cache, as the error that names the file.
    private static func damaged(_ set: LoadedDataset, _ damage: LayerFirstUse.Damage) -> GeocoderError {
        .corrupt(file: set.firstUse?.file ?? set.manifest.name, record: nil, reason: "index cache damaged: \(damage.reason)")
    }
}
