import LiftPipeline

/// Command lines of rembg's verbs (`rembg i -m u2netp -om -bgc 255 255 255 255 in.png out.png`):
/// one-dash flags of several letters and their long forms (`--only-mask`, `--model=NAME`), values as
/// separate words (`-bgc` takes four, joined with commas). Options are those of `CutoutOption.table`
/// with a rembg spelling, plus the verb's own; they are stored under their key as `ParsedArguments`.
struct RembgArguments {
    /// One flag: its spellings, the key it is stored under, and how many words its value takes.
    struct Flag {
        let short: String
        let long: String
        let key: String
        let words: Int
    }

    /// The verb's own flags (`-o PATTERN` of `b`, `-w` of `p`) besides rembg's cut-out options and `-h`.
    let flags: [Flag]

    /// The parser for a verb with `own` flags.
    init(own: [Flag] = []) {
        flags = own + [Flag(short: "-h", long: "--help", key: "help", words: 0)]
            + CutoutOption.table.compactMap { option in
                option.rembg.map { Flag(short: $0.flag, long: $0.long, key: option.key, words: $0.words) }
            }
    }

    /// Parses `arguments` (after the verb's name); everything after `--` is positional.
    /// - Throws: `UsageError` for an unknown flag (with the nearest one), a missing value, or a
    ///   flag given twice.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                parsed.positionals += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            let (name, attached) = argument.hasPrefix("--") ? Self.split(argument) : (argument, nil)
            guard let flag = flags.first(where: { $0.short == name || $0.long == name }) else {
                throw .unknownOption(name, suggestion: flags.first { $0.long.hasPrefix(name) || $0.short.hasPrefix(name) }?.short)
            }
            guard flag.words > 0 else {
                if attached != nil { throw .unexpectedValue(option: name) }
                parsed.flags.insert(flag.key)
                continue
            }
            var words: [String] = attached.map { [$0] } ?? []
            while words.count < flag.words {
                guard index < arguments.count, !Self.looksLikeFlag(arguments[index]) else { throw .missingValue(option: name) }
                words.append(arguments[index])
                index += 1
            }
            if parsed.values[flag.key] != nil { throw .repeatedOption(name) }
            parsed.values[flag.key] = [words.joined(separator: ",")]
        }
        return parsed
    }

    /// `--name=value` split at the first `=`.
    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Whether a word is a flag rather than a value: starts with `-` and is not a number (`-1`).
    private static func looksLikeFlag(_ word: String) -> Bool {
        word.hasPrefix("-") && word.count > 1 && Double(word) == nil
    }

    /// A verb's help: its usage line, what it does, these flags, its exit codes.
    func help(usage: String, summary: [String], exitStatus: String) -> String {
        (["USAGE", "  " + usage, ""] + summary.map { "  " + $0 } + ["", "OPTIONS"] + helpLines + ["", "EXIT STATUS", "  " + exitStatus])
            .joined(separator: "\n") + "\n"
    }

    /// The help lines of these flags.
    private var helpLines: [String] {
        flags.map { flag in
            let help = flag.key == "help" ? "show this help" : CutoutOption.named(flag.key)?.help ?? ""
            let value = CutoutOption.named(flag.key)?.valueName.map { " " + $0 } ?? ""
            let left = "  \(flag.short), \(flag.long)\(value)"
            return left.count < 44 ? left + String(repeating: " ", count: 44 - left.count) + help : left + "\n" + String(repeating: " ", count: 44) + help
        }
    }
}
