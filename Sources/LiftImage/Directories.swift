import Foundation

/// Listing and creating directories through the system's calls (`opendir`, `mkdir`, `getcwd`), so
/// that no user-given path reaches a Foundation path method (some trap on short names).
public enum Directories {
    /// Why a directory could not be listed or created: the path and the system's reason.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// The directory.
        public let path: String
        /// The system's sentence (`Permission denied`, `Not a directory`…).
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The names in directory `path` (not `.` nor `..`), in the order the system gives them; a name
    /// whose bytes are not UTF-8 comes back with U+FFFD in their place (and so names no file).
    public static func names(in path: String) throws(Failure) -> [String] {
        guard let stream = opendir(path) else { throw Failure(path: path, reason: systemReason()) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates directory `path` and every missing directory above it (as `mkdir -p`), mode 0777 less
    /// the umask; nothing to do when it exists.
    /// - Throws: `Failure` naming the first directory that could not be made (or a file in the way).
    public static func create(_ path: String) throws(Failure) {
        var prefix = path.utf8.first == UInt8(ascii: "/") ? "/" : ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix = prefix.isEmpty || prefix.utf8.last == UInt8(ascii: "/") ? prefix + part : prefix + "/" + part
            if mkdir(prefix, 0o777) == 0 { continue }
            let error = errno
            var status = stat()
            guard error == EEXIST, stat(prefix, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw Failure(path: prefix, reason: error == EEXIST ? "it exists and is not a directory" : systemReason(error))
            }
        }
    }

    /// Whether something (a file, a directory, anything) exists at `path`; a dangling symbolic link counts.
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The process's working directory (`/` when it cannot be read, as after it was removed).
    public static func current() -> String {
        guard let buffer = getcwd(nil, 0) else { return "/" }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// The system's sentence for `error` (default: the current `errno`).
    private static func systemReason(_ error: Int32 = errno) -> String { String(cString: strerror(error)) }
}
