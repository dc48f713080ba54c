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
}
