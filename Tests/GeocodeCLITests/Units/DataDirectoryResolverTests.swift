import Foundation
@testable import GeocodeCLI
import Testing

@Suite struct DataDirectoryResolverTests {
    @Test func searchOrder() throws {
        let root = try TemporaryDirectory.shared.newFolder("pkg")
        let fm = FileManager.default
        // A package checkout: Package.swift, Data/, and a build folder holding the executable.
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        try fm.createDirectory(at: root.appendingPathComponent("Data"), withIntermediateDirectories: true)
        let bin = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        let exe = bin.appendingPathComponent("geocode").path
        let explicit = try TemporaryDirectory.shared.newFolder("explicit")
        let fromEnv = try TemporaryDirectory.shared.newFolder("env")

        func resolve(_ option: String?, _ env: [String: String]) throws -> String {
            try DataDirectoryResolver.resolve(option: option, environment: env, executablePath: exe).path
        }
        #expect(try resolve(explicit.path, ["GEOCODE_DATA": fromEnv.path]) == explicit.path)
        #expect(try resolve(nil, ["GEOCODE_DATA": fromEnv.path]) == fromEnv.path)
        #expect(try resolve(nil, [:]) == root.appendingPathComponent("Data").path)
        // Data/ next to the executable wins over the package's.
        try fm.createDirectory(at: bin.appendingPathComponent("Data"), withIntermediateDirectories: true)
        #expect(try resolve(nil, [:]) == bin.appendingPathComponent("Data").path)
    }

    @Test func missingIsExitFourWithWhereItLooked() {
        do {
            _ = try DataDirectoryResolver.resolve(option: nil, environment: [:], executablePath: "/nowhere/bin/geocode")
            Issue.record("resolved")
        } catch {
            #expect(error.code == .dataUnavailable)
            #expect(error.message.contains("/nowhere/bin/Data"))
            #expect(error.message.contains("/nowhere/share/geocode/Data"))
        }
    }
}
