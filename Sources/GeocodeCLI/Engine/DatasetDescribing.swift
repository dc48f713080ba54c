import Foundation
import ReverseGeocoder

/// What `geocode info` and `geocode index` show about the data behind a lookup. The engine conforms; a
/// stand-in without data answers no datasets.
public protocol DatasetDescribing: Sendable {
    /// The datasets loaded, in the order they are consulted (empty: no data behind the lookup).
    var datasets: [DatasetInfo] { get }
    /// Wall time the load took.
    var loadTime: Duration { get }
    /// What a user should hear about the data: said on stderr after the load, and again for each one a
    /// query adds (an index cache a query found damaged: ``LateWarnings``).
    var warnings: [String] { get }
}

extension DatasetDescribing {
    /// A stand-in has nothing to warn about.
    public var warnings: [String] { [] }
}

/// What a command opens: the one lookup protocol, and the description of its data.
public typealias GeocodeLookup = PlacemarkProvider & DatasetDescribing

extension ReverseGeocoder: DatasetDescribing {}
