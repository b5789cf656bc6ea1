import Foundation
import Lift

extension CommandEnvironment {
    /// Prints `lift COMMAND: message` (escaped: `TerminalText`) and the usage line to standard error;
    /// returns exit code 2.
    func usageFailure(_ command: String, _ message: String) -> Int32 {
        writeStandardError("lift \(command): \(TerminalText.escaped(message))\nRun 'lift \(command) --help' for usage.\n")
        return 2
    }

    /// Prints a sub-command's help on standard output; returns its exit status (`HelpText.emit`).
    func printHelp(_ text: String) -> Int32 {
        HelpText.emit(text, write: writeStandardOutput, report: writeStandardError)
    }

    /// Prints `lift COMMAND: <the error's sentence>` (escaped: `TerminalText`) to standard error,
    /// naming `path` unless the error already does (`LiftError`s carry their path); returns exit code 1.
    func failure(_ command: String, _ error: Error, path: String? = nil) -> Int32 {
        let named = error is LiftError || path == nil ? "\(error)" : "\(path == "-" ? "<stdin>" : path ?? ""): \(error)"
        writeStandardError("lift \(command): \(TerminalText.escaped(named))\n")
        return 1
    }

    /// Says that `lift COMMAND` removed each of `removed`, temporary files an interrupted run left.
    func reportRemoved(_ removed: [String], command: String) {
        for path in removed {
            writeStandardError("lift \(command): removed \(TerminalText.escaped(path)), a temporary file left by an interrupted run\n")
        }
    }
}

/// The bytes of an input path, `-` meaning standard input; capped at `ImageFiles.maxFileBytes`.
func readInput(_ path: String) throws(LiftError) -> [UInt8] {
    path == "-" ? try ImageFiles.readStandardInput() : try ImageFiles.readFile(path)
}
