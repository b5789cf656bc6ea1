import Foundation
import Lift

/// The process around a `lift` command: where text and bytes go, and how images are processed.
/// The real one talks to the terminal and runs the model; tests can substitute any part.
public struct CommandEnvironment {
    /// Writes bytes to standard output; throws when they cannot all be written (`StandardStream.WriteError`).
    public var writeStandardOutput: ([UInt8]) throws -> Void
    /// Writes text to standard error.
    public var writeStandardError: @Sendable (String) -> Void
    /// Whether standard input is a terminal (reading an image from it is refused).
    public var standardInputIsTerminal: Bool
    /// Whether standard output is a terminal (binary output there is refused).
    public var standardOutputIsTerminal: Bool
    /// Whether standard error is a terminal (a progress bar is drawn there for batches).
    public var standardErrorIsTerminal: Bool
    /// Terminal width in columns, for the progress bar.
    public var terminalWidth: Int
    /// The file system used for planning.
    public var fileSystem: any FileSystemView
    /// Builds the per-image processing function once per run (this is where weights are loaded).
    public var makeProcessor: (CutoutOptions, CommandEnvironment) throws -> (ImageJob) throws -> ImageReport

    /// An environment from its parts.
    public init(writeStandardOutput: @escaping ([UInt8]) throws -> Void, writeStandardError: @escaping @Sendable (String) -> Void,
                standardInputIsTerminal: Bool, standardOutputIsTerminal: Bool, standardErrorIsTerminal: Bool, terminalWidth: Int,
                fileSystem: any FileSystemView,
                makeProcessor: @escaping (CutoutOptions, CommandEnvironment) throws -> (ImageJob) throws -> ImageReport) {
        self.writeStandardOutput = writeStandardOutput
        self.writeStandardError = writeStandardError
        self.standardInputIsTerminal = standardInputIsTerminal
        self.standardOutputIsTerminal = standardOutputIsTerminal
        self.standardErrorIsTerminal = standardErrorIsTerminal
        self.terminalWidth = terminalWidth
        self.fileSystem = fileSystem
        self.makeProcessor = makeProcessor
    }
}
