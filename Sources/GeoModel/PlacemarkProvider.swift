/// THE lookup protocol: one point in, its placemark (or none) out. The engine (`ReverseGeocoder`)
/// conforms, once, in its own module; `LocationManager`, the async `Geocoder` and the CLI ask through
/// this protocol and nothing else; tests give them a stand-in.
///
/// Answers:
/// - a placemark: the units the point is in (or nearest to, see ``Placemark/Provenance``);
/// - nil: no unit of the loaded data contains the point (open sea, outside the data's coverage). Not an
///   error. (Once the data has time zones and water, such a point may instead get a placemark with no
///   administrative unit but its `timeZone` and `ocean`: ``Placemark/provenance(at:)`` is then nil for
///   every level);
/// - a thrown ``GeocoderError``: the question cannot be answered. ``GeocoderError/invalidCoordinate(_:)``
///   for a latitude outside ±90, a longitude outside ±180 or a non-finite value; never the same as nil.
///
/// Implementations must be safe to call from many threads at once (the batch pipeline does). A
/// provider must not call back into the `LocationManager` that is asking it.
public protocol PlacemarkProvider: Sendable {
    /// The placemark of the units containing `coordinate`, expressed in `datum` (converting is the
    /// provider's job).
    func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark?

    /// The placemark for a WGS-84 `coordinate`, given the answer this provider gave for the previous
    /// looked-up coordinate (`previous`). The answer must be exactly what
    /// ``placemark(for:datum:)`` would say.
    ///
    /// The hook for "is the fix still inside the same smallest polygon as last time?": a provider that
    /// can test containment in one known polygon more cheaply than a full lookup may implement it and
    /// return `previous.placemark` when the point is still inside. The default does a full lookup; the
    /// engine does not implement it (its full lookup is already about 70 ns).
    func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws(GeocoderError) -> Placemark?
}

extension PlacemarkProvider {
    public func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws(GeocoderError) -> Placemark? {
        try placemark(for: coordinate, datum: .wgs84)
    }

    /// The placemark for a WGS-84 coordinate (what receivers and GPX files report).
    public func placemark(for coordinate: Coordinate) throws(GeocoderError) -> Placemark? {
        try placemark(for: coordinate, datum: .wgs84)
    }

    /// Convenience for `placemark(for: Coordinate(latitude:longitude:), datum:)`.
    public func placemark(latitude: Double, longitude: Double, datum: Datum = .wgs84) throws(GeocoderError) -> Placemark? {
        try placemark(for: Coordinate(latitude: latitude, longitude: longitude), datum: datum)
    }
}

/// One answered lookup: the coordinate asked for and the provider's answer (the `previous` of
/// ``PlacemarkProvider/placemark(for:previous:)``).
public struct PlacemarkLookup: Sendable, Hashable {
    public var coordinate: Coordinate
    public var placemark: Placemark?

    public init(coordinate: Coordinate, placemark: Placemark?) {
        self.coordinate = coordinate
        self.placemark = placemark
    }
}
