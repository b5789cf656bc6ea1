import Foundation

extension CommandEnvironment {
    /// The real process: standard streams, the local file system, and `JobProcessor`.
    public static var process: CommandEnvironment {
        CommandEnvironment(
            writeStandardOutput: { bytes in try StandardStream.write(bytes, to: STDOUT_FILENO) },
            // Nowhere is left to report a failed write to standard error.
            writeStandardError: { text in try? StandardStream.write(Array(text.utf8), to: STDERR_FILENO) },
            standardInputIsTerminal: isatty(STDIN_FILENO) == 1,
            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1,
            standardErrorIsTerminal: isatty(STDERR_FILENO) == 1,
            terminalWidth: terminalColumns(),
            fileSystem: LocalFileSystem(),
            makeProcessor: { options, environment in
                try JobProcessor(options: options, writeStandardOutput: environment.writeStandardOutput).process
            })
    }

    /// Columns of the terminal on standard error (80 when unknown).
    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
