/// One `lift` command: the cut-out action (`lift INPUT...`) or a sub-command named by the first
/// argument (`lift convert …`). Each runs from its arguments to an exit status in a
/// `CommandEnvironment`, so tests run it in process.
public protocol Subcommand {
    /// The first argument that selects it (`convert`); empty for the cut-out action, the default.
    static var name: String { get }
    /// Whether it takes SIGINT, SIGTERM and SIGHUP itself (`serve` drains); for the others the
    /// process removes the temporary files being written and ends by the signal (`SignalCleanup`).
    static var handlesSignals: Bool { get }
    /// Runs with `arguments` (after the sub-command's name) and returns the exit status: 0 done,
    /// 1 failed, 2 usage error.
    static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32
}

extension Subcommand {
    public static var handlesSignals: Bool { false }
}

/// The `lift` executable's dispatcher: which command a command line runs.
public enum LiftCommand {
    /// The sub-commands, selected by their name as the first argument.
    public static var subcommands: [any Subcommand.Type] {
        [ServeCommand.self, ConvertCommand.self, InfoCommand.self, ImportCommand.self, RembgFileCommand.self, RembgFolderCommand.self, RembgStreamCommand.self, RembgServeCommand.self]
    }

    /// The command `arguments` (without the program name) select, and the arguments it takes: a
    /// sub-command's name is consumed; anything else is the cut-out action's.
    public static func command(for arguments: [String]) -> (command: any Subcommand.Type, arguments: [String]) {
        guard let first = arguments.first, let command = subcommands.first(where: { $0.name == first }) else {
            return (CutoutAction.self, arguments)
        }
        return (command, Array(arguments.dropFirst()))
    }

    /// Runs the command `arguments` select and returns its exit status.
    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let (command, rest) = command(for: arguments)
        return command.run(rest, environment: environment)
    }
}
