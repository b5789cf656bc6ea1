import Foundation

/// A model Lift can run: one it ships (`Weights/<rawValue>.safetensors`, found by `ModelCatalog`),
/// a model file named by the user — a `lift.graph/1` `.safetensors` file, or an `.onnx` file
/// imported as it loads (`ONNXImporter`; `lift import` converts it once) — or the name of a rembg
/// model, read from rembg's model directory (`ModelCatalog.rembgDirectory`) as `NAME.onnx`.
public struct ModelName: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The model's name: a shipped model's, a rembg model's, or a file's name without its extension.
    public let rawValue: String
    /// The model file the user named; nil for shipped and rembg models.
    public let file: URL?

    private init(name: String, file: URL?) {
        rawValue = name
        self.file = file
    }

    /// The shipped model called `rawValue`, or nil when Lift ships none of that name.
    public init?(rawValue: String) {
        guard let model = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = model
    }

    /// The model in the file at `file` (`.safetensors` or `.onnx`), named after the file.
    public init(file: URL) {
        self.init(name: file.deletingPathExtension().lastPathComponent, file: file)
    }

    /// The model an argument such as `lift --model` names, without looking at the file system: a
    /// shipped model's name (`subject`, `u2netp`…); a path (anything with a `/`, or ending in `.onnx`
    /// or `.safetensors`); else a rembg model's name (`isnet-general-use`), whose `NAME.onnx`
    /// `ModelCatalog.url(for:)` looks for in rembg's model directory.
    public init(argument: String) {
        let lowered = argument.lowercased()
        if let shipped = ModelName(rawValue: argument) {
            self = shipped
        } else if argument.contains("/") || lowered.hasSuffix(".onnx") || lowered.hasSuffix(".safetensors") {
            self.init(file: URL(fileURLWithPath: argument))
        } else {
            self.init(name: argument, file: nil)
        }
    }

    /// Whether Lift ships the model.
    public var isShipped: Bool { file == nil && Self.allCases.contains(self) }

    /// MediaPipe Selfie Segmentation, general: 256×256, people only (Apache-2.0).
    public static let person = ModelName(name: "person", file: nil)
    /// MediaPipe Selfie Segmentation, landscape: 144×256 (height × width), for wide frames.
    public static let personLandscape = ModelName(name: "person-landscape", file: nil)
    /// Lift's class-agnostic salient-object model.
    public static let subject = ModelName(name: "subject", file: nil)
    /// U²-Net-small, rembg's `u2netp.onnx` imported by Lift (Apache-2.0).
    public static let u2netp = ModelName(name: "u2netp", file: nil)

    /// The shipped models.
    public static let allCases: [ModelName] = [.person, .personLandscape, .subject, .u2netp]

    /// The weight file's name: `NAME.safetensors` for a shipped model, `NAME.onnx` for a rembg
    /// model, else the file's own.
    public var fileName: String { file?.lastPathComponent ?? (isShipped ? "\(rawValue).safetensors" : "\(rawValue).onnx") }

    public var description: String { rawValue }
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

    /// The file of `model`: a shipped model's in the weights directories, a named file as it is, a
    /// rembg model's `NAME.onnx` in `rembgDirectory`.
    /// - Parameters:
    ///   - model: which model.
    ///   - environment: the process environment (a parameter so tests can set `LIFT_WEIGHTS`, `U2NET_HOME`).
    ///   - executable: the running executable (default: this process's).
    /// The first searched directory with an entry of that name wins, whatever the entry is: a file
    /// that cannot be read (a symbolic-link loop, a FIFO, no permission) is then an error when it is
    /// loaded, never a reason to look further or fall back to another model.
    /// - Throws: `ModelCatalogError.weightsNotFound` listing every place searched, `.modelNotFound`
    ///   for a rembg model that is not in rembg's directory.
    public static func url(for model: ModelName,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           executable: URL? = Bundle.main.executableURL) throws(ModelCatalogError) -> URL {
        if let file = model.file { return file }
        var status = stat()
        guard model.isShipped else {
            let candidate = rembgDirectory(environment: environment).appendingPathComponent(model.fileName)
            guard lstat(candidate.path, &status) == 0 else { throw .modelNotFound(name: model.rawValue, looked: [candidate.path]) }
            return candidate
        }
        let directories = searchDirectories(environment: environment, executable: executable)
        for directory in directories {
            let candidate = directory.appendingPathComponent(model.fileName)
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

    /// The environment variable naming rembg's model directory.
    public static let rembgEnvironmentVariable = "U2NET_HOME"

    /// rembg's model directory: `$U2NET_HOME`, else `~/.u2net` (where rembg downloads its `.onnx`
    /// files; Lift only reads them, it never downloads).
    public static func rembgDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let directory = environment[rembgEnvironmentVariable], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".u2net", isDirectory: true)
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
    /// A model name that is neither shipped nor found in rembg's model directory.
    case modelNotFound(name: String, looked: [String])

    public var description: String {
        switch self {
        case let .weightsNotFound(model, searched):
            return "The weights of model \"\(model)\" (\(model).safetensors) were not found in: "
                + searched.joined(separator: ", ") + ". Set \(ModelCatalog.environmentVariable) to the Weights directory."
        case let .modelNotFound(name, looked):
            return "there is no model \"\(name)\": Lift ships " + ModelName.allCases.map(\.rawValue).joined(separator: ", ")
                + ", and no file was found at " + looked.joined(separator: ", ")
                + " (a rembg model is read from \(ModelCatalog.rembgEnvironmentVariable), default ~/.u2net; Lift never downloads models)"
        }
    }
}
