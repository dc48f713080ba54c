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
}
