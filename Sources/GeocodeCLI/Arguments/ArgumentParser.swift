/// Splits a command line into options and positional arguments, the GNU way, without outside packages.
///
/// Accepted forms: `--opt value`, `--opt=value`, `-o value`, `-ovalue`, bundled flags (`-qj`), `--` to end
/// options, `-` as a positional (stdin/stdout). Options and positionals may be mixed in any order.
///
/// A token that starts with `-` followed by a digit or a dot (`-33.86`, `-.5`) is a positional number,
/// never an option: no option is a digit, and `geocode -33.86 151.2` must just work.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], options: [OptionSpec]) throws(CLIError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") || looksLikeNumber(arg) {
                result.positionals.append(arg)
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name: Substring, inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = body[..<eq]
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = body
                    inline = nil
                }
                guard let spec = options.first(where: { $0.long == name || $0.aliases.contains(String(name)) }) else {
                    throw .usage("unknown option --\(name)" + suggestion(for: String(name), in: options))
                }
                if spec.takesValue {
                    if let inline {
                        result.values[spec.long, default: []].append(inline)
                    } else if index < arguments.count {
                        result.values[spec.long, default: []].append(arguments[index])
                        index += 1
                    } else {
                        throw .usage("option --\(spec.long) needs a value (\(spec.valueName!))")
                    }
                } else {
                    if inline != nil { throw .usage("option --\(spec.long) takes no value") }
                    result.flags.insert(spec.long)
                }
                continue
            }
            // Short option(s): -o FILE, -oFILE, -qj.
            var letters = Substring(arg.dropFirst())
            while let letter = letters.first {
                letters = letters.dropFirst()
                guard let spec = options.first(where: { $0.short == letter }) else {
                    throw .usage("unknown option -\(letter)" + suggestion(for: String(letter), in: options))
                }
                if spec.takesValue {
                    if !letters.isEmpty {
                        result.values[spec.long, default: []].append(String(letters))
                    } else if index < arguments.count {
                        result.values[spec.long, default: []].append(arguments[index])
                        index += 1
                    } else {
                        throw .usage("option -\(letter) needs a value (\(spec.valueName!))")
                    }
                    break
                }
                result.flags.insert(spec.long)
            }
        }
        return result
    }

    /// `-33.86`, `-.5`, `-1e3`: a negative number rather than an option.
    static func looksLikeNumber(_ arg: String) -> Bool {
        let utf8 = Array(arg.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "-") else { return false }
        let c = utf8[1]
        return (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".")
    }

    /// ", did you mean --threads?" when a known option is within two edits of what was typed.
    static func suggestion(for typed: String, in options: [OptionSpec]) -> String {
        let names = options.flatMap { [$0.long] + $0.aliases }
        let best = names.map { ($0, editDistance(typed, $0)) }.min { $0.1 < $1.1 }
        guard let (name, distance) = best, distance <= 2, distance < max(typed.count, 2) else { return "" }
        return " (did you mean --\(name)?)"
    }

    /// Levenshtein distance, for typo suggestions only (names are short, so quadratic is fine).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
