/// Where ``ByteInput`` gets its bytes: the file itself, or a layer over it that decompresses or
/// transcodes. Each layer is a stream: it reads its source in blocks, so memory stays flat whatever the
/// input size.
protocol ByteSource: AnyObject {
    /// Reads up to `capacity` bytes into `buffer`. Returns 0 only at the end of the input.
    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int
}
