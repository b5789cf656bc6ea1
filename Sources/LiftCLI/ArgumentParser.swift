import LiftPipeline

/// A declared command-line option: a long name, an optional one-letter short name, and whether it
/// takes a value (`--output PATH`) or is a flag (`--force`).
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes (`"output"` for `--output`).
    public let long: String
    /// The short name without the dash (`"o"` for `-o`), if any.
    public let short: Character?
    /// The placeholder shown in help for the value (`"PATH"`); `nil` for a flag.
    public let valueName: String?
    /// One line of help text.
    public let help: String

    /// Declares an option; a non-nil `valueName` makes it take a value.
    public init(_ long: String, short: Character? = nil, value valueName: String? = nil, help: String) {
        precondition(!long.isEmpty && !long.hasPrefix("-"), "long option names are given without dashes")
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
    }

    /// Whether the option takes a value.
    public var takesValue: Bool { valueName != nil }

    /// How the option is shown in errors: `--output` (or `-o` when given that way).
    public var displayName: String { "--\(long)" }
}

extension OptionSpec {
    /// Lift's command-line spelling of a cut-out option (`--background`, `-b`); `nil` for an option
    /// only rembg has.
    init?(lift option: CutoutOption) {
        guard let name = option.name else { return nil }
        self.init(name, short: option.short, value: option.valueName, help: option.help)
    }
}

/// A small POSIX/GNU-style argument parser.
///
/// Accepts `--name value`, `--name=value`, `-n value`, `-nvalue`, clustered short flags (`-rfq`),
/// `-` as a positional (standard input) and `--` to end options. A value may itself be `-`
/// (`-o -`), but a missing value followed by another option is reported rather than swallowed.
public struct ArgumentParser: Sendable {
    /// The options this parser accepts.
    public let options: [OptionSpec]

    /// A parser for `options`; long and short names must be unique.
    public init(options: [OptionSpec]) {
        precondition(Set(options.map(\.long)).count == options.count, "duplicate long option name")
        let shorts = options.compactMap(\.short)
        precondition(Set(shorts).count == shorts.count, "duplicate short option name")
        self.options = options
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        func record(_ spec: OptionSpec, value: String?) {
            if let value { result.values[spec.long, default: []].append(value) } else { result.flags.insert(spec.long) }
        }
        /// The value for `spec` taken from the next argument, which must exist and not look like an option.
        func nextValue(for name: String) throws(UsageError) -> String {
            guard index + 1 < arguments.count, !looksLikeOption(arguments[index + 1]) else {
                throw .missingValue(option: name)
            }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result.positionals.append(contentsOf: arguments[(index + 1)...])
                break
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inlineValue = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                guard let spec = options.first(where: { $0.long == name }) else {
                    throw .unknownOption("--\(name)", suggestion: suggestion(for: name))
                }
                if spec.takesValue {
                    let value = if let inlineValue { inlineValue } else { try nextValue(for: "--\(name)") }
                    record(spec, value: value)
                } else {
                    if inlineValue != nil { throw .unexpectedValue(option: "--\(name)") }
                    record(spec, value: nil)
                }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    guard let spec = options.first(where: { $0.short == letter }) else {
                        throw .unknownOption("-\(letter)", suggestion: nil)
                    }
                    if spec.takesValue {
                        let attached = letters.hasPrefix("=") ? letters.dropFirst() : letters
                        let value = if attached.isEmpty { try nextValue(for: "-\(letter)") } else { String(attached) }
                        record(spec, value: value)
                        break
                    }
                    record(spec, value: nil)
                }
            } else {
                result.positionals.append(argument)
            }
            index += 1
        }
        return result
    }

    /// True for `--x`, `-x` (but not `-` alone, and not a value starting with a minus sign and a digit,
    /// such as `-5` or `-5,3`: no option is a digit, so the option's own check can say what is wrong).
    private func looksLikeOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), let second = argument.dropFirst().first else { return false }
        return !(second.isASCII && (second.isNumber || second == "."))
    }

    /// The closest long option to a mistyped `name` (edit distance ≤ 2, or a unique prefix).
    func suggestion(for name: String) -> String? {
        let prefixed = options.filter { $0.long.hasPrefix(name) }
        if !name.isEmpty, prefixed.count == 1 { return prefixed[0].displayName }
        let scored = options.map { (spec: $0, distance: editDistance(name, $0.long)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 2 else { return nil }
        return best.spec.displayName
    }
}

/// Levenshtein distance between two strings, by characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
