/// Counts for the summary line.
struct BatchStatistics: Sendable, Equatable {
    var rows = 0
    var found = 0
    var notFound = 0
    var bad = 0
    /// Of the bad rows, those that are no record of the format at all (see ``ProcessedChunk/unreadable``).
    var unreadable = 0

    mutating func add(_ chunk: ProcessedChunk) {
        rows += chunk.rows
        found += chunk.found
        notFound += chunk.notFound
        bad += chunk.problems.count
        unreadable += chunk.unreadable
    }

    /// `1,000 rows: 900 found, 80 not found, 20 bad in 0.52 s (1,923 rows/s)`.
    func summary(seconds: Double) -> String {
        "\(NumberFormatting.grouped(rows)) \(rows == 1 ? "row" : "rows"): \(NumberFormatting.grouped(found)) found, "
            + "\(NumberFormatting.grouped(notFound)) not found, \(NumberFormatting.grouped(bad)) bad "
            + "in \(NumberFormatting.seconds(seconds)) s (\(NumberFormatting.rate(rows, seconds)) rows/s)"
    }
}
