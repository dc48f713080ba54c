/// The error a framer threw, which every later call throws again (``RecordFramer``): one rule for the
/// four framers. A framer checks it before framing, and keeps what framing threw:
///
///     try failure.check()
///     do throws(CLIError) { return try frameChunk(...) } catch { throw failure.keep(error) }
///
/// GeoJSON keeps an error without throwing it when whole features came before it: they go out first.
struct FramingFailure {
    private var error: CLIError?

    /// Throws the kept error, if a call failed before.
    func check() throws(CLIError) {
        if let error { throw error }
    }

    /// Keeps `error` for every later call, and returns it (to throw now).
    @discardableResult
    mutating func keep(_ error: CLIError) -> CLIError {
        self.error = error
        return error
    }

    /// `input.fill()` for a line framer: true when more was read, false at the end of the input; nil when
    /// the read failed (a truncated gzip, an I/O error, a record past the size limit) after whole records
    /// were framed (`framed`): the error is kept for the next call, and the caller hands those out first,
    /// as when its chunk had ended just before the failure. With none framed, the error is thrown.
    mutating func fill(_ input: ByteInput, framed: Bool) throws(CLIError) -> Bool? {
        do throws(CLIError) {
            return try input.fill()
        } catch {
            guard framed else { throw error }
            keep(error)
            return nil
        }
    }
}
