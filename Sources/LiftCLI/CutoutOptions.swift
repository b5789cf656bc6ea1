import Lift
import LiftPipeline

/// Everything the cut-out action (`lift INPUT... [options]`) was asked to do, validated.
public struct CutoutOptions: Sendable, Equatable {
    /// Input paths as given: files, directories, or `-` for standard input.
    public var inputs: [String]
    /// A file listing more inputs (`--files-from`, `-` for standard input), read before planning.
    public var inputList: String?
    /// The list's paths are separated by NUL bytes instead of line ends (`--null`).
    public var inputListNullSeparated = false
    /// Where each input named by the list comes from (`list.txt line 3`), by input path; the
    /// planner names it when the file is missing.
    public var inputOrigins: [String: String] = [:]
    /// Process only this part of the inputs (`--shard K/N`).
    public var shard: Shard?
    /// Write one JSON object per image to standard output as it finishes (`--json-lines`).
    public var jsonLines = false
    /// Where cut-outs go; `nil` means `<name>.cutout.png` next to each input.
    public var output: OutputTarget?
    /// Descend into sub-directories of directory inputs.
    public var recursive = false
    /// Overwrite existing outputs (inputs are never overwritten).
    public var force = false
    /// Leave inputs whose outputs all exist alone, so an interrupted batch can be resumed.
    public var skipExisting = false
    /// What each photo's cut-out is: model, subjects, background, framing, formats. Its outputs
    /// name the main image only; each job adds its mask and labels (`ImageJob`).
    public var request = CutoutRequest()
    /// Write each kept subject to its own cut-out (and mask) file, numbered as in `--instances`.
    public var eachSubject = false
    /// Where to also write the grey mask (a file for one input, else a directory).
    public var maskOutput: String?
    /// Where to also write the instance label map (a file for one input, else a directory).
    public var labelsOutput: String?
    /// Where to write the JSON report, when set.
    public var jsonReport: OutputTarget?
    /// Worker threads for the model and mask stages; `nil` uses every core.
    public var threads: Int?
    /// Print nothing but errors.
    public var quiet = false
    /// Size and memory limits each photo is checked against before it is decoded (`--max-pixels`, `--max-memory`).
    public var limits = DecodingLimits.default

    /// Options with the defaults for `inputs`.
    public init(inputs: [String]) { self.inputs = inputs }
}

/// A destination that is either a path or standard output (`-`).
public enum OutputTarget: Sendable, Equatable {
    /// Standard output.
    case standardOutput
    /// A file or directory path.
    case path(String)

    /// `-` becomes standard output, anything else a path.
    public init(argument: String) { self = argument == "-" ? .standardOutput : .path(argument) }
}
