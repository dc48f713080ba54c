#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ReverseGeocoder

/// Runs one batch: opens input and output, decides formats and schema, drives the pipeline, writes the
/// bad-row reports, progress and summary, and commits or abandons the output.
struct BatchRunner {
    let options: BatchOptions
    let context: CommandContext
    let dataOption: String?

    func run() throws(CLIError) -> ExitCode {
        // Input first: a missing file should be reported before any data is loaded.
        let fd: Int32
        if options.readsStandardInput {
            fd = 0
        } else {
            fd = open(options.inputPath!, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .io("cannot open \(options.inputPath!): \(FileDescriptorIO.message(errno))") }
        }
        // Left open only if a cancelled run's reader is still blocked reading it (see BatchPipeline.run).
        var closeInput = fd != 0
        defer { if closeInput { close(fd) } }
        var status = stat()
        var totalBytes: Int?
        if fstat(fd, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR { throw .io("cannot read \(options.inputName): it is a directory") }
            if (status.st_mode & S_IFMT) == S_IFREG { totalBytes = Int(status.st_size) }
        }
        var options = self.options
        options.sampleWaits = totalBytes != nil
        if !options.writesStandardOutput {
            options.outputRecordSeparator = BatchFormat.recordSeparator(path: InputStack.strippingCompression(options.outputPath!))
        }
        let opened = try InputStack.open(fd: fd, name: options.inputName, path: options.inputPath, encodingName: options.encoding,
                                         readSize: options.readSize, isFile: totalBytes != nil)
        let input = opened.input
        // Progress counts uncompressed bytes: a compressed file's size is no measure of them.
        if opened.compression != nil { totalBytes = nil }
        if fd == 0 && isatty(0) == 1 && !options.quiet {
            // Otherwise a bare `geocode batch` looks hung.
            context.stderr.write("geocode: reading points from the terminal; end with Ctrl-D (see geocode batch --help)\n")
        }

        let format = try inputFormat(input)
        let outputFormat = try self.outputFormat(input: format)
        if format.isGeoJSON { input.maxPending = 1 << 30 }
        if format == .ndjson && options.header != nil {
            throw .usage("--header/--no-header apply to CSV and TSV input only")
        }

        // Checked whole at load (QueryLoad.batch, shared or private): a damaged cache is among the load's
        // warnings, which the factory says; no query adds one later.
        let lookup = try context.openLookup(dataOption: dataOption, load: .batch)
        let setup = try BatchSetup.prepare(input: input, format: format, outputFormat: outputFormat, options: options) {
            context.stderr.write("geocode: warning: \($0)\n")
        }
        for notice in setup.notices { context.stderr.write("geocode: warning: \(notice)\n") }
        if let sample = setup.sample, let warning = ColumnGuess.warning(sample: sample, schema: setup.schema, lookup: lookup) {
            context.stderr.write("geocode: warning: \(warning)\n")
        } else if setup.sample == nil, let warning = ColumnGuess.warning(json: setup.pending, schema: setup.schema, lookup: lookup) {
            context.stderr.write("geocode: warning: \(warning)\n")
        }
        // The output is created only now that everything that can be checked up front has been.
        let sink = try openSink()

        var statistics = BatchStatistics()
        var noticed = Set<String>()
        let progress = ProgressReporter(console: context.stderr, totalBytes: totalBytes,
                                        enabled: !options.quiet && context.stderr.isTerminal)
        var strictFailure: RowProblem?
        // Whether the writer's side stopped the run (--strict, a write error): the reader may still be
        // running then, and the framer is not to be asked what it read.
        var writerStopped = false
        var trailingMembersSaid = false
        /// The warnings of `notices` not said yet this run, one line each.
        func warnings(_ notices: some Sequence<Notice>) -> String {
            var report = ""
            for notice in notices where noticed.insert(notice.key).inserted {
                report += "geocode: warning: \(notice.message)\n"
            }
            return report
        }
        func say(_ report: String) {
            guard !report.isEmpty else { return }
            progress.clear()
            context.stderr.write(report)
        }
        /// The collection's members after its features, once the reader is done with the framer.
        func sayTrailingMembers() {
            guard !trailingMembersSaid else { return }
            trailingMembersSaid = true
            if let warning = BatchSetup.unwrittenCollectionMembers(setup.framer, schema: setup.schema, afterFeatures: true) {
                say("geocode: warning: \(warning)\n")
            }
        }
        do throws(CLIError) {
            if !setup.preamble.isEmpty { try sink.write(setup.preamble) }
            let pipeline = BatchPipeline(threads: options.threads, chunkBytes: options.chunkBytes,
                                         chunkRecords: options.chunkRecords)
            let readerFinished = try pipeline.run(framer: setup.framer, pending: setup.pending,
                             processor: ChunkProcessor(schema: setup.schema, lookup: lookup)) { chunk throws(CLIError) -> Bool in
                if options.strict, let problem = chunk.problems.first {
                    writerStopped = true
                    // What the rows up to the bad one had is said, in this chunk too, the bad row's own
                    // warnings included (its key without a column, its altitude: what the user fixes
                    // along with it); then its message ends the run. The rows after it were never reached.
                    say(warnings(chunk.notices.filter { $0.row <= problem.rowIndex }))
                    // Streaming to stdout, the rows before the bad one are already promised; send exactly those.
                    if options.writesStandardOutput, problem.rowIndex > 0 {
                        try sink.write(Array(chunk.output[..<chunk.rowEnds[problem.rowIndex - 1]]))
                    }
                    statistics.rows += problem.rowIndex
                    strictFailure = problem
                    return false
                }
                do throws(CLIError) {
                    try sink.write(chunk.output)
                } catch {
                    // What the input had is said however the run ends.
                    writerStopped = true
                    say(warnings(chunk.notices))
                    throw error
                }
                statistics.add(chunk)
                var report = ""
                for problem in chunk.problems {
                    report += "\(options.inputName):\(problem.line): bad row: \(problem.message)\n"
                }
                say(report + warnings(chunk.notices))
                progress.update(rows: statistics.rows, bytes: chunk.inputOffset)
                return true
            }
            if !readerFinished { closeInput = false }
            if let problem = strictFailure {
                let target = options.writesStandardOutput ? "" : "; \(options.outputPath!) not written"
                throw CLIError(.badInput, "\(options.inputName):\(problem.line): bad row: \(problem.message) "
                               + "(stopped at the first bad row: --strict\(target))")
            }
            sayTrailingMembers()
            try sink.write(setup.closing(setup.framer.trailer))
            try sink.commit()
        } catch {
            // A framing error ended the input (the reader has finished): members the collection has after
            // its features, read before the error, are said too.
            if !writerStopped { sayTrailingMembers() }
            progress.clear()
            sink.abandon()
            // A write error cancels the run; a reader on a FIFO may still be blocked reading it.
            if totalBytes == nil { closeInput = false }
            throw error
        }
        progress.clear()
        if !options.quiet {
            context.stderr.write("geocode: \(statistics.summary(seconds: progress.elapsed))\n")
        }
        // Not one row is a record of the format (CSV text read as NDJSON): the input is not what it was
        // read as, not a file with some bad rows, and exit 0 passed it down a pipeline as done (QA). Rows
        // that are records with bad or missing coordinates do not count: a Spark partition of null
        // coordinates is data, flagged row by row. The output is written all the same, every row flagged.
        if statistics.rows > 0 && statistics.unreadable == statistics.rows {
            throw CLIError(.badInput, "\(options.inputName): none of its \(statistics.rows) row\(statistics.rows == 1 ? "" : "s") is "
                           + "\(format.rowName) (each is flagged in \(setup.schema.errorName)); is it that format? (--format)")
        }
        return .success
    }

    /// `--format`, else IN's extension, else the content's (``BatchFormat/sniff(_:)``). An IN named
    /// `.json` is NDJSON, GeoJSON or a GeoJSON sequence by its content; content that is none of them is
    /// read as GeoJSON, whose error then says what the file lacks. Lines of JSON (`.ndjson`, `.jsonl`)
    /// whose first record is a Feature or a Point (or starts with an RS) are a GeoJSON sequence, whose
    /// records would all lack a "lat" as NDJSON; a `.geojson` file that is such a sequence reads as one.
    private func inputFormat(_ input: ByteInput) throws(CLIError) -> BatchFormat {
        if let format = options.format { return format }
        let path = options.readsStandardInput ? nil : InputStack.strippingCompression(options.inputPath!)
        let byContent: BatchFormat
        if let path, let named = BatchFormat(path: path) {
            switch named {
            case .ndjson: byContent = BatchFormat.startsSequence(try head(input)) ? .geojsonseq : .ndjson
            case .geojson: return BatchFormat.sniff(try head(input)) == .geojsonseq ? .geojsonseq : .geojson
            default: return named
            }
        } else {
            let sniffed = BatchFormat.sniff(try head(input))
            if let path, BatchFormat.isJSON(path: path), !sniffed.isJSON { return .geojson }
            byContent = sniffed
        }
        // Keys named for NDJSON (`--coords geometry.coordinates --lon-first`) read Feature lines as the
        // NDJSON they also are, as before sequences were read; RS-separated records are no NDJSON.
        if byContent == .geojsonseq, options.latColumn != nil || options.lonColumn != nil || options.coordsColumn != nil,
           !BatchFormat.startsWithRecordSeparator(try head(input)) {
            return .ndjson
        }
        return byContent
    }

    /// The input's first bytes for sniffing: at least 4 KiB, and on to the end of the first line that is
    /// not blank (a Feature with many properties is longer than 4 KiB), up to 1 MiB.
    private func head(_ input: ByteInput) throws(CLIError) -> [UInt8] {
        var size = 4096
        while true {
            let head = try input.peek(size)
            if head.count < size || size >= 1 << 20 || BatchFormat.hasFirstLine(head) { return head }
            size *= 4
        }
    }

    /// `--output-format`, else OUT's extension, else the input's format. OUT named `.json` keeps a JSON
    /// input's format (NDJSON stays line by line, GeoJSON a FeatureCollection), and OUT named `.ndjson`
    /// or `.jsonl` a GeoJSON sequence's (a Feature a line); from CSV/TSV nothing says
    /// which of the two JSON formats is meant (a `.json` user may load it whole, which NDJSON is not, or
    /// stream it, which a FeatureCollection is not), so the user is asked, before any work.
    private func outputFormat(input: BatchFormat) throws(CLIError) -> BatchFormat {
        if let format = options.outputFormat { return format }
        guard !options.writesStandardOutput else { return input }
        let path = InputStack.strippingCompression(options.outputPath!)
        if let named = BatchFormat(path: path) {
            // A name for lines of JSON says nothing of what each line is: a sequence of Features stays one.
            if named == .ndjson && input == .geojsonseq { return .geojsonseq }
            return named
        }
        guard BatchFormat.isJSON(path: path) else { return input }
        guard input.isJSON else {
            throw .usage("\(options.outputPath!): a .json file may be GeoJSON or NDJSON; say which with --output-format geojson "
                         + "(one FeatureCollection) or --output-format ndjson (one object per line), or name it .geojson or .ndjson")
        }
        return input
    }

    /// stdout, a device or FIFO given as OUT (written directly: nothing to rename), or an atomic file.
    private func openSink() throws(CLIError) -> any OutputSink {
        guard !options.writesStandardOutput, let path = options.outputPath else { return StandardOutputSink() }
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            if type == S_IFDIR { throw .io("cannot write \(path): it is a directory") }
            if type != S_IFREG {
                let fd = open(path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw .io("cannot open \(path): \(FileDescriptorIO.message(errno))") }
                return StandardOutputSink(fd: fd, name: path)
            }
        }
        let file = try AtomicFileSink(destination: path)
        // OUT.gz: compressed on the way into the temporary file, so the rename still publishes it whole.
        if InputStack.compression(ofPath: path) == .gzip { return try GzipOutputSink(wrapping: file) }
        if InputStack.compression(ofPath: path) == .zstd {
            file.abandon()
            throw .usage("\(path): zstd output is not supported (write .gz, or pipe through zstd)")
        }
        return file
    }
}
