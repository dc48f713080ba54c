import ReverseGeocoder

/// What the ``LocationManager`` asks for a placemark: the offline engine (`ReverseGeocoder`) in the
/// product, a scripted stand-in in tests.
///
/// Coordinates are WGS-84 (what receivers report). Answering `nil` means "no unit of the dataset contains
/// this point" (open sea, outside the dataset's coverage); it is not an error. Throwing means the
/// provider failed to answer (the engine's GEOS failed): the manager reports ``LocationError/geocodingFailed(_:)``.
///
/// The manager calls the provider on its private work queue, one call at a time, never from two threads
/// at once for the same manager. A provider must not call back into the manager that is asking it.
public protocol PlacemarkProvider: Sendable {
    /// The placemark for a WGS-84 coordinate.
    func placemark(for coordinate: Coordinate) throws -> Placemark?

    /// The placemark for `coordinate`, given the answer the provider gave for the previous looked-up
    /// coordinate (`previous`). The answer must be exactly what ``placemark(for:)`` would say.
    ///
    /// This is the hook for "is the fix still inside the same smallest polygon as last time?": a
    /// provider that can test containment in one known polygon more cheaply than a full lookup (the
    /// engine, with a prepared geometry for `previous.placemark`'s smallest unit) overrides it and
    /// returns `previous.placemark` when the point is still inside. The default does a full lookup.
    func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws -> Placemark?
}

extension PlacemarkProvider {
    public func placemark(for coordinate: Coordinate, previous: PlacemarkLookup?) throws -> Placemark? {
        try placemark(for: coordinate)
    }
}

/// One answered lookup: the coordinate asked for and the provider's answer.
public struct PlacemarkLookup: Sendable, Hashable {
    public var coordinate: Coordinate
    public var placemark: Placemark?

    public init(coordinate: Coordinate, placemark: Placemark?) {
        self.coordinate = coordinate
        self.placemark = placemark
    }
}
