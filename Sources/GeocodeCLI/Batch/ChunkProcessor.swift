import ReverseGeocoder

/// What a worker does with a chunk: parse each record, look its coordinate up, write its output row.
///
/// Parsing and formatting happen here, on the workers, rather than on the reader or writer thread, so
/// that they scale with `--threads` along with the lookups.
struct ChunkProcessor: Sendable {
    let decoder: RecordDecoder
    let encoder: RecordEncoder
    let lookup: any PlacemarkLookup
    let datum: Datum

    init(schema: BatchSchema, lookup: any PlacemarkLookup) {
        self.decoder = RecordDecoder(schema: schema)
        self.encoder = RecordEncoder(schema: schema)
        self.lookup = lookup
        self.datum = schema.datum
    }

    func process(_ chunk: RawChunk) -> ProcessedChunk {
        var result = ProcessedChunk(sequence: chunk.sequence, output: [], rowEnds: [], problems: [], notices: [],
                                    inputOffset: chunk.inputOffset)
        // Output rows are usually a bit longer than input rows; one reservation avoids most regrowth.
        result.output.reserveCapacity(chunk.bytes.count + chunk.records.count * 48 + 64)
        result.rowEnds.reserveCapacity(chunk.records.count)
        chunk.bytes.withUnsafeBufferPointer { b in
            for (index, span) in chunk.records.enumerated() {
                let record = decoder.decode(b, span.range)
                var placemark: Placemark?
                if let coordinate = record.coordinate {
                    do {
                        placemark = try lookup.placemark(for: coordinate, datum: datum)
                        if placemark == nil { result.notFound += 1 } else { result.found += 1 }
                    } catch {
                        // The engine could not answer: the row is kept (empty fields) and named, not "not found".
                        result.problems.append(RowProblem(rowIndex: index, line: span.line, message: "\(error)"))
                    }
                } else {
                    result.problems.append(RowProblem(rowIndex: index, line: span.line, message: record.error ?? "bad row"))
                }
                encoder.encode(b, record, placemark: placemark, first: chunk.sequence == 0 && index == 0,
                               line: span.line, notices: &result.notices, into: &result.output)
                result.rowEnds.append(result.output.count)
            }
        }
        return result
    }
}
