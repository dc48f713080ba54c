@testable import GeocodeCLI
import Testing

@Suite struct ArgumentParserTests {
    let options: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "OUT", help: ""),
        OptionSpec("threads", short: "j", value: "N", help: ""),
        OptionSpec("lat-col", aliases: ["lat-key"], value: "COL", help: ""),
        OptionSpec("quiet", short: "q", help: ""),
        OptionSpec("json", help: ""),
        .help,
    ]

    @Test func negativeNumbersArePositionals() throws {
        let parsed = try ArgumentParser.parse(["-33.86", "151.2"], options: options)
        #expect(parsed.positionals == ["-33.86", "151.2"])
        let more = try ArgumentParser.parse(["-.5", "-1e3", "--json"], options: options)
        #expect(more.positionals == ["-.5", "-1e3"])
        #expect(more.flag("json"))
    }

    @Test func longOptionForms() throws {
        let parsed = try ArgumentParser.parse(["--output=a.csv", "--threads", "2", "in.csv", "--lat-key", "y"], options: options)
        #expect(parsed.value("output") == "a.csv")
        #expect(parsed.value("threads") == "2")
        #expect(parsed.value("lat-col") == "y")
        #expect(parsed.positionals == ["in.csv"])
    }

    @Test func shortOptionForms() throws {
        let parsed = try ArgumentParser.parse(["-o", "a.csv", "-j2", "-qo", "b.csv"], options: options)
        #expect(parsed.values["output"] == ["a.csv", "b.csv"])
        #expect(parsed.value("output") == "b.csv")    // the last one wins
        #expect(parsed.value("threads") == "2")
        #expect(parsed.flag("quiet"))
    }

    @Test func dashIsStdinAndDoubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["-", "--", "--json", "-q"], options: options)
        #expect(parsed.positionals == ["-", "--json", "-q"])
        #expect(!parsed.flag("json"))
    }

    @Test func optionValueMayLookLikeAnOption() throws {
        // GNU getopt takes the next word as the value, whatever it looks like.
        let parsed = try ArgumentParser.parse(["--lat-col", "-1"], options: options)
        #expect(parsed.value("lat-col") == "-1")
    }

    @Test func errors() {
        #expect(throws: CLIError.usage("unknown option --thread (did you mean --threads?)")) {
            try ArgumentParser.parse(["--thread", "2"], options: options)
        }
        #expect(throws: CLIError.usage("option --threads needs a value (N)")) {
            try ArgumentParser.parse(["--threads"], options: options)
        }
        #expect(throws: CLIError.usage("option --json takes no value")) {
            try ArgumentParser.parse(["--json=yes"], options: options)
        }
        #expect(throws: CLIError.usage("unknown option -x")) {
            try ArgumentParser.parse(["-x"], options: options)
        }
    }
}
