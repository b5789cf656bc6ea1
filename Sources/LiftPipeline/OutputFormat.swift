/// The file format of an image a cut-out writes: chosen by the output's extension (`-o cut.webp`),
/// by `--format`, or over HTTP by the `format` field or the `Accept` header.
public enum OutputFormat: String, Sendable, Equatable, CaseIterable {
    /// Lossless with transparency; the default.
    case png
    /// Lossless WebP with transparency (Lift writes no lossy WebP).
    case webp
    /// Baseline JPEG: lossy, opaque only, so a cut-out needs a background; masks are grey JPEGs.
    case jpeg

    /// The format `--format` / `format=` names: `png`, `webp`, `jpeg` or `jpg`, in any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "png": self = .png
        case "webp": self = .webp
        case "jpeg", "jpg": self = .jpeg
        default: return nil
        }
    }

    /// The format a file name's extension (without the dot, any case) says: `png`, `webp`, `jpg`, `jpeg`.
    public init?(fileExtension: String) {
        guard !fileExtension.isEmpty, let format = OutputFormat(name: fileExtension) else { return nil }
        self = format
    }

    /// The format of a media type (`image/webp`), parameters and case ignored.
    public init?(mediaType: String) {
        let type = mediaType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingSpaces.lowercased()
        guard let format = OutputFormat.allCases.first(where: { $0.mediaType == type }) else { return nil }
        self = format
    }

    /// The extension Lift gives files of this format: `png`, `webp`, `jpg`.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .webp: "webp"
        case .jpeg: "jpg"
        }
    }

    /// The `Content-Type` of this format.
    public var mediaType: String { "image/\(rawValue)" }

    /// The names `--format` accepts, for messages and help.
    public static let names = "png, webp, jpeg (or jpg)"
}
