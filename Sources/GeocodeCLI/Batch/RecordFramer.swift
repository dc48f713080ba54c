/// Cuts an input stream into chunks of whole records, on the reader thread.
///
/// Framing only finds where records start and end (and on which line); workers then parse the records in
/// parallel. Framing must nevertheless understand quoting (CSV) or nesting (GeoJSON), because a record
/// separator inside a quoted value or a nested array is not one.
protocol RecordFramer: AnyObject {
    /// The next chunk: whole records, about `targetBytes` long or `maxRecords` records, whichever comes
    /// first. Nil at end of input. The sequence number is left for the caller to set.
    ///
    /// Once it has thrown, every later call throws the same error, never a chunk cut from where the
    /// failure left the input: a caller that read ahead (``BatchSetup``) may stop at the error and leave
    /// it to the pipeline's reader to raise again, after the rows before it are written, so a file ends
    /// as a pipe of the same bytes does.
    func nextChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk?

    /// The input after the last record that belongs in the output (GeoJSON: the end of the
    /// FeatureCollection). Meaningful once ``nextChunk(targetBytes:maxRecords:)`` returned nil.
    var trailer: [UInt8] { get }
}
