import Foundation
import Synchronization

/// Temporary files being written now (see `AtomicFile.removeTemporaryFiles(thenRaise:)`).
private let temporaryFilesInFlight = Mutex<Set<String>>([])

/// Writes files atomically: the bytes go to a temporary file in the destination's directory, which then
/// takes the destination's name (renamed over it, or linked when it may not be replaced), so a reader
/// never sees a half-written file, and of two writers racing for a name that may not be replaced
/// exactly one wins. A temporary file left by a killed process is found and removed by
/// `removeStaleTemporaryFiles(in:)`.
public enum AtomicFile {
    /// An error writing a file, naming the path and the system's reason.
    public struct WriteError: Error, CustomStringConvertible, Equatable {
        /// The destination path.
        public let path: String
        /// What went wrong, in words.
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `bytes` to `path` through a temporary file and `rename(2)` (or `link(2)`).
    ///
    /// A new file gets mode 0666 less the process's umask (as `cp` or `open(2)` would give it); a file
    /// replaced keeps its permission bits (not set-id bits, as `cp`; where the file system refuses, the
    /// new file keeps its own mode).
    /// - Parameter overwrite: when false and `path` exists, it is left alone and an error is thrown;
    ///   the final step is `link(2)`, which fails rather than replace a file created meanwhile (file
    ///   systems without hard links get a check and a rename instead).
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws(WriteError) {
        let (fd, tempPath) = try createTemporary(beside: path)
        defer { _ = temporaryFilesInFlight.withLock { $0.remove(tempPath) } }
        var failure = writeAll(bytes, to: fd)
        var existing = stat()
        if failure == nil, overwrite, stat(path, &existing) == 0 { _ = fchmod(fd, existing.st_mode & 0o777) }
        if failure == nil, fsync(fd) != 0 { failure = systemError() }
        // The descriptor (and with it the lock that tells `removeStaleTemporaryFiles` this file is
        // alive) stays open until the temporary name is gone.
        if failure == nil { failure = overwrite ? (rename(tempPath, path) == 0 ? nil : systemError()) : linkIfAbsent(tempPath, path) }
        if failure != nil || !overwrite { unlink(tempPath) }
        if close(fd) != 0, failure == nil { failure = systemError() }
        if let failure { throw WriteError(path: path, reason: failure) }
    }

    /// Whether `name` (a file name, not a path) is one of the temporary names `write` gives its files,
    /// `.NAME.lift.tmp-` and 1–8 lower-case hexadecimal digits, or one that earlier versions gave the
    /// files Lift writes (`.NAME.png.tmp-HEX`, `.NAME.json.tmp-HEX`); other programs' `.tmp-` files
    /// do not match.
    public static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards),
              marker.lowerBound > name.index(after: name.startIndex) else { return false }
        let suffix = name[marker.upperBound...], stem = name[..<marker.lowerBound]
        guard (1 ... 8).contains(suffix.count), suffix.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return false }
        return stem.hasSuffix(".lift") || stem.hasSuffix(".png") || stem.hasSuffix(".json")
    }

    /// How long a temporary file must have gone unmodified before `removeStaleTemporaryFiles` may
    /// take it for stale (a writer that could not lock it is still writing it, or just created it).
    public static let staleAfterSeconds = 2.0

    /// Removes the temporary files that an interrupted write (a process killed with SIGKILL, a
    /// machine that lost power) left in `directory`, and returns their paths.
    ///
    /// Only files with `write`'s temporary names are looked at, and only those no live process is
    /// writing: a writer holds an exclusive `flock(2)` on its temporary file from creation to
    /// rename, and the kernel drops it when the process dies. A file modified in the last
    /// `staleAfterSeconds` is left alone too (a writer between creating and locking it, or on a file
    /// system without `flock`). A directory that cannot be listed yields nothing.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: String) -> [String] {
        let directory = directory.isEmpty ? "." : directory
        guard let names = try? Directories.names(in: directory) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where isTemporaryName(name) {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let age = Double(now.tv_sec - status.st_mtim.tv_sec) + Double(now.tv_nsec - status.st_mtim.tv_nsec) / 1e9
            guard age >= staleAfterSeconds else { continue }
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// A new, empty file in `path`'s directory named after it (`.photo.png.lift.tmp-1a2b3c4d`; a long name is
    /// shortened so the temporary one stays within NAME_MAX), opened for writing with mode 0666 less the
    /// umask; returns the descriptor and the file's path.
    private static func createTemporary(beside path: String) throws(WriteError) -> (Int32, String) {
        let directory = PathText.directory(of: path)
        var base = PathText.name(of: path)
        while base.utf8.count > 200 { base.removeLast() }
        for _ in 0 ..< 100 {
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let tempPath = PathText.join(directory, ".\(base).lift.tmp-\(suffix)")
            let fd = temporaryFilesInFlight.withLock { inFlight in
                let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                if fd >= 0 {
                    _ = flock(fd, LOCK_EX | LOCK_NB)  // a new file: nobody else holds it (see removeStaleTemporaryFiles)
                    inFlight.insert(tempPath)
                }
                return fd
            }
            if fd >= 0 { return (fd, tempPath) }
            if errno != EEXIST { throw WriteError(path: path, reason: systemError()) }
        }
        throw WriteError(path: path, reason: "could not create a temporary file beside it")
    }

    /// Writes every byte to `fd`, retrying short writes and interruptions; the system's reason on failure.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return nil }  // nothing to write
            var written = 0
            while written < raw.count {
                let n = Foundation.write(fd, start + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return systemError()
                }
                written += n
            }
            return nil
        }
    }

    /// Gives the finished temporary file the name `path` unless something has it by now: `link(2)`
    /// fails rather than replace. On file systems without hard links, a checked `rename(2)`.
    private static func linkIfAbsent(_ tempPath: String, _ path: String) -> String? {
        if link(tempPath, path) == 0 { return nil }
        switch errno {
        case EEXIST: return "file exists"
        case EPERM, EOPNOTSUPP, EMLINK, ENOSYS:
            if Directories.exists(path) { return "file exists" }
            return rename(tempPath, path) == 0 ? nil : systemError()
        default: return systemError()
        }
    }

    /// Removes the temporary files being written and ends the process by `signal` with its default
    /// action, for a handler of SIGINT, SIGTERM or SIGHUP: an interrupted run leaves no `.NAME.tmp-…`
    /// behind (a file that already has its final name stays: it is complete).
    /// Holds the lock to the end, so no write starts a new temporary file meanwhile.
    public static func removeTemporaryFiles(thenRaise signal: Int32) -> Never {
        temporaryFilesInFlight.withLock { inFlight in
            for path in inFlight { unlink(path) }
            Foundation.signal(signal, SIG_DFL)
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, signal)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)  // Dispatch's threads block signals
            raise(signal)
            _exit(128 + signal)  // not reached: the default action of the signals handled ends the process
        }
    }

    /// The C library's message for the current `errno`.
    private static func systemError() -> String {
        guard let message = strerror(errno) else { return "error \(errno)" }
        return String(validatingCString: message) ?? "error \(errno)"
    }
}
