import GeoModel

/// What a worker does with a chunk: parse each record, look its coordinate up, write its output row.
///
/// Parsing and formatting happen here, on the workers, rather than on the reader or writer thread, so
/// that they scale with `--threads` along with the lookups.
struct ChunkProcessor: Sendable {
    let decoder: RecordDecoder
    let encoder: RecordEncoder
    let lookup: any PlacemarkProvider
    let datum: Datum

    /// `plainRows: false` turns the decoder's fast path off (tests compare the two paths).
    init(schema: BatchSchema, lookup: any PlacemarkProvider, plainRows: Bool = true) {
        self.decoder = RecordDecoder(schema: schema, plainRows: plainRows)
        self.encoder = RecordEncoder(schema: schema)
        self.lookup = lookup
        self.datum = schema.datum
    }

    /// A worker's own cache of encoded placemark columns, kept from chunk to chunk.
    func makeCache() -> PlacemarkBytesCache { encoder.makeCache() }

    /// Processes `chunk` with a cache of its own (tests, one-off callers).
    func process(_ chunk: RawChunk) -> ProcessedChunk {
        var cache = makeCache()
        return process(chunk, cache: &cache)
    }

    func process(_ chunk: RawChunk, cache: inout PlacemarkBytesCache) -> ProcessedChunk {
        var result = ProcessedChunk(sequence: chunk.sequence, output: [], rowEnds: [], problems: [], notices: [],
                                    inputOffset: chunk.inputOffset)
        // Output rows are usually a bit longer than input rows; one reservation avoids most regrowth.
        let expectedRows: Int
        switch chunk.framing {
        case .spans(let spans): expectedRows = spans.count
        case .lines: expectedRows = chunk.bytes.count / 16 + 1
        }
        result.output.reserveCapacity(chunk.bytes.count + expectedRows * 48 + 64)
        result.rowEnds.reserveCapacity(expectedRows)
        let noQuotes: Bool
        if case .lines = chunk.framing { noQuotes = true } else { noQuotes = false }
        chunk.bytes.withUnsafeBufferPointer { b in
            var index = 0
            chunk.forEachRecord(in: b) { span in
                // Nearly every row: a plain row with a good coordinate, carried verbatim (no record built).
                // A lookup error sends the row to the general path, which asks again and flags it.
                if let row = decoder.plainCoordinate(b, span.range, noQuotes: noQuotes),
                   case .success(let placemark) = Result(catching: { () throws(GeocoderError) in
                       try lookup.placemark(for: row.coordinate, datum: datum)
                   }) {
                    if placemark?.hasAdministrativeUnit ?? false { result.found += 1 } else { result.notFound += 1 }
                    encoder.encodePlainRow(b, span.range, fields: row.fields, placemark: placemark, cache: &cache,
                                           into: &result.output)
                    result.rowEnds.append(result.output.count)
                    index += 1
                    return
                }
                processRecord(b, span, index: index, first: chunk.sequence == 0 && index == 0, into: &result, cache: &cache)
                index += 1
            }
        }
        return result
    }

    /// Every record but a plain row that geocoded (the fast path in ``process(_:cache:)``): decoded in
    /// full, looked up, written, its problem and notices noted (each notice with its row, `index`).
    /// Inlined into the loop, as it always was: out of line it cost every JSON row ~90 instructions
    /// more (callgrind, 20,000 rows), the call and its copies.
    @inline(__always)
    private func processRecord(_ b: UnsafeBufferPointer<UInt8>, _ span: RecordSpan, index: Int, first: Bool,
                               into result: inout ProcessedChunk, cache: inout PlacemarkBytesCache) {
        let noticesBefore = result.notices.count
        var record = decoder.decode(b, span.range)
        if case .raw = record.content { result.unreadable += 1 }
        if !record.repeatedKeys.isEmpty || !record.repeatedNestedKeys.isEmpty {
            result.notices.append(.repeatedKeys(record.repeatedKeys, nested: record.repeatedNestedKeys,
                                                input: encoder.schema.inputName, line: span.line))
        }
        var placemark: Placemark?
        if let coordinate = record.coordinate {
            do throws(GeocoderError) {
                placemark = try lookup.placemark(for: coordinate, datum: datum)
                // Found: an administrative unit (a time zone alone, at sea, is written but not found).
                if placemark?.hasAdministrativeUnit ?? false { result.found += 1 } else { result.notFound += 1 }
            } catch {
                // The decoder checks coordinates first, so this is a lookup that could not answer
                // (an invalid point after a datum shift, an engine failure): a flagged row, not a crash.
                record.coordinate = nil
                record.error = error.description
            }
        }
        if record.coordinate == nil {
            result.problems.append(RowProblem(rowIndex: index, line: span.line, message: record.error ?? "bad row"))
        }
        encoder.encode(b, record, placemark: placemark, first: first, line: span.line, notices: &result.notices,
                       cache: &cache, into: &result.output)
        if result.notices.count > noticesBefore { Self.attribute(&result.notices, from: noticesBefore, to: index) }
        result.rowEnds.append(result.output.count)
    }

    /// Gives the notices from `start` on the row `row`: out of line, since nearly no row has one.
    @inline(never)
    private static func attribute(_ notices: inout [Notice], from start: Int, to row: Int) {
        for i in start..<notices.count { notices[i].row = row }
    }
}
