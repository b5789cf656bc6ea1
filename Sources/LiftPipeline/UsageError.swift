/// A mistake in how a cut-out was asked for: on the command line, where `lift` prints the sentence,
/// a pointer to `--help`, and exits with status 2 before touching any file; or in an HTTP
/// request's fields, answered 400 with the sentence. Options are named as the surface spells them.
public enum UsageError: Error, Equatable, CustomStringConvertible {
    /// An option that does not exist, with the closest real one if there is a near match.
    case unknownOption(String, suggestion: String?)
    /// A value-taking option at the end of the line or followed by another option.
    case missingValue(option: String)
    /// A flag given a value (`--force=yes`).
    case unexpectedValue(option: String)
    /// A single-value option given more than once.
    case repeatedOption(String)
    /// A value the option cannot take, and why.
    case invalidValue(option: String, value: String, expected: String)
    /// Two options that cannot be used together, and why.
    case conflictingOptions(String, String, reason: String)
    /// An option that only means something together with another one.
    case requiresOption(String, requires: String)
    /// No input was given.
    case missingInput
    /// The inputs and outputs do not fit together (e.g. several images to one output file).
    case invalidOutput(String)
    /// The `--files-from` list could not be read.
    case unreadableInputList(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownOption(let option, let suggestion):
            return "unknown option '\(option)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
        case .missingValue(let option):
            return "option '\(option)' needs a value"
        case .unexpectedValue(let option):
            return "option '\(option)' is a flag and takes no value"
        case .repeatedOption(let option):
            return "option '\(option)' was given more than once"
        case .invalidValue(let option, let value, let expected):
            return "invalid value '\(value)' for '\(option)': expected \(expected)"
        case .conflictingOptions(let first, let second, let reason):
            return "'\(first)' and '\(second)' cannot be used together: \(reason)"
        case .requiresOption(let option, let requires):
            return "'\(option)' only works together with '\(requires)'"
        case .missingInput:
            return "no input given; name image files or directories, or '-' for standard input"
        case .invalidOutput(let reason):
            return reason
        case .unreadableInputList(let path, let reason):
            return "cannot read the --files-from list \(path == "-" ? "<stdin>" : path): \(reason)"
        }
    }
}
