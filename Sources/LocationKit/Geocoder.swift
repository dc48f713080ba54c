import Foundation
import GeoModel
import LocationSources

/// Reverse geocoding shaped like CoreLocation's `CLGeocoder`, over any ``PlacemarkProvider`` (the offline
/// engine in an app):
///
/// ```swift
/// let geocoder = Geocoder(try ReverseGeocoder(directory: dataURL))
/// let placemarks = try await geocoder.reverseGeocodeLocation(Location(latitude: 39.9087, longitude: 116.3975),
///                                                           preferredLocale: Locale(identifier: "zh-Hans"))
/// print(placemarks.first?.locality ?? "no place")
/// ```
///
/// Unlike `CLGeocoder` it needs no network, has no rate limit and may be used for many requests at once
/// from any number of tasks.
public struct Geocoder: Sendable {
    /// What answers the questions.
    public let provider: any PlacemarkProvider

    public init(_ provider: any PlacemarkProvider) {
        self.provider = provider
    }

    /// The placemarks for a location (WGS-84, as every ``Location`` is): one placemark, or none when no
    /// unit of the data contains the point (open sea, outside the data).
    ///
    /// - Parameter preferredLocale: the language the names should be in where the data has them
    ///   (`Locale(identifier: "en")`, `"zh-Hans-CN"`); nil keeps the data's own names. Falls back as
    ///   ``Placemark/localized(to:)`` documents; each level says its language (``Placemark/language(at:)``).
    /// - Throws: ``GeocoderError/invalidCoordinate(_:)`` for a location whose coordinate is not valid;
    ///   `CancellationError` when the task is cancelled before the lookup.
    public func reverseGeocodeLocation(_ location: Location, preferredLocale: Locale? = nil) async throws -> [Placemark] {
        try await reverseGeocodeCoordinate(location.coordinate, datum: .wgs84, preferredLocale: preferredLocale)
    }

    /// The placemarks for a coordinate in any datum (GCJ-02 and BD-09 for Chinese maps' coordinates).
    public func reverseGeocodeCoordinate(_ coordinate: Coordinate, datum: Datum = .wgs84,
                                         preferredLocale: Locale? = nil) async throws -> [Placemark] {
        try Task.checkCancellation()
        guard let placemark = try provider.placemark(for: coordinate, datum: datum) else { return [] }
        guard let preferredLocale else { return [placemark] }
        return [placemark.localized(to: Self.languageTags(preferredLocale))]
    }

    /// The BCP 47 tag of a locale (`zh_Hans_CN` → `zh-Hans-CN`), for ``Placemark/localized(to:)``, which
    /// matches its script and shortens it subtag by subtag itself.
    static func languageTags(_ locale: Locale) -> [String] {
        [locale.identifier.replacingOccurrences(of: "_", with: "-")]
    }
}
