import Foundation

/// coreutils' `sha256sum`, the outside oracle for the digests the manifests and the cache carry
/// (shared by the engine's and the CLI's tests).
public enum SHA256Sum {
    /// The file's SHA-256 in lowercase hex, as `sha256sum` prints it.
    public static func of(_ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(String(decoding: out, as: UTF8.self).prefix(64))
    }
}
