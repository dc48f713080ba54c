import Foundation

extension ReverseGeocoder {
    /// The cores this process may run on: its CPU affinity (`taskset -c 0` gives 1), where Foundation's
    /// `activeProcessorCount` counts the machine's on Linux (measured: 2 under `taskset -c 0` on 2 cores),
    /// and a second worker on one core only prepares every GEOS geometry twice.
    public static func usableCores() -> Int {
        // Linux's `Cpus_allowed:` line, a hex mask in comma-separated 32-bit words (sched_getaffinity is
        // not in Swift's Glibc module: it needs _GNU_SOURCE).
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let n = line.dropFirst("Cpus_allowed:".count).reduce(0) { $0 + ($1.hexDigitValue?.nonzeroBitCount ?? 0) }
            if n > 0 { return n }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }
}
