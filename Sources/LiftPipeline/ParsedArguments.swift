/// Options and positional arguments after parsing, as the command line gives them (`ArgumentParser`
/// in `LiftCLI`) or an HTTP request's fields do (switches as flags).
public struct ParsedArguments: Sendable, Equatable {
    /// Values of value-taking options, keyed by long name; more than one entry when repeated.
    public var values: [String: [String]] = [:]
    /// Flags that were given, keyed by long name.
    public var flags: Set<String> = []
    /// Positional arguments (after `--`, everything is positional).
    public var positionals: [String] = []

    /// Nothing given.
    public init() {}

    /// The single value of `option`, or `nil` when absent; throws when it was given more than once.
    public func value(_ option: String) throws(UsageError) -> String? {
        try value(option, spelled: "--\(option)")
    }

    /// `value(_:)`, naming the option as `spelled` when it was given more than once.
    public func value(_ option: String, spelled: String) throws(UsageError) -> String? {
        guard let given = values[option] else { return nil }
        if given.count > 1 { throw .repeatedOption(spelled) }
        return given.first
    }

    /// Whether the flag `option` was given.
    public func flag(_ option: String) -> Bool { flags.contains(option) }

    /// Whether `option` (flag or value option) was given at all.
    public func has(_ option: String) -> Bool { flags.contains(option) || values[option] != nil }
}
