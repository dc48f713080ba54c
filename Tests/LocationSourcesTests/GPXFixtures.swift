import Foundation

/// The GPX files under Fixtures/GPX.
enum GPXFixtures {
    static func url(_ name: String) throws -> URL {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Fixtures folder missing from the test bundle"])
        }
        let url = folder.appendingPathComponent("GPX").appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "missing fixture \(url.path)"])
        }
        return url
    }

    /// `2024-05-18T07:30:00Z`-style literal → Date, computed independently of the parser under test.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Double) -> Date {
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, Int(second))
        return components.date!.addingTimeInterval(second - second.rounded(.down))
    }
}
