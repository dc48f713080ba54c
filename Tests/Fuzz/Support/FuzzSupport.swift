// Shared by every harness (compiled into each one; see run.sh).
import Foundation

/// An invariant did not hold: print why, then abort so libFuzzer saves the input as a crash.
func violation(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let text = "INVARIANT VIOLATED (\(file):\(line)): \(message())\n"
    FileHandle.standardError.write(Data(text.utf8))
    abort()
}

/// `check(condition, "why")`: `violation` when the condition is false.
@inline(__always)
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { violation(message(), file: file, line: line) }
}

/// Reads the fuzzer's input as bytes.
@inline(__always)
func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
}

/// A private scratch directory for harnesses that must hand files to the code under test: on tmpfs
/// when there is one (fast, and never fills a disk), one per process so parallel jobs do not collide.
let scratchDirectory: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("geocoder-fuzz-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: scratchDirectory) }
    return url
}()

/// Printable excerpt of bytes for violation messages.
func excerpt(_ b: some Collection<UInt8>, limit: Int = 200) -> String {
    String(decoding: b.prefix(limit).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}

/// A deterministic splitter: cuts `count` bytes into chunks whose sizes come from `seed`, so a harness
/// can feed the same input whole and in pieces and compare.
struct Chunker: Sequence, IteratorProtocol {
    var state: UInt64
    var offset = 0
    let count: Int
    let maximum: Int
    init(count: Int, seed: UInt64, maximum: Int) {
        self.count = count
        self.state = seed | 1
        self.maximum = Swift.max(1, maximum)
    }
    mutating func next() -> Range<Int>? {
        guard offset < count else { return nil }
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        let size = Swift.min(count - offset, 1 + Int(state % UInt64(maximum)))
        defer { offset += size }
        return offset..<(offset + size)
    }
}
