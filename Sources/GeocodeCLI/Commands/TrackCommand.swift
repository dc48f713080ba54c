/// `geocode track`: placemarks for a stream of positions (NMEA, GPX, gpsd) through the LocationManager.
/// A placeholder until LocationKit's manager and the engine are merged; the command name is reserved so
/// scripts get a clear message instead of "unknown command".
enum TrackCommand: Command {
    static let name = "track"
    static let summary = "Follow a stream of positions and print the place whenever it changes (not available yet)."
    static let usage = "geocode track [SOURCE] [options]"
    static let details = """
        This command needs the LocationManager and is not available in this version yet.

        Example (planned):
          geocode track /dev/ttyUSB0
        """
    static let options: [OptionSpec] = [.data, .help]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws(CLIError) -> ExitCode {
        throw CLIError(.usage, "geocode track is not available yet")
    }
}
