/// A `geocode` subcommand. Adding one (e.g. `track`) means writing a type like this and listing it in
/// ``GeocodeTool/commands``.
protocol Command: SendableMetatype {
    /// The word that selects the command (`batch`).
    static var name: String { get }
    /// One line for the top-level help.
    static var summary: String { get }
    /// Usage lines, shown at the top of the command's help.
    static var usage: String { get }
    /// Text after the options in the command's help: details and examples.
    static var details: String { get }
    static var options: [OptionSpec] { get }
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode
}

extension Command {
    /// The full `--help` text.
    static var help: String {
        var text = "Usage:\n" + usage.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n\n"
        text += summary + "\n\nOptions:\n"
        let width = options.map(\.synopsis.count).max() ?? 0
        for option in options {
            text += "  " + option.synopsis.padding(to: width) + "  " + option.help + "\n"
        }
        if !details.isEmpty { text += "\n" + details }
        return text.hasSuffix("\n") ? text : text + "\n"
    }
}
