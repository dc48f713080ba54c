/// A command as the dispatcher lists it: its name, help and how to run it, captured from a ``Command``
/// type once (a plain value, so the registry is Sendable and needs no existential metatypes).
struct CommandEntry: Sendable {
    let name: String
    let summary: String
    let help: String
    let options: [OptionSpec]
    let run: @Sendable (ParsedArguments, CommandContext) throws -> ExitCode

    init<C: Command>(_ command: C.Type) {
        name = C.name
        summary = C.summary
        help = C.help
        options = C.options
        run = { arguments, context in try C.run(arguments, context: context) }
    }
}
