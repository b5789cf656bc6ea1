// How `lift convert` and `lift info` read their input and report failures on standard error.
import Foundation
import Lift
import LiftCLI

/// Prints `lift COMMAND: message` (escaped: `TerminalText`) and the usage line to standard error; returns exit code 2.
func usageFailure(_ command: String, _ message: String) -> Int32 {
    reportOnStandardError("lift \(command): \(TerminalText.escaped(message))\nRun 'lift \(command) --help' for usage.\n")
    return 2
}

/// Prints a sub-command's help on standard output; returns its exit status (`HelpText.emit`).
func printHelp(_ text: String) -> Int32 {
    HelpText.emit(text, write: { bytes in try StandardStream.write(bytes, to: STDOUT_FILENO) }, report: reportOnStandardError)
}

/// Prints `lift COMMAND: <the error's sentence>` (escaped: `TerminalText`) to standard error, naming
/// `path` unless the error already does (`LiftError`s carry their path); returns exit code 1.
func commandFailure(_ command: String, _ error: Error, path: String? = nil) -> Int32 {
    let named = error is LiftError || path == nil ? "\(error)" : "\(path == "-" ? "<stdin>" : path ?? ""): \(error)"
    reportOnStandardError("lift \(command): \(TerminalText.escaped(named))\n")
    return 1
}

/// The bytes of an input path, `-` meaning standard input; capped at `ImageFiles.maxFileBytes`.
func readInput(_ path: String) throws(LiftError) -> [UInt8] {
    path == "-" ? try ImageFiles.readStandardInput() : try ImageFiles.readFile(path)
}

/// Writes `text` to standard error; a failure there has nowhere to be reported and is ignored
/// (`FileHandle.write` would trap on it).
func reportOnStandardError(_ text: String) {
    try? StandardStream.write(Array(text.utf8), to: STDERR_FILENO)
}
