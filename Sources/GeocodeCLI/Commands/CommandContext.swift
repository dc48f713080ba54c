import Foundation

/// What a command gets from the outside world: environment, the engine factory, where it runs from.
/// Passed in rather than read globally so tests can run commands with a fake engine.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var lookupFactory: LookupFactory
    /// The running executable, for finding the bundled data directory.
    public var executablePath: String?
    /// Where commands print; tests point these at files.
    var stdout = Console.standardOutput
    var stderr = Console.standardError

    public init(environment: [String: String], lookupFactory: LookupFactory, executablePath: String?) {
        self.environment = environment
        self.lookupFactory = lookupFactory
        self.executablePath = executablePath
    }

    /// The data directory the command uses (exit 4 when there is none).
    func dataDirectory(option: String?) throws(CLIError) -> URL {
        try DataDirectoryResolver.resolve(option: option, environment: environment, executablePath: executablePath)
    }

    /// Resolves the data directory and opens the lookup (exit 4 when either fails).
    func openLookup(dataOption: String?, load: QueryLoad = .onePoint) throws(CLIError) -> any GeocodeLookup {
        let directory: URL
        if lookupFactory.needsData {
            directory = try DataDirectoryResolver.resolve(option: dataOption, environment: environment,
                                                          executablePath: executablePath)
        } else {
            directory = URL(fileURLWithPath: dataOption ?? ".")
        }
        let lookup: any GeocodeLookup
        do {
            lookup = try lookupFactory.open(directory, load, environment)
        } catch {
            throw CLIError(.dataUnavailable, "cannot load data from \(directory.path): \(error)")
        }
        try LanguageOption.check(LanguageOption.tags(environment[LookupFactory.languageVariable]), against: lookup.datasets)
        return lookup
    }
}
