import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// `--name value` options plus positional arguments.
struct Options {
    private var named: [String: String] = [:]
    private(set) var positional: [String] = []

    init(_ args: [String]) throws {
        var i = 0
        while i < args.count {
            let a = args[i]
            // Negative numbers (a longitude) are positional, not options.
            if a.hasPrefix("--"), a.count > 2 {
                guard i + 1 < args.count else { throw UsageError("\(a) needs a value") }
                named[String(a.dropFirst(2))] = args[i + 1]
                i += 2
            } else {
                positional.append(a)
                i += 1
            }
        }
    }

    func string(_ name: String) throws -> String {
        guard let v = named[name] else { throw UsageError("missing --\(name)") }
        return v
    }
    func optional(_ name: String) -> String? { named[name] }
    func int(_ name: String, default value: Int) throws -> Int {
        guard let v = named[name] else { return value }
        guard let n = Int(v) else { throw UsageError("--\(name) \(v) is not an integer") }
        return n
    }
}

/// Monotonic nanoseconds (vDSO clock_gettime: ~20 ns per call on this kind of machine).
@inline(__always)
func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time this process has used, all threads, in nanoseconds. Unlike wall time it does not grow while
/// other work on a shared machine holds the cores, and over N busy threads it is the core time spent.
@inline(__always)
func processCPUNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Peak resident set size of this process so far, in bytes: VmHWM of /proc/self/status, which belongs to
/// this program's address space. (getrusage's ru_maxrss is not used: Linux carries it across exec, so it
/// would report the launching process's size when that is larger.)
func peakRSSBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        return (kb ?? 0) * 1024
    }
    return 0
}

/// Current resident set size, in bytes (from /proc/self/statm).
func currentRSSBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("  geocode-bench: \(message)\n".utf8))
}

/// Reads a points file: float64 (x, y) pairs.
func readPoints(_ path: String, limit: Int? = nil) throws -> (xs: [Double], ys: [Double]) {
    guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
    var count = data.count / 16
    if let limit { count = min(count, limit) }
    var xs = [Double](repeating: 0, count: count), ys = [Double](repeating: 0, count: count)
    data.withUnsafeBytes { raw in
        for i in 0..<count {
            xs[i] = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self)))
            ys[i] = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self)))
        }
    }
    return (xs, ys)
}

func writeAnswers(_ answers: [Int32], to path: String) throws {
    let data = answers.withUnsafeBufferPointer { Data(buffer: $0) }
    try data.write(to: URL(fileURLWithPath: path))
}

func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}

/// Persistent worker threads, so each keeps its engine context (and its lazily prepared geometries)
/// from the warm-up pass to the timed passes, the way a server's thread pool would.
final class WorkerPool: @unchecked Sendable {
    // @unchecked: `job` is written only by `run` while every worker waits on its semaphore, and read by
    // the workers only after `run` signalled them; the semaphores order those accesses.
    let count: Int
    private var job: (@Sendable (Int) -> Void)?
    private let start: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)

    init(threads: Int) {
        count = threads
        start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        for i in 0..<threads {
            // Strong: the workers keep the pool alive until the process ends. (Unowned, a worker looping
            // back after the last job could read a pool already freed: a crash at exit.)
            let t = Thread { [self] in
                while true {
                    self.start[i].wait()
                    self.job?(i)
                    self.done.signal()
                }
            }
            t.stackSize = 8 << 20
            t.start()
        }
    }

    /// Runs `job(worker)` on every worker and waits for all; returns wall and process CPU time in nanoseconds.
    func run(_ job: @escaping @Sendable (Int) -> Void) -> (wall: UInt64, cpu: UInt64) {
        self.job = job
        let c0 = processCPUNanos()
        let t0 = nowNanos()
        for s in start { s.signal() }
        for _ in 0..<count { done.wait() }
        return (nowNanos() - t0, processCPUNanos() - c0)
    }
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    if s.isEmpty { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
