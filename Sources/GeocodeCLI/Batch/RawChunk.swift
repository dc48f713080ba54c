/// A run of whole input records, cut by a framer on the reader thread and handed to a worker.
///
/// Chunks are the unit of parallelism and of ordering: each gets a sequence number, workers finish them
/// in any order, and the writer puts them back in sequence.
struct RawChunk: Sendable {
    var sequence: Int
    /// The input bytes of the records (with their separators).
    var bytes: [UInt8]
    var records: [RecordSpan]
    /// Input bytes read up to the end of this chunk (BOM included), for the progress bar.
    var inputOffset: Int
}
