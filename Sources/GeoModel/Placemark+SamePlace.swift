extension Placemark {
    /// Whether `other` names the same place as this placemark: every level's unit (name, code, language
    /// of the name, kind of provenance), the time zone, the water and the dataset are equal. The
    /// distances of ``Provenance/nearestPlace(metres:)`` and ``Provenance/nearestUnit(metres:)`` may
    /// differ, and so may the units' other-language names (``Unit/names``), which the `Codable` form
    /// does not keep: a placemark read back from a file is the same place as the one saved.
    ///
    /// `==` compares those distances too, so two fixes inside one locality cell (built from populated
    /// places) give unequal placemarks: the distance to the place changes on every fix. Whoever asks
    /// "did the place change?" (a city-changed event, a persisted current placemark) asks this instead.
    public func isSamePlace(as other: Placemark) -> Bool {
        // One storage: the same unit's placemark, at most with another per-query distance.
        if storageIdentity == other.storageIdentity { return true }
        guard timeZone == other.timeZone, ocean == other.ocean, inlandWater == other.inlandWater,
              dataset == other.dataset else { return false }
        for level in AdminLevel.allCases {
            let a = self[level], b = other[level]
            guard a.name == b.name, a.code == b.code, a.language == b.language,
                  a.provenance.kind == b.provenance.kind else { return false }
        }
        return true
    }
}
