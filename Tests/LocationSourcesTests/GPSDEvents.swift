@testable import LocationSources

/// Sorting recorded events for the gpsd tests. Static functions rather than extensions on the shared
/// types, so nothing here can clash with helpers other test files in this module declare.
enum GPSDEvents {
    static func locations(_ events: some Sequence<LocationSourceEvent>) -> [Location] {
        events.compactMap { if case .location(let l) = $0 { l } else { nil } }
    }

    static func errors(_ events: some Sequence<LocationSourceEvent>) -> [LocationSourceError] {
        events.compactMap { if case .error(let e) = $0 { e } else { nil } }
    }

    static func isDisconnect(_ error: LocationSourceError) -> Bool {
        if case .deviceDisconnected = error { true } else { false }
    }

    static func isUnavailable(_ error: LocationSourceError) -> Bool {
        if case .sourceUnavailable = error { true } else { false }
    }

    static func isParse(_ error: LocationSourceError) -> Bool {
        if case .parse = error { true } else { false }
    }
}
