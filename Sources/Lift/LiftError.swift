/// Errors from the public `Lift` API: finding and loading a model, reading and writing image files,
/// running the model. Lower stages' errors (image decoding, weight parsing, masks) are carried
/// inside with the file or model they concern, so the sentence says where it happened.
///
/// A minor version may add a case (2.1.0 added `noInstanceCues`): switch over it with a `default`,
/// or use `description` / `detail`, which every case has.
public enum LiftError: Error, Sendable, CustomStringConvertible {
    /// No weight file for `model` in any of the directories searched.
    case weightsNotFound(model: ModelName, searched: [String])
    /// The weight file exists but could not be loaded (parse, graph or shape error).
    case modelLoadFailed(model: ModelName, path: String, underlying: any Error)
    /// The model's input spec asks for something `SubjectLifter` cannot prepare.
    case unsupportedInputSpec(model: ModelName, reason: String)
    /// Running the model failed.
    case inferenceFailed(model: ModelName, underlying: any Error)
    /// A file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// A file or stream is larger than `limit` bytes.
    case fileTooLarge(path: String, limit: Int)
    /// The bytes are no image format Lift reads (PNG, JPEG, WebP, GIF), by their signature.
    case unsupportedFormat(path: String)
    /// The decoder rejected the file.
    case undecodable(path: String, underlying: any Error)
    /// The image could not be encoded.
    case encodingFailed(path: String, underlying: any Error)
    /// The file could not be written.
    case writeFailed(path: String, reason: String)
    /// Building the analysis (masks, subjects) failed.
    case analysisFailed(underlying: any Error)
    /// Instances by the model (`InstanceSource.model`, `--instances-by model`) were asked for, but
    /// the model has no instance heads.
    case noInstanceCues(model: ModelName)

    /// The file the error concerns, when there is one.
    public var path: String? {
        switch self {
        case .modelLoadFailed(_, let path, _), .unreadableFile(let path, _), .fileTooLarge(let path, _),
             .unsupportedFormat(let path), .undecodable(let path, _), .encodingFailed(let path, _), .writeFailed(let path, _):
            return path
        case .weightsNotFound, .unsupportedInputSpec, .inferenceFailed, .analysisFailed, .noInstanceCues:
            return nil
        }
    }

    /// What went wrong, without the file name (for callers that print the name themselves).
    public var detail: String {
        switch self {
        case .weightsNotFound(let model, let searched) where model.isShipped:
            return "no weights for the \(model.rawValue) model: \(model.fileName) is not in "
                + searched.joined(separator: ", ") + " (set LIFT_WEIGHTS to the directory that holds it)"
        case .weightsNotFound(let model, let searched):
            return "there is no model \"\(model.rawValue)\": Lift ships " + ModelName.allCases.map(\.rawValue).joined(separator: ", ")
                + ", and there is no " + searched.joined(separator: ", ")
                + " (rembg's model directory: set U2NET_HOME to the one that holds it, or give the file's path; Lift never downloads models)"
        case .modelLoadFailed(let model, _, let underlying):
            return "cannot load the \(model.rawValue) model: \(underlying)"
        case .unsupportedInputSpec(let model, let reason):
            return "the \(model.rawValue) model's input spec is not supported: \(reason)"
        case .inferenceFailed(let model, let underlying):
            return "the \(model.rawValue) model failed to run: \(underlying)"
        case .unreadableFile(_, let reason):
            return "cannot read: \(reason)"
        case .fileTooLarge(_, let limit):
            return "larger than \(limit >> 20) MiB"
        case .unsupportedFormat:
            return "not a PNG, JPEG, WebP or GIF image"
        case .undecodable(_, let underlying):
            return "cannot decode: \(underlying)"
        case .encodingFailed(_, let underlying):
            return "cannot encode: \(underlying)"
        case .writeFailed(_, let reason):
            return "cannot write: \(reason)"
        case .analysisFailed(let underlying):
            return "cannot build the mask: \(underlying)"
        case .noInstanceCues(let model):
            return "the \(model.rawValue) model has no instance heads, so it cannot tell touching subjects apart "
                + "(instances by model); use instances by components, or a subject model exported with its heads "
                + "(Tools/conversion/export_subject.py --instance-heads)"
        }
    }

    /// `path: detail`, or the detail alone when no file is concerned.
    public var description: String { path.map { "\($0): \(detail)" } ?? detail }
}
