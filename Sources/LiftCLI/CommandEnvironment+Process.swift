import Foundation

extension CommandEnvironment {
    /// The real process: standard streams, the local file system, and `CutoutPipeline`.
    public static var process: CommandEnvironment {
        CommandEnvironment(
            writeStandardOutput: { bytes in writeAll(bytes, to: STDOUT_FILENO) },
            writeStandardError: { text in writeAll(Array(text.utf8), to: STDERR_FILENO) },
            standardInputIsTerminal: isatty(STDIN_FILENO) == 1,
            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1,
            standardErrorIsTerminal: isatty(STDERR_FILENO) == 1,
            terminalWidth: terminalColumns(),
            fileSystem: LocalFileSystem(),
            makeProcessor: { options, environment in
                try CutoutPipeline(options: options, writeStandardOutput: environment.writeStandardOutput).process
            })
    }

    /// Writes every byte to the file descriptor, retrying short writes; a closed pipe ends silently.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Columns of the terminal on standard error (80 when unknown).
    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
