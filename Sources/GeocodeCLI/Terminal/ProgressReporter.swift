/// The batch's progress line on stderr: rows, rows/s and elapsed time, plus a bar, percentage and ETA
/// when the input size is known (a regular file), measured by input bytes consumed.
///
/// Redraws at most ten times a second (``minimumInterval``), from the writer thread, and only when stderr
/// is a terminal: redirected stderr gets no control characters, just the per-row reports and the summary.
/// An update between redraws costs one clock read (the writer calls it once per chunk of thousands of
/// rows), so the bar costs nothing measurable at millions of rows a second (Benchmarks/results/batch.md).
final class ProgressReporter {
    static let minimumInterval = Duration.milliseconds(100)

    private let console: Console
    private let totalBytes: Int?
    let isEnabled: Bool
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let start: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    /// Redraws so far (for tests and measurements).
    private(set) var redraws = 0

    /// `clock` is the time source (tests pass a fake one; never a wall-clock sleep).
    init(console: Console, totalBytes: Int?, enabled: Bool,
         clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.console = console
        self.totalBytes = totalBytes.flatMap { $0 > 0 ? $0 : nil }
        self.isEnabled = enabled
        self.clock = clock
        self.start = clock()
    }

    /// Seconds since the reporter was made (the run's start).
    var elapsed: Double { Self.seconds(clock() - start) }

    func update(rows: Int, bytes: Int) {
        guard isEnabled else { return }
        let now = clock()
        if let lastDraw, now - lastDraw < Self.minimumInterval { return }
        lastDraw = now
        console.write("\r" + line(rows: rows, bytes: bytes, width: console.width) + "\u{1B}[K")
        drawn = true
        redraws += 1
    }

    /// Erases the line so the summary starts clean; call before writing anything else to stderr.
    func clear() {
        guard drawn else { return }
        console.write("\r\u{1B}[K")
        drawn = false
        lastDraw = nil
    }

    /// The text of the progress line (public to the module for tests).
    func line(rows: Int, bytes: Int, width: Int) -> String {
        let seconds = elapsed
        let stats = "\(NumberFormatting.grouped(rows)) rows  \(NumberFormatting.rate(rows, seconds)) rows/s  "
            + "\(NumberFormatting.clock(seconds)) elapsed"
        guard let totalBytes else { return stats }
        let fraction = min(1, Double(bytes) / Double(totalBytes))
        let percent = (fraction * 1000).rounded() / 10
        let eta = fraction > 0 ? seconds / fraction - seconds : .infinity
        let tail = "  ETA \(NumberFormatting.clock(eta))"
        let percentText = "\(percent)%"
        let barWidth = max(10, min(40, width - stats.count - tail.count - percentText.count - 6))
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: barWidth - filled)
        return "[\(bar)] \(percentText)  \(stats)\(tail)"
    }

    static func seconds(_ duration: Duration) -> Double {
        let (s, attoseconds) = duration.components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
