/// `geocode info`: the datasets in the data directory (names, levels, counts, datum, source, licence)
/// and the load time. A placeholder until the engine exposes `datasets` and `loadTime`.
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "Describe the datasets in the data directory (not available yet)."
    static let usage = "geocode info [--data DIR]"
    static let details = """
        This command needs the engine's dataset list and is not available in this version yet.

        Example (planned):
          geocode info --data ./Data
        """
    static let options: [OptionSpec] = [.data, .help]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        throw CLIError(.usage, "geocode info is not available yet")
    }
}
