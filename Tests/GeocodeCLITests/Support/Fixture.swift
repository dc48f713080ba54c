import Foundation

/// Files under `Tests/GeocodeCLITests/Fixtures`, copied into the test bundle as a folder.
enum Fixture {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { directory.appendingPathComponent(path) }

    static func data(_ path: String) throws -> Data { try Data(contentsOf: url(path)) }

    static func text(_ path: String) throws -> String { String(decoding: try data(path), as: UTF8.self) }
}
