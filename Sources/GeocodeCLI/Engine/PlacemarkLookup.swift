import ReverseGeocoder

/// What the CLI needs from a reverse geocoder: one point in, a placemark (or nothing) out.
///
/// The CLI depends on this protocol rather than on the engine class so that the argument parsing and the
/// batch pipeline can be built and tested before, and independently of, the real engine and its data.
/// Implementations must be safe to call from many threads at once: the batch pipeline does.
public protocol PlacemarkLookup: Sendable {
    /// The placemark of the smallest administrative units containing `coordinate`, or nil when the point
    /// lies in no polygon of the loaded data (ocean, or outside every dataset).
    /// `datum` says which datum `coordinate` is expressed in; converting is the lookup's job.
    /// Throws when the lookup fails to answer (the engine's GEOS failed), which is not "no place".
    func placemark(for coordinate: Coordinate, datum: Datum) throws -> Placemark?
}
