import Foundation

/// Locates committed test fixtures under `Tests/Fixtures/` in the source tree.
public enum Fixtures {
    /// The `Tests/Fixtures` directory of this checkout.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The URL of a fixture, `relativePath` below `Tests/Fixtures/`.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// The bytes of a fixture file.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }

    /// The repository root (parent of `Tests/`).
    public static let repositoryRoot: URL = root.deletingLastPathComponent().deletingLastPathComponent()
}
