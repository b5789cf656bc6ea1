// How `lift convert` and `lift info` report failures on standard error.
import Foundation

/// Prints `lift COMMAND: message` and the usage line to standard error; returns exit code 2.
func usageFailure(_ command: String, _ message: String) -> Int32 {
    let usage = command == "convert" ? "lift convert [--fast] [--level N] [--keep-layout] INPUT OUTPUT.png" : "lift info FILE"
    FileHandle.standardError.write(Data("lift \(command): \(message)\nusage: \(usage)\n".utf8))
    return 2
}

/// Prints `lift COMMAND: <the error's sentence>` to standard error; returns exit code 1.
func commandFailure(_ command: String, _ error: Error) -> Int32 {
    FileHandle.standardError.write(Data("lift \(command): \(error)\n".utf8))
    return 1
}
