import ReverseGeocoder

/// The `geocode` command line tool: picks the command, parses its options, runs it, and turns errors
/// into messages on stderr and exit codes.
public enum GeocodeTool {
    public static let version = "0.1.0"

    /// Every command, in help order. `reverse` is also what a bare `geocode LAT LON` runs.
    static let commands: [CommandEntry] = [
        CommandEntry(ReverseCommand.self), CommandEntry(BatchCommand.self),
        CommandEntry(TrackCommand.self), CommandEntry(InfoCommand.self), CommandEntry(IndexCommand.self),
        CommandEntry(FieldsCommand.self),
    ]

    /// Runs the tool on `arguments` (without the program name) and returns the exit status.
    public static func run(arguments: [String], context: CommandContext) -> Int32 {
        var arguments = arguments
        // Options that may come before the command word and belong to every command.
        var leading: [String] = []
        while let first = arguments.first {
            if first == "--data", arguments.count >= 2 {
                leading += arguments.prefix(2)
                arguments.removeFirst(2)
            } else if first.hasPrefix("--data=") {
                leading.append(arguments.removeFirst())
            } else {
                break
            }
        }
        guard let first = arguments.first else {
            context.stderr.write(topLevelHelp)
            return ExitCode.usage.rawValue
        }
        switch first {
        case "--version", "-V", "version":
            context.stdout.write("geocode \(version)\n")
            return ExitCode.success.rawValue
        case "--help", "-h":
            context.stdout.write(topLevelHelp)
            return ExitCode.success.rawValue
        case "help":
            guard arguments.count > 1 else {
                context.stdout.write(topLevelHelp)
                return ExitCode.success.rawValue
            }
            guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                return fail(.usage("unknown command \"\(arguments[1])\""), command: nil, context: context)
            }
            context.stdout.write(command.help)
            return ExitCode.success.rawValue
        default:
            break
        }
        let command: CommandEntry
        if let named = commands.first(where: { $0.name == first }) {
            command = named
            arguments.removeFirst()
        } else if first.hasPrefix("-") || startsLikeNumber(first)
                    || (arguments.count == 2 && startsLikeNumber(arguments[1])) {
            // geocode LAT LON, geocode -33.86 151.2, geocode --json 1 2; and geocode abc 12 (a bad LAT, not a command)
            command = commands[0]
        } else {
            return fail(.usage("unknown command \"\(first)\" (commands: \(commands.map(\.name).joined(separator: ", ")))"),
                        command: nil, context: context)
        }
        return run(command, arguments: leading + arguments, context: context)
    }

    private static func run(_ command: CommandEntry, arguments: [String], context: CommandContext) -> Int32 {
        do {
            let parsed = try ArgumentParser.parse(arguments, options: command.options)
            if parsed.flag("help") {
                context.stdout.write(command.help)
                return ExitCode.success.rawValue
            }
            var context = context
            if parsed.flag("skip-broken-datasets") { context.environment[LookupFactory.skipBrokenVariable] = "1" }
            if parsed.flag("allow-modified-data") { context.environment[LookupFactory.allowModifiedVariable] = "1" }
            if command.options.contains(MaxDistanceOption.spec) {
                if let text = parsed.value(MaxDistanceOption.spec.long) {
                    let m = try MaxDistanceOption.parse(text, source: "--\(MaxDistanceOption.spec.long)")
                    context.environment[MaxDistanceOption.variable] = "\(m)"
                } else if let text = context.environment[MaxDistanceOption.variable] {
                    _ = try MaxDistanceOption.parse(text, source: MaxDistanceOption.variable)
                }
            }
            if let lang = parsed.value("lang") { context.environment[LookupFactory.languageVariable] = try LanguageOption.parse(lang) }
            if let view = parsed.value("worldview") {
                guard ReverseGeocoder.Worldview(rawValue: view) != nil else {
                    throw CLIError.usage("unknown worldview \"\(view)\" for --worldview (use iso or dataset)")
                }
                context.environment[LookupFactory.worldviewVariable] = view
            }
            if let borders = parsed.value(OptionSpec.borders.long) {
                guard LookupFactory.borderModes.contains(borders) else {
                    throw CLIError.usage("unknown \"\(borders)\" for --borders (use refined or polygons)")
                }
                context.environment[LookupFactory.bordersVariable] = borders
            }
            return try command.run(parsed, context).rawValue
        } catch let error as CLIError {
            return fail(error, command: command, context: context)
        } catch {
            return fail(CLIError(.ioError, "\(error)"), command: command, context: context)
        }
    }

    private static func fail(_ error: CLIError, command: CommandEntry?, context: CommandContext) -> Int32 {
        var text = "geocode: \(error.message)\n"
        if error.suggestHelp {
            text += "Try 'geocode \(command.map { $0.name + " " } ?? "")--help' for more information.\n"
        }
        context.stderr.write(text)
        return error.code.rawValue
    }

    private static func startsLikeNumber(_ text: String) -> Bool {
        guard let c = text.first else { return false }
        return c.isNumber || c == "." || c == "+" || c == "\u{2212}"   // U+2212: a typeset minus (DecimalNumber)
    }

    static var topLevelHelp: String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = commands.map { "  " + $0.name.padding(to: width) + "  " + $0.summary }.joined(separator: "\n")
        let codes = ExitCode.allCases.map { "  " + String($0.rawValue).padding(to: 4) + $0.meaning }.joined(separator: "\n")
        return """
            geocode \(version): offline reverse geocoding. Coordinates in; country, province, city, district out.

            Usage:
              geocode LAT LON [--json] [--datum DATUM]     the place of one point (same as geocode reverse)
              geocode batch [IN] [-o OUT] [options]        geocode a CSV, TSV, NDJSON or GeoJSON file
              geocode COMMAND --help                       help on a command (also: geocode help COMMAND)
              geocode --version

            Commands:
            \(list)

            Data directory (--data DIR, accepted by every command), first found of:
              1. --data DIR
              2. $\(DataDirectoryResolver.environmentVariable)
              3. Data/ next to the geocode executable
              4. ../share/geocode/Data relative to the executable
              5. Data/ of the Swift package the executable was built in (swift run, .build/…/geocode)

            A dataset folder that cannot be read or has shapefiles but no manifest.json, and a data file
            whose sha256 differs from its manifest, stop the command (exit 4); --skip-broken-datasets and
            --allow-modified-data (every command that loads data) make them warnings on stderr.

            Exit status:
            \(codes)

            Examples:
              geocode 39.9042 116.4074
              geocode -33.86 151.2 --json
              geocode batch points.csv -o placed.csv
              geocode batch --help

            """
    }
}
