/// The result of parsing a command line against a list of ``OptionSpec``s.
public struct ParsedArguments: Sendable, Equatable {
    /// Positional arguments in order (`-` and negative numbers included, as typed).
    public var positionals: [String] = []
    /// Values per option's long name, in the order given (an option given twice keeps both).
    public var values: [String: [String]] = [:]
    /// Flags that were given, by long name.
    public var flags: Set<String> = []

    public init() {}

    /// The last value given for `long` (later options override earlier ones, as in most Unix tools).
    public func value(_ long: String) -> String? { values[long]?.last }

    /// Whether the flag `long` was given.
    public func flag(_ long: String) -> Bool { flags.contains(long) }

    /// For commands that take no positional argument: a usage error (exit 2) naming the first one.
    /// Ignoring it ran the command on something other than what the user named (`geocode info DIR`
    /// described the bundled data, exit 0). `suggesting`: the option the word most likely belonged
    /// to (`data` → "did you mean --data DIR?"), said the way the parser suggests a mistyped option.
    public func rejectPositionals(suggesting option: String? = nil) throws(CLIError) {
        guard let first = positionals.first else { return }
        throw .usage("unexpected argument \"\(first)\"" + (option.map { " (did you mean --\($0) \(first)?)" } ?? ""))
    }
}
