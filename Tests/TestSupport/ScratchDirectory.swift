import Foundation

/// A fresh, uniquely named temporary directory for a test's files; call `remove()` when done
/// (usually `defer { scratch.remove() }`).
public struct ScratchDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// The directory's path.
    public var path: String { url.path }

    /// Creates `<temporary directory>/<prefix>-<UUID>`.
    public init(prefix: String = "lift-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies a fixture (relative to `Tests/Fixtures`) to `name` inside the directory.
    public func copyFixture(_ fixture: String, to name: String) throws {
        let destination = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.url(fixture), to: destination)
    }

    /// Writes `bytes` to `name` inside the directory, creating missing parents.
    public func write(_ bytes: [UInt8], to name: String) throws {
        let destination = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: destination)
    }

    /// Whether `name` exists inside the directory.
    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
