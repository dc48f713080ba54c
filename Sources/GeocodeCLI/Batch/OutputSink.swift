/// Where the batch output goes: stdout (streamed as produced) or a file (replaced atomically at the end).
protocol OutputSink: AnyObject {
    func write(_ bytes: [UInt8]) throws(CLIError)
    /// Everything was written: make it durable and visible.
    func commit() throws(CLIError)
    /// The run failed or was stopped: leave no trace (for a file: the previous OUT stays as it was).
    func abandon()
}
