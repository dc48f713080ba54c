import GeoModel

/// A fix's placemark as the region rules compare it: the country code upper-cased and, per level, every
/// name of the unit (the one shown and those in other languages, up to 150 for a country) through
/// ``AdministrativeArea/normalized(_:)``.
///
/// Normalizing the names was most of a fix's cost in `geocode track --region` (about 0.2 ms a fix), and
/// consecutive fixes mostly share one placemark: ``NormalizedPlacemarkCache`` keeps this per placemark.
/// It holds the placemark, so the storage its identity names stays alive (and unchanged: a placemark
/// is copied on write while another value shares its storage) as long as this value is kept.
struct NormalizedPlacemark {
    /// The placemark itself: its codes are read from it as they are, and it keeps its storage's
    /// identity from being reused by another placemark while this value is cached.
    let placemark: Placemark
    /// ``Placemark/isoCountryCode``, upper-cased.
    let country: String?
    /// Per level (by ``AdminLevel/rank``), the normalized names; `nil` when they were not asked for
    /// (no area is recognised by name): see ``AdministrativeArea/contains(normalized:)``.
    private(set) var names: ContiguousArray<Set<String>>?

    init(_ placemark: Placemark, names withNames: Bool) {
        self.placemark = placemark
        country = placemark.isoCountryCode?.uppercased()
        if withNames { normalizeNames() }
    }

    /// Normalizes the names of every level, if not done yet.
    mutating func normalizeNames() {
        guard names == nil else { return }
        var all = ContiguousArray<Set<String>>()
        all.reserveCapacity(AdminLevel.allCases.count)
        for level in AdminLevel.allCases {
            let unit = placemark[level]
            var set = Set<String>(minimumCapacity: unit.names.count + 1)
            if let shown = unit.name { set.insert(AdministrativeArea.normalized(shown)) }
            for name in unit.names.values { set.insert(AdministrativeArea.normalized(name)) }
            all.append(set)
        }
        names = all
    }

    /// `placemark` with `other`'s normalized form: only for a placemark with the same names and codes
    /// (``hasSameNamesAndCodes(as:)``).
    init(_ placemark: Placemark, sharing other: NormalizedPlacemark) {
        self.placemark = placemark
        country = other.country
        names = other.names
    }

    /// The normalized names at `level` (every language's); `nil` when they were not normalized.
    func names(at level: AdminLevel) -> Set<String>? {
        names?[level.rank]
    }

    /// Whether `other` has this placemark's names (shown and in other languages) and codes at every level,
    /// and so this normalized form: compared exactly, codes and shown names first (cheap, and where two
    /// units differ), the other-language names last.
    func hasSameNamesAndCodes(as other: Placemark) -> Bool {
        for level in AdminLevel.allCases {
            guard placemark.code(at: level) == other.code(at: level), placemark.name(at: level) == other.name(at: level)
            else { return false }
        }
        return AdminLevel.allCases.allSatisfy { placemark[$0].names == other[$0].names }
    }
}
