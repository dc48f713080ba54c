import ReverseGeocoder

/// Output to an already open descriptor (stdout, or a device/FIFO given as `-o`): streamed, not atomic,
/// since there is nothing to rename.
final class StandardOutputSink: OutputSink {
    let fd: Int32
    let name: String

    init(fd: Int32 = 1, name: String = "<stdout>") {
        self.fd = fd
        self.name = name
    }

    func write(_ bytes: [UInt8]) throws(CLIError) {
        if let error = FileDescriptorIO.writeAll(fd, bytes) {
            throw .io("cannot write \(name): \(FileDescriptorIO.message(error))")
        }
    }

    func commit() throws(CLIError) {}
    func abandon() {}
}
