#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Finds the data directory (the folder whose subfolders hold datasets with a `manifest.json`).
///
/// Search order, first hit wins:
/// 1. `--data DIR` (an error if it does not exist: the user asked for it);
/// 2. the `GEOCODE_DATA` environment variable (likewise an error if it points nowhere);
/// 3. `Data/` next to the executable (a copied or packaged install: `bin/geocode` + `bin/Data/`);
/// 4. `../share/geocode/Data` relative to the executable (`/usr/local/bin` + `/usr/local/share/geocode`);
/// 5. `Data/` in the Swift package the executable was built in: the nearest ancestor of the
///    executable's directory that has both `Package.swift` and `Data/` (`swift run`, `.build/debug/geocode`).
public enum DataDirectoryResolver {
    /// The environment variable consulted after `--data`.
    public static let environmentVariable = "GEOCODE_DATA"

    public static func resolve(option: String?, environment: [String: String], executablePath: String?) throws(CLIError) -> URL {
        if let option {
            guard isDirectory(option) else { throw CLIError(.dataUnavailable, "data directory \(option) (--data) does not exist or is not a directory") }
            return URL(fileURLWithPath: option)
        }
        if let value = environment[environmentVariable], !value.isEmpty {
            guard isDirectory(value) else {
                throw CLIError(.dataUnavailable, "data directory \(value) ($\(environmentVariable)) does not exist or is not a directory")
            }
            return URL(fileURLWithPath: value)
        }
        let candidates = defaultCandidates(executablePath: executablePath)
        if let hit = candidates.first(where: isDirectory) { return URL(fileURLWithPath: hit) }
        let tried = candidates.isEmpty ? "" : " (looked in: " + candidates.joined(separator: ", ") + ")"
        throw CLIError(.dataUnavailable, "no data directory found; use --data DIR or set $\(environmentVariable)\(tried)")
    }

    /// Places 3–5 of the search order, for this executable.
    public static func defaultCandidates(executablePath: String?) -> [String] {
        guard let executablePath else { return [] }
        let binDir = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [binDir.appendingPathComponent("Data").path,
                          binDir.deletingLastPathComponent().appendingPathComponent("share/geocode/Data").path]
        var dir = binDir
        while dir.path != "/" && !dir.path.isEmpty {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                candidates.append(dir.appendingPathComponent("Data").path)
                break
            }
            dir = dir.deletingLastPathComponent()
        }
        return candidates
    }

    /// This process's executable, from /proc on Linux (argv[0] can be relative or a bare name).
    public static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return CommandLine.arguments.first.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
