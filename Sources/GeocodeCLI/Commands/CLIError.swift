/// An error that ends a command, with the exit code it maps to and a message for stderr.
///
/// Messages name what the user can act on: the option, or the file, line and field.
public struct CLIError: Error, CustomStringConvertible, Equatable {
    public var code: ExitCode
    public var message: String
    /// Whether to point the user at `--help` after the message (only for command-line mistakes).
    public var suggestHelp: Bool

    public init(_ code: ExitCode, _ message: String, suggestHelp: Bool = false) {
        self.code = code
        self.message = message
        self.suggestHelp = suggestHelp
    }

    /// A command-line mistake (exit 2).
    public static func usage(_ message: String) -> CLIError { CLIError(.usage, message, suggestHelp: true) }
    /// Bad data (exit 3).
    public static func badInput(_ message: String) -> CLIError { CLIError(.badInput, message) }
    /// An I/O failure (exit 5).
    public static func io(_ message: String) -> CLIError { CLIError(.ioError, message) }

    public var description: String { message }
}
