import Foundation
import TestSupport

/// A scratch folder for one test process (it holds index caches: a few hundred MB), removed when the
/// process exits and by later runs if it was killed (``ScratchDirectories``); each file gets a unique name
/// so parallel tests never collide.
final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `counter` is guarded by `lock`.
    static let shared = TemporaryDirectory()

    let url: URL
    private let lock = NSLock()
    private var counter = 0

    private init() {
        url = ScratchDirectories.make(prefix: "geocode-cli-tests", suffix: String(UUID().uuidString.prefix(8)))
    }

    /// A fresh, existing, empty file.
    func newFile(_ stem: String, extension ext: String = "") throws -> URL {
        let file = uniqueURL(stem, extension: ext)
        try Data().write(to: file)
        return file
    }

    /// A fresh, existing, empty folder.
    func newFolder(_ stem: String) throws -> URL {
        let folder = uniqueURL(stem, extension: "")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A fresh path that does not exist yet.
    func uniqueURL(_ stem: String, extension ext: String) -> URL {
        lock.lock()
        counter += 1
        let n = counter
        lock.unlock()
        return url.appendingPathComponent("\(stem)-\(n)" + (ext.isEmpty ? "" : ".\(ext)"))
    }
}
