/// A provider that can list the administrative units of its data, so a code or a name can be checked
/// against the data before anything relies on it: a monitored region naming a unit the data does not
/// have would otherwise never fire, and nothing would say why. The engine (`ReverseGeocoder`) conforms;
/// LocationKit's `KnownAdministrativeUnits` indexes what it lists.
public protocol AdministrativeUnitCatalog: Sendable {
    /// One placemark per administrative unit of the data, as the provider answers a point in that unit:
    /// the same codes, names (in the preferred languages, with the names in every other language) and
    /// country code (after the worldview). Overlay data (time zones) has no administrative units. The
    /// list may be long (tens of thousands for the bundled data): call it once, at setup.
    func administrativeUnits() throws(GeocoderError) -> [Placemark]

    /// The placemarks of ``administrativeUnits()`` that have a level `wanted` accepts, in the same
    /// order: for a caller that looks for a few codes or names, without every unit's placemark made and
    /// every name of every unit handled.
    ///
    /// `wanted` is asked about a level's unit with its code (a country's code as answers show it, after
    /// the worldview), the name the dataset gives it and its names in other languages; a unit that
    /// recurs under many placemarks (a country under each of its localities) may be asked about once for
    /// all of them. The name an answer shows is one of those names (``Placemark/localized(to:)`` picks
    /// one), so a `wanted` that accepts a unit by any of its names gets at least every placemark that
    /// shows such a name, and possibly a few more: check those as answers show them.
    ///
    /// The default asks `wanted` about every level of every placemark of ``administrativeUnits()``.
    func administrativeUnits(where wanted: (AdminLevel, Placemark.Unit) -> Bool) throws(GeocoderError) -> [Placemark]

    /// ``administrativeUnits(where:)`` with the question a regions file asks
    /// (``Placemark/Unit/has(codeIn:orName:)``): a unit with one of `codes`, or a name `names` has.
    /// Asked so, a catalog can answer from its stored codes and names without making a unit of every
    /// placemark (the engine reads them from its index cache as bytes, asks ``UnitNameTest/hasName(utf8:)``,
    /// and makes only the placemarks it selects: `geocode track --region` decoded all 42,000 of the
    /// bundled data's at start). `names` is asked about names in no particular order, not necessarily
    /// about all of a unit's (its first accepted name selects it; a names text already asked about is not
    /// asked again), and may be asked about one string more than once (the name a unit shows is also
    /// among its names).
    ///
    /// The default asks ``administrativeUnits(where:)``.
    func administrativeUnits<Names: UnitNameTest>(withCode codes: Set<String>, orName names: inout Names) throws(GeocoderError) -> [Placemark]
}

extension AdministrativeUnitCatalog {
    public func administrativeUnits(where wanted: (AdminLevel, Placemark.Unit) -> Bool) throws(GeocoderError) -> [Placemark] {
        try administrativeUnits().filter { p in AdminLevel.allCases.contains { wanted($0, p[$0]) } }
    }

    public func administrativeUnits<Names: UnitNameTest>(withCode codes: Set<String>, orName names: inout Names) throws(GeocoderError) -> [Placemark] {
        try administrativeUnits(where: { _, unit in unit.has(codeIn: codes, orName: &names) })
    }

    /// ``administrativeUnits(withCode:orName:)`` with the names asked as Strings, by a closure: the
    /// simple form, for a caller with no byte-level test of its own.
    public func administrativeUnits(withCode codes: Set<String>, orName hasName: (String) -> Bool) throws(GeocoderError) -> [Placemark] {
        try withoutActuallyEscaping(hasName) { hasName throws(GeocoderError) -> [Placemark] in
            var test = ClosureNameTest(hasName: hasName)
            return try administrativeUnits(withCode: codes, orName: &test)
        }
    }
}

/// A ``UnitNameTest`` that asks a closure about each name, as a String.
struct ClosureNameTest: UnitNameTest {
    let hasName: (String) -> Bool
    mutating func hasName(_ name: String) -> Bool { hasName(name) }
}

extension Placemark.Unit {
    /// Whether the unit's code is one of `codes`, or `names` has the name it shows or one of its names
    /// in other languages: what a monitored area given by code or name selects the units of a catalog
    /// by (``AdministrativeUnitCatalog/administrativeUnits(withCode:orName:)``), as ``selects(code:name:wantedCode:wantedName:wantedOtherName:)``
    /// says it. A level with neither a code nor a name is no unit.
    public func has<Names: UnitNameTest>(codeIn codes: Set<String>, orName wanted: inout Names) -> Bool {
        Self.selects(code: code, name: name, wantedCode: { codes.contains($0) }, wantedName: { wanted.hasName($0) },
                     wantedOtherName: { names.values.contains { wanted.hasName($0) } })
    }

    /// ``has(codeIn:orName:)`` with the names asked as Strings, by a closure.
    public func has(codeIn codes: Set<String>, orName hasName: (String) -> Bool) -> Bool {
        withoutActuallyEscaping(hasName) { hasName in
            var test = ClosureNameTest(hasName: hasName)
            return has(codeIn: codes, orName: &test)
        }
    }

    /// Whether a level's unit is selected by a code or a name: the one rule, for every form a unit's
    /// texts take (a decoded unit's Strings in ``has(codeIn:orName:)``, the bytes the engine reads from
    /// its index cache), so that the forms cannot answer differently. A level with neither a code nor a
    /// name is no unit. Else the unit is selected when its `code` (as answers show it: a country's after
    /// the worldview) is wanted, or the `name` it has in the dataset, or one of its names in other
    /// languages (`wantedOtherName`, asked last: a country has 150).
    @inlinable
    public static func selects<Code, Name, Failure: Error>(
        code: Code?, name: Name?, wantedCode: (Code) -> Bool, wantedName: (Name) -> Bool,
        wantedOtherName: () throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        guard code != nil || name != nil else { return false }
        if let code, wantedCode(code) { return true }
        if let name, wantedName(name) { return true }
        return try wantedOtherName()
    }
}
