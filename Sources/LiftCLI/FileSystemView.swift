import Foundation
import Lift

/// What kind of thing a path names.
public enum FileKind: Sendable, Equatable {
    case file, directory, missing
    /// Something that is neither a regular file nor a directory: a named pipe, a device, a socket
    /// (described as `ImageIO.nonRegularKind` does: "a named pipe (FIFO)"). Never read.
    case special(String)
}

/// The read-only view of the file system that output planning needs, so planning can be tested
/// against an in-memory tree.
public protocol FileSystemView: Sendable {
    /// Whether `path` is a file, a directory or nothing.
    func kind(of path: String) -> FileKind
    /// The names (not paths) inside the directory `path`, in any order.
    func contentsOfDirectory(_ path: String) throws -> [String]
    /// An absolute, normalised path with symbolic links resolved where they exist, used to decide
    /// whether two paths name the same file.
    func canonicalPath(_ path: String) -> String
}

/// The real file system, through `FileManager`.
public struct LocalFileSystem: FileSystemView {
    /// The process's file system.
    public init() {}

    /// Follows symbolic links (a link to a file is a file); a dangling link or a loop is `.missing`.
    public func kind(of path: String) -> FileKind {
        var status = stat()
        guard stat(path, &status) == 0 else { return .missing }
        if status.st_mode & S_IFMT == S_IFDIR { return .directory }
        return ImageIO.nonRegularKind(mode: status.st_mode).map(FileKind.special) ?? .file
    }

    public func contentsOfDirectory(_ path: String) throws -> [String] {
        try Directories.names(in: path)
    }

    /// The deepest existing ancestor resolved by `realpath` (every link on the way followed), with the
    /// components that do not exist yet appended: so an output still to be written through a linked
    /// directory compares equal to the same file named through the real one.
    public func canonicalPath(_ path: String) -> String {
        var existing = PathText.standardized(path, currentDirectory: Directories.current())
        var missing: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                return ([String(cString: resolved)] + missing).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
            }
            guard let slash = existing.lastIndex(of: "/"), existing != "/" else { return path }
            missing.insert(String(existing[existing.index(after: slash)...]), at: 0)
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
    }
}
