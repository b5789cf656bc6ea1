import Foundation

/// Writes files atomically: the bytes go to a temporary file in the destination's directory, which is
/// then renamed over the destination, so a reader never sees a half-written file.
public enum AtomicFile {
    /// An error writing a file, naming the path and the system's reason.
    public struct WriteError: Error, CustomStringConvertible, Equatable {
        /// The destination path.
        public let path: String
        /// What went wrong, in words.
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `bytes` to `path` through a temporary file and `rename(2)`.
    /// - Parameter overwrite: when false and `path` exists, nothing is written and an error is thrown.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws(WriteError) {
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw WriteError(path: path, reason: "file exists")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        let template = (directory.isEmpty ? "." : directory) + "/.\(base).tmp-XXXXXX"
        var templateBytes = Array(template.utf8CString)
        let fd = templateBytes.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw WriteError(path: path, reason: systemError()) }
        let tempPath = String(decoding: templateBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = 0
        var failure: String?
        bytes.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return }  // nothing to write
            while written < raw.count {
                let n = Foundation.write(fd, start + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = systemError(); return
                }
                written += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = systemError() }
        if failure == nil { fchmod(fd, 0o644) }
        close(fd)
        if failure == nil, rename(tempPath, path) != 0 { failure = systemError() }
        if let failure {
            unlink(tempPath)
            throw WriteError(path: path, reason: failure)
        }
    }

    /// The C library's message for the current `errno`.
    private static func systemError() -> String {
        guard let message = strerror(errno) else { return "error \(errno)" }
        return String(validatingCString: message) ?? "error \(errno)"
    }
}
