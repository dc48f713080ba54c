import ReverseGeocoder

/// The engine is the manager's placemark provider: fixes are WGS-84, as receivers report them.
extension ReverseGeocoder: PlacemarkProvider {
    public func placemark(for coordinate: Coordinate) throws -> Placemark? {
        try placemark(for: coordinate, datum: .wgs84)
    }
}
