// The `geocode` executable: everything lives in the GeocodeCLI library (so tests can reach it); this only
// connects it to the process.
import Foundation
import GeocodeCLI

let environment = ProcessInfo.processInfo.environment
// Hidden, test-only: GEOCODE_TEST_LOOKUP=grid swaps the engine for the deterministic GridTestLookup so the
// CLI's own tests can run the real binary without data files. Not documented in --help on purpose.
let lookup: LookupFactory = environment["GEOCODE_TEST_LOOKUP"] == "grid" ? .testGrid : .engine
StandardStreams.reserveClosed()
InterruptCleanup.install()
let context = CommandContext(environment: environment, lookupFactory: lookup,
                             executablePath: DataDirectoryResolver.currentExecutablePath())
exit(GeocodeTool.run(arguments: Array(CommandLine.arguments.dropFirst()), context: context))
