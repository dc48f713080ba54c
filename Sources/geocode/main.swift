// The `geocode` executable: everything lives in the GeocodeCLI library (so tests can reach it); this only
// connects it to the process.
import Foundation
import GeocodeCLI

let environment = ProcessInfo.processInfo.environment
StandardStreams.reserveClosed()
InterruptCleanup.install()
let context = CommandContext(environment: environment, lookupFactory: .engine,
                             executablePath: DataDirectoryResolver.currentExecutablePath())
exit(GeocodeTool.run(arguments: Array(CommandLine.arguments.dropFirst()), context: context))
