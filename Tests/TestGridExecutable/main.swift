// `geocode-testgrid`: the `geocode` executable with the grid test double (TestSupport's GridTestLookup)
// in place of the engine, so the CLI's binary tests run the real command code end to end without data
// files. Not a product; built for the tests only. `GEOCODE_TEST_LOOKUP=engine` gives the real engine,
// for the binary tests that check the engine's own paths (data directory errors, `info`) in one harness.
import Foundation
import GeocodeCLI
import TestSupport

let environment = ProcessInfo.processInfo.environment
let lookup: LookupFactory = environment["GEOCODE_TEST_LOOKUP"] == "engine" ? .engine : .testGrid
InterruptCleanup.install()
let context = CommandContext(environment: environment, lookupFactory: lookup,
                             executablePath: DataDirectoryResolver.currentExecutablePath())
exit(GeocodeTool.run(arguments: Array(CommandLine.arguments.dropFirst()), context: context))
