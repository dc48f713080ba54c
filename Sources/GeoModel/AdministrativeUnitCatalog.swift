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
}
