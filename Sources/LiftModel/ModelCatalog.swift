import Foundation

/// A model Lift ships: one `lift.graph/1` file, `Weights/<rawValue>.safetensors`.
public enum ModelName: String, CaseIterable, Sendable {
    /// MediaPipe Selfie Segmentation, general: 256×256, people only (Apache-2.0).
    case person
    /// MediaPipe Selfie Segmentation, landscape: 144×256 (height × width), for wide frames.
    case personLandscape = "person-landscape"
    /// Lift's class-agnostic salient-object model.
    case subject

    /// The weight file's name inside the weights directory.
    public var fileName: String { "\(rawValue).safetensors" }
}

/// Finds model files at run time and picks the model variant for a photo.
///
/// Search order for the weights directory: the `LIFT_WEIGHTS` environment variable (a directory;
/// when set, it is the only place looked at), then a `Weights/` folder in the executable's
/// directory or any directory above it, then the source checkout's `Weights/` (found through this
/// file's `#filePath`, for `swift run` and `swift test`).
public enum ModelCatalog {
    /// The environment variable naming the weights directory.
    public static let environmentVariable = "LIFT_WEIGHTS"

    /// The file of `model`.
    /// - Parameters:
    ///   - model: which model.
    ///   - environment: the process environment (a parameter so tests can set `LIFT_WEIGHTS`).
    ///   - executable: the running executable (default: this process's).
    /// The first searched directory with an entry of that name wins, whatever the entry is: a file
    /// that cannot be read (a symbolic-link loop, a FIFO, no permission) is then an error when it is
    /// loaded, never a reason to look further or fall back to another model.
    /// - Throws: `ModelCatalogError.weightsNotFound` listing every place searched.
    public static func url(for model: ModelName,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           executable: URL? = Bundle.main.executableURL) throws(ModelCatalogError) -> URL {
        let directories = searchDirectories(environment: environment, executable: executable)
        for directory in directories {
            let candidate = directory.appendingPathComponent(model.fileName)
            var status = stat()
            if lstat(candidate.path, &status) == 0 { return candidate }
        }
        throw .weightsNotFound(model: model.rawValue, searched: directories.map(\.path))
    }

    /// The directories searched for weight files, in order (see the type's documentation).
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment,
                                         executable: URL? = Bundle.main.executableURL) -> [URL] {
        if let override = environment[environmentVariable], !override.isEmpty {
            return [URL(fileURLWithPath: override, isDirectory: true)]
        }
        var directories: [URL] = []
        if let executable {
            var directory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
            while true {
                directories.append(directory.appendingPathComponent("Weights", isDirectory: true))
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Sources/LiftModel
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Weights", isDirectory: true)
        if !directories.contains(where: { $0.standardizedFileURL.path == sourceTree.standardizedFileURL.path }) {
            directories.append(sourceTree)
        }
        return directories
    }

    /// The variant of `model` to run on a `width × height` photo: `.person` becomes
    /// `.personLandscape` when the photo is wider than 4:3 (the geometric mean of the two models'
    /// aspect ratios, 1:1 and 16:9, so the chosen model stretches the photo least); other models
    /// are returned unchanged.
    public static func variant(of model: ModelName, width: Int, height: Int) -> ModelName {
        guard model == .person else { return model }
        return width * 3 > height * 4 ? .personLandscape : .person
    }
}

/// Why a model file could not be located.
public enum ModelCatalogError: Error, Equatable, CustomStringConvertible {
    /// No searched directory holds the model's file.
    case weightsNotFound(model: String, searched: [String])

    public var description: String {
        switch self {
        case let .weightsNotFound(model, searched):
            return "The weights of model \"\(model)\" (\(model).safetensors) were not found in: "
                + searched.joined(separator: ", ") + ". Set \(ModelCatalog.environmentVariable) to the Weights directory."
        }
    }
}
