import Foundation

/// Locates committed test fixtures under `Tests/Fixtures/` in the source tree.
public enum Fixtures {
    /// The `Tests/Fixtures` directory of this checkout.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The URL of a fixture, `relativePath` below `Tests/Fixtures/`.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// The bytes of a fixture file (`absolute`: of the file at `relativePath` taken as a path of its own).
    public static func bytes(_ relativePath: String, absolute: Bool = false) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: absolute ? URL(fileURLWithPath: relativePath) : url(relativePath)))
    }

    /// The repository root (parent of `Tests/`).
    public static let repositoryRoot: URL = root.deletingLastPathComponent().deletingLastPathComponent()
}
