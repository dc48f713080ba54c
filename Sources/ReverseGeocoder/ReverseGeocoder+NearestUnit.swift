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
    @inline(never)
    func nearestUnit(_ coordinate: Coordinate, datum: Datum, context: Unmanaged<QueryContext>) throws(GeocoderError) -> NearestAnswer {
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
            let c = datum == set.datum ? coordinate : convert(coordinate, from: datum, to: set.datum, missedChina: true)
            for (l, layer) in set.layers.enumerated() {
                let closest: NearestUnit?
                if let check = layer.firstUse, check.tree == nil {
                    // Checked on first use and not yet whole: the boxes, then each polygon measured.
                    check.noteNearestSearch()
                    do {
                        let boxes = try check.checkBoxes()
                        closest = try NearestUnit.scanningBoxes(layer, envelopes: boxes, x: c.longitude, y: c.latitude, maxMetres: maxDistance,
                                                                heap: &query.nearestHeap) { (part) throws(IndexCache.CacheDamage) in
                            try check.preparePart(part)
                        }
                    } catch { return .damaged(error, dataset: d) }
                } else {
                    closest = NearestUnit.search(layer, x: c.longitude, y: c.latitude, maxMetres: maxDistance, heap: &query.nearestHeap)
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
}
