import Foundation
import TestSupport

/// Runs the built executable the way a user would: `geocode-testgrid` (the same CLI with TestSupport's grid
/// instead of the engine) by default, the product `geocode` itself when a test asks for the real engine
/// (`GEOCODE_TEST_LOOKUP` set to "" in its environment, as the real-data tests do).
///
/// The binaries are found in the products directory of this test build (the folder that holds this test
/// target's resource bundle, which SwiftPM puts next to the executables), so it works for
/// `.build/debug`, `.build/<triple>/debug` and release layouts alike. `GEOCODE_BINARY` and
/// `GEOCODE_TESTGRID_BINARY` override.
struct GeocodeBinary {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var err: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// The product executable (the real engine).
    static let url = binary("geocode", override: "GEOCODE_BINARY")
    /// The CLI over the grid test double.
    static let gridURL = binary("geocode-testgrid", override: "GEOCODE_TESTGRID_BINARY")

    private static func binary(_ name: String, override: String) -> URL {
        if let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        candidates.append(Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        // Fallback: from this source file up to the package root, then the usual build folders.
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(dir.appendingPathComponent(".build/debug/" + name))
        candidates.append(dir.appendingPathComponent(".build/release/" + name))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// One index cache for the whole test run, so the real engine's tests neither write into the user's
    /// ~/.cache nor depend on what is there: the in-process engine tests' (``BundledData``), so the
    /// bundled datasets' indexes are built once per run, not once for them and again for the CLI's.
    static var cacheDirectory: URL { BundledData.cacheDirectory }

    /// The environment for a run: the test grid, no GEOCODE_DATA from the developer's shell, and the
    /// test run's own index cache.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["GEOCODE_TEST_LOOKUP"] = "grid"
        env.removeValue(forKey: "GEOCODE_DATA")
        env["GEOCODE_CACHE_DIR"] = cacheDirectory.path
        return env.merging(extra) { $1 }
    }

    /// Runs to completion, waiting without holding a pool thread. `stdin` is a regular file (nil: /dev/null),
    /// as `geocode batch - < file` gives it, sized and readable ahead: for the tests that mean a file. Text
    /// on stdin as `producer | geocode batch -` gives it is ``run(_:piped:environment:)``.
    static func run(_ arguments: [String], stdin: URL? = nil, environment extra: [String: String] = [:],
                    in directory: URL? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = extra["GEOCODE_TEST_LOOKUP"] == "" ? url : gridURL
        process.arguments = arguments
        process.environment = environment(extra)
        if let directory { process.currentDirectoryURL = directory }
        return try await capture(process, stdin: try stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice)
    }

    /// Runs a process set up by the caller (executable, arguments, environment) to completion, waiting
    /// without holding a pool thread, with stdout and stderr collected in files (a pipe nobody reads
    /// while the process runs could fill and block it). `stdout`: a handle to write to instead (a
    /// device); its output is then not collected.
    static func capture(_ process: Process, stdin: FileHandle = FileHandle.nullDevice, stdout: FileHandle? = nil) async throws -> Result {
        let outFile = try TemporaryDirectory.shared.newFile("stdout"), errFile = try TemporaryDirectory.shared.newFile("stderr")
        let outHandle = try stdout ?? FileHandle(forWritingTo: outFile), errHandle = try FileHandle(forWritingTo: errFile)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = stdin
        try process.run()
        let status = await process.exitStatus()
        try outHandle.close()
        try errHandle.close()
        return Result(status: status, stdout: try Data(contentsOf: outFile), stderr: try Data(contentsOf: errFile))
    }

    /// Runs with stdin a pipe that holds `input` and then ends, as `producer | geocode …` gives it: read
    /// as it comes, with nothing to look ahead in (a file is). `input` is written whole into the pipe
    /// before the process starts, so it must fit the pipe's buffer (64 KiB on Linux; 32 are allowed):
    /// a run that stops early can then never leave a writer blocked, nor raise SIGPIPE in the tests.
    static func run(_ arguments: [String], piped input: String, environment extra: [String: String] = [:]) async throws -> Result {
        try await run(arguments, piped: Data(input.utf8), environment: extra)
    }

    /// ``run(_:piped:environment:)`` with bytes that need not be text (a compressed stream).
    static func run(_ arguments: [String], piped bytes: Data, environment extra: [String: String] = [:]) async throws -> Result {
        precondition(bytes.count <= 32 << 10, "piped test input must fit the pipe's buffer")
        let process = Process()
        process.executableURL = extra["GEOCODE_TEST_LOOKUP"] == "" ? url : gridURL
        process.arguments = arguments
        process.environment = environment(extra)
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: bytes)
        try pipe.fileHandleForWriting.close()
        return try await capture(process, stdin: pipe.fileHandleForReading)
    }
}
