/// The coast fallback: a point in no unit of any dataset gets the nearest unit within
/// ``ReverseGeocoder/Options/maxDistance``.
///
/// Which unit: every layer of every dataset is searched for its nearest unit within reach, each in the
/// dataset's own datum (the query point converted as the inside path converts it once China's data has
/// missed it, see `convert`). The nearest of all (`d*`, the nearest coast) decides how far the answer may
/// be; the answer is the first dataset by priority, finest layer first, whose nearest unit is within
/// ``coastSlack(_:)`` of `d*`. So a detailed dataset (China's districts) answers near its own coast even
/// when a coarser dataset's line is a few hundred metres nearer, and a province layer whose nearest unit
/// lies across a strait (an island with no province polygon) does not outvote the island's country.
/// The answer's levels that were `inside` become ``Placemark/Provenance/nearestUnit(metres:)`` with the
/// answering unit's distance (its coarser levels contain it, so they are at most that far).
extension ReverseGeocoder.Options {
    /// The default of ``maxDistance``, in metres (see the README, "Coasts", for the measurement).
    public static let defaultMaxDistance: Double = 10_000
}

extension ReverseGeocoder {
    /// The option, checked: a negative or NaN distance is an error, +infinity means "any distance".
    static func checked(maxDistance: Double) throws(GeocoderError) -> Double {
        guard maxDistance >= 0 else {
            throw .invalidOption(name: "maxDistance", reason: "must be 0 (off) or a positive number of metres, not \(maxDistance)")
        }
        return maxDistance
    }

    /// How much farther than the nearest coast `d*` a finer layer's or earlier dataset's unit may be and
    /// still answer: 500 m or a quarter of `d*`, whichever is more. Datasets and layers are generalized
    /// separately, so their coasts differ by up to a few hundred metres.
    static func coastSlack(_ nearest: Double) -> Double { max(500, nearest / 4) }

    /// What the coast fallback found.
    enum NearestAnswer {
        /// No unit within `maxDistance`.
        case none
        case found(Placemark)
        /// A dataset checked on first use is damaged where the search would read (its index in `loaded`).
        case damaged(IndexCache.CacheDamage, dataset: Int)
    }

    /// The nearest unit's placemark within `maxDistance`, if one is that near. Out of line and off the
    /// inside path: reached only when no unit contains the point. A dataset checked on first use
    /// (``Options/verifyOnFirstUse``) has each layer's polygon boxes checked before the search scans them
    /// (``NearestUnit/scanningBoxes``: no R-tree is built for one search),
    /// each polygon it measures checked before its rings are read, and the answer's placemark before it
    /// is read; from a layer's second search on, the rest is checked whole in the background, after which
    /// the layer's edge chunks serve it as in a checked load.
    ///
    /// `country` set: the border refinement's search instead (``Options/refinesBordersByTimeZone``): only
    /// the datasets with a ``DatasetManifest/borderAccuracy``, each within that distance, and only units
    /// whose country is `country`; the same choice among what they find.
    @inline(never)
    func nearestUnit(_ coordinate: Coordinate, datum: Datum, context: Unmanaged<QueryContext>,
                     country: String? = nil) throws(GeocoderError) -> NearestAnswer {
        struct Found {
            var layer: LayerIndex
            var hit: NearestUnit
            var dataset: Int
            var layerInDataset: Int
        }
        var found: [Found] = []
        var nearest = Double.infinity
        let query = context.takeUnretainedValue()
        for (d, set) in loaded.enumerated() where set.manifest.role == .admin {
            let reach: Double
            if country == nil {
                reach = maxDistance
            } else {
                guard let accuracy = set.manifest.borderAccuracy, accuracy > 0 else { continue }
                reach = accuracy
            }
            let c = datum == set.datum ? coordinate : convert(coordinate, from: datum, to: set.datum, missedChina: true)
            for (l, layer) in set.layers.enumerated() {
                let closest: NearestUnit?
                if let country {
                    do {
                        closest = try nearestUnit(of: country, in: layer, x: c.longitude, y: c.latitude,
                                                  maxMetres: reach, heap: &query.nearestHeap)
                    } catch { return .damaged(error, dataset: d) }
                } else if let check = layer.firstUse, check.tree == nil {
                    // Checked on first use and not yet whole: the boxes, then each polygon measured.
                    check.noteNearestSearch()
                    do {
                        let boxes = try check.checkBoxes()
                        closest = try NearestUnit.scanningBoxes(layer, envelopes: boxes, x: c.longitude, y: c.latitude, maxMetres: reach,
                                                                heap: &query.nearestHeap) { (part) throws(IndexCache.CacheDamage) in
                            try check.preparePart(part)
                        }
                    } catch { return .damaged(error, dataset: d) }
                } else {
                    closest = NearestUnit.search(layer, x: c.longitude, y: c.latitude, maxMetres: reach, heap: &query.nearestHeap)
                }
                guard let hit = closest else { continue }
                found.append(Found(layer: layer, hit: hit, dataset: d, layerInDataset: l))
                nearest = min(nearest, hit.metres)
            }
        }
        // `found` is in dataset priority order, finest layer first.
        guard let answer = found.first(where: { $0.hit.metres <= nearest + Self.coastSlack(nearest) }) else { return .none }
        if let check = loaded[answer.dataset].firstUse,
           let damage = check.preparePlacemark(layer: answer.layerInDataset, unit: answer.hit.unit) {
            return .damaged(damage, dataset: answer.dataset)
        }
        // The thread's copy of the unit's placemark, as the inside path answers it (the same fields).
        var placemark = hotLayerOf[ObjectIdentifier(answer.layer)]
            .map { ownPlacemark(layer: $0, unit: answer.hit.unit, context: context) } ?? presented(answer.layer, unit: answer.hit.unit)
        for level in AdminLevel.allCases where placemark.provenance(at: level) == .inside {
            placemark[level].provenance = .nearestUnit(metres: answer.hit.metres)
        }
        // A locality built from places: its distance is to the place, as inside (ReverseGeocoder.answer).
        if let places = answer.layer.hotPlaces {
            let wgs = datum == .wgs84 ? coordinate : Datum.convert(coordinate, from: datum, to: .wgs84)
            placemark.setNearestPlaceDistance(places._withUnsafeGuaranteedRef { $0.metres(from: wgs, to: answer.hit.unit) })
        }
        return .found(placemark)
    }

    /// The layer's nearest unit of `country` within `maxMetres` (the border refinement's search): over the
    /// polygons' R-tree, or for a layer checked on first use and not yet whole over its checked boxes, each
    /// polygon and its unit's placemark checked before they are read.
    private func nearestUnit(of country: String, in layer: LayerIndex, x: Double, y: Double,
                             maxMetres: Double, heap: inout MinHeap) throws(IndexCache.CacheDamage) -> NearestUnit? {
        let l = hotLayerOf[ObjectIdentifier(layer)]
        func accept(_ unit: Int) -> Bool { countryCode(of: layer, hotLayer: l, unit: unit) == country }
        guard let check = layer.firstUse else {
            return NearestUnit.wholePolygons(layer, tree: layer.tree, x: x, y: y, maxMetres: maxMetres, heap: &heap,
                                             prepare: { _ in }, accept: accept)
        }
        // Checked on first use: `accept` reads the unit's placemark, which is decoded only once checked,
        // even after the polygons have been checked whole.
        guard let tree = check.tree else {
            let boxes = try check.checkBoxes()
            return try NearestUnit.scanningBoxes(layer, envelopes: boxes, x: x, y: y, maxMetres: maxMetres, heap: &heap,
                                                 prepare: { (part) throws(IndexCache.CacheDamage) in
                try check.preparePart(part)
                try check.preparePlacemark(Int(layer.partUnit[part]))
            }, accept: accept)
        }
        return try NearestUnit.wholePolygons(layer, tree: tree, x: x, y: y, maxMetres: maxMetres, heap: &heap,
                                             prepare: { (part) throws(IndexCache.CacheDamage) in
            try check.preparePlacemark(Int(layer.partUnit[part]))
        }, accept: accept)
    }

    /// A unit's country code as its answers give it (the worldview's), without localizing its names.
    func countryCode(of layer: LayerIndex, hotLayer l: Int?, unit: Int) -> String? {
        let p = layer.placemark(unit)
        return l.flatMap { presentedCountryCode(layer: $0, of: p) } ?? p.isoCountryCode
    }
}
