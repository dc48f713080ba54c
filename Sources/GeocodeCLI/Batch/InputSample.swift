/// The first records of a delimited input, read ahead without consuming anything: what the delimiter
/// sniffer, the decimal-comma check and the swapped-columns check look at before the run starts.
///
/// At most ``maxRecords`` records and ``maxBytes`` bytes; on a pipe only what the first reads bring, so
/// one that is still being written (`tail -f log | geocode batch`) does not block here.
struct InputSample {
    /// The bytes sampled (from the input's cursor on, after any BOM).
    var bytes: [UInt8]
    /// Complete records (without line ends), the first one being the header if there is one.
    var records: [Range<Int>]

    static let maxRecords = 1001
    static let maxBytes = 1 << 20
    /// Records a sample of a file always has (when the file has them): the sniffer and the decimal-comma
    /// proof look at these only, so their verdict never depends on how the reads fell.
    static let decidingRecords = 51

    /// Samples `input` at its cursor. Quoted line breaks stay inside their record for any of the
    /// candidate delimiters (quoting does not depend on the delimiter). `wait`: read until
    /// ``decidingRecords`` records are in (a file); otherwise stop as soon as one is (a pipe, which may
    /// be a live feed). A read that fails ends the sample: the framer meets the error again (``ByteInput``
    /// keeps it) after the records before it are written, so a short file cut short (a truncated .csv.gz of
    /// a few rows) loses none of its rows here; one that fails before any byte is thrown.
    static func read(_ input: ByteInput, wait: Bool) throws(CLIError) -> InputSample {
        if input.count == input.cursor && !input.isAtEOF { _ = try input.fill() }
        let enough = wait ? decidingRecords : 1
        var failed = false
        while true {
            let available = input.count - input.cursor
            let bytes = try input.peek(min(available, maxBytes))
            let complete = input.isAtEOF && available <= maxBytes
            let records = split(bytes, complete: complete)
            if complete || failed || records.count >= enough || available >= maxBytes {
                return InputSample(bytes: bytes, records: records)
            }
            do throws(CLIError) { _ = try input.fill() } catch { failed = true }
        }
    }

    /// Records of `bytes`, ending at CR, LF or CRLF outside quotes; empty lines skipped. The last one
    /// counts only when `complete` (otherwise it may be cut).
    static func split(_ bytes: [UInt8], complete: Bool) -> [Range<Int>] {
        var records: [Range<Int>] = []
        var start = 0, inQuotes = false, i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if !inQuotes && (c == 0x0A || c == 0x0D) {
                if i > start { records.append(start..<i) }
                start = i + 1
                if records.count >= maxRecords { return records }
            }
            i += 1
        }
        if complete && start < bytes.count { records.append(start..<bytes.count) }
        return records
    }

    /// The fields of record `index` for `delimiter`.
    func fields(_ index: Int, delimiter: UInt8) -> [String] {
        bytes.withUnsafeBufferPointer { b in
            CSVField.split(b, records[index], delimiter: delimiter).fields.map { $0.string(in: b) }
        }
    }
}
