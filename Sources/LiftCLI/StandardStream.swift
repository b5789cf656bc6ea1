import Foundation

/// Writing bytes to the process's standard output or standard error through the file descriptor,
/// so that a full disk or a closed pipe is an error the caller reports, not a silent loss or a crash.
public enum StandardStream {
    /// A write that did not complete: which stream and the system's reason (`No space left on device`,
    /// `Broken pipe` for a reader that went away).
    public struct WriteError: Error, Equatable, CustomStringConvertible {
        /// `standard output` or `standard error`.
        public var stream: String
        /// The system's text for the error.
        public var reason: String

        public var description: String { "cannot write \(stream): \(reason)" }

        /// Whether the reader went away (`EPIPE`), as when `lift --help | head` stops reading early.
        public var isBrokenPipe: Bool { reason == String(cString: strerror(EPIPE)) }
    }

    /// Writes every byte of `bytes` to `descriptor` (`STDOUT_FILENO` or `STDERR_FILENO`), retrying
    /// short and interrupted writes. `SIGPIPE` must be ignored for a closed pipe to come back as an error.
    public static func write(_ bytes: [UInt8], to descriptor: Int32) throws(WriteError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                if written < 0 { return errno }
                if written == 0 { return EIO }
                offset += written
            }
            return nil
        }
        if let failure {
            throw WriteError(stream: descriptor == STDERR_FILENO ? "standard error" : "standard output",
                             reason: String(cString: strerror(failure)))
        }
    }
}
