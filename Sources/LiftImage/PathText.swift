/// Path arithmetic on the UTF-8 bytes of plain strings with `/` separators, with no file-system
/// access and no Foundation path call (some of which trap on one-character names such as `m`, `.`
/// or `a/`): every function takes any string, the empty one, `/`, `..` and trailing slashes
/// included, and returns a string.
public enum PathText {
    private static let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")

    /// `path` without its last component: `a/b.png` → `a`, `/x` → `/`, `m` → `.`, `a/` → `a`,
    /// `/` → `/`, `""` → `.`.
    public static func directory(of path: String) -> String {
        let bytes = path.utf8
        guard let slashIndex = bytes.lastIndex(of: slash) else { return "." }
        return slashIndex == bytes.startIndex ? "/" : String(path[..<slashIndex])
    }

    /// The last component of `path` (`""` when it ends in `/`).
    public static func name(of path: String) -> String {
        let bytes = path.utf8
        guard let slashIndex = bytes.lastIndex(of: slash) else { return path }
        return String(path[bytes.index(after: slashIndex)...])
    }

    /// The last component without its extension (`a/b/photo.jpg` → `photo`; `.hidden`, `.` and `..` stay).
    public static func stem(of path: String) -> String {
        let name = name(of: path)
        guard let dotIndex = extensionDot(in: name) else { return name }
        return String(name[..<dotIndex])
    }

    /// The lower-cased extension without the dot, or `""` (none for `.hidden`, `.` or `..`).
    public static func fileExtension(of path: String) -> String {
        let name = name(of: path)
        guard let dotIndex = extensionDot(in: name) else { return "" }
        return name[name.utf8.index(after: dotIndex)...].lowercased()
    }

    /// `directory` and `name` joined with exactly one `/` (`name` alone when `directory` is `""` or `.`).
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || directory == "." { return name }
        return directory.utf8.last == slash ? directory + name : directory + "/" + name
    }

    /// `path` made absolute against `currentDirectory` (itself absolute) and normalised by its text
    /// alone: `.` components and empty ones (`//`) dropped, `..` removing the component before it
    /// (never above `/`), no trailing slash. Symbolic links are not looked at.
    public static func standardized(_ path: String, currentDirectory: String) -> String {
        let absolute = path.utf8.first == slash ? path : join(currentDirectory, path)
        var parts: [Substring] = []
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The dot that starts the extension of the file name `name`: the last one, unless it is the
    /// first byte (a hidden file) or `name` is `..`.
    private static func extensionDot(in name: String) -> String.Index? {
        let bytes = name.utf8
        guard name != "..", let dotIndex = bytes.lastIndex(of: dot), dotIndex != bytes.startIndex else { return nil }
        return dotIndex
    }
}
