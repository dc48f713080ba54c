/// A chunk after a worker has geocoded it: the output bytes of its rows, ready to be written in order.
struct ProcessedChunk: Sendable {
    var sequence: Int
    var output: [UInt8]
    /// Output offset after each row, so `--strict` can write exactly the rows before the first bad one.
    var rowEnds: [Int]
    /// Bad rows, in input order.
    var problems: [RowProblem]
    /// One-off notices (e.g. a JSON key that has no CSV column), deduplicated by the writer.
    var notices: [Notice]
    var found = 0
    var notFound = 0
    /// Rows that are no record of the input's format at all (not JSON, not a Feature): kept whole.
    var unreadable = 0
    var inputOffset: Int

    var rows: Int { rowEnds.count }
}
