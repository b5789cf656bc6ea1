import Lift

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
    /// The model; `nil` picks `subject` when its weights exist, else `person`.
    public var model: ModelName?
    /// Input resolution and edge refinement.
    public var quality: Quality = .balanced
    /// What replaces the background.
    public var background: Background = .transparent
    /// Crop to the chosen subjects, when set.
    public var crop: CropOption?
    /// Cap on the longest side of the written image, in pixels.
    public var maxSize: Int?
    /// Which subjects to keep.
    public var instances: InstanceSelection = .all
    /// Where the subjects come from: the mask's connected components or the model's instance heads.
    public var instancesBy: InstanceSource = .components
    /// Keep only the subject under this point (pixels of the input photo, x right, y down), when set.
    public var point: PixelPoint?
    /// Write each kept subject to its own cut-out (and mask) file, numbered as in `--instances`.
    public var eachSubject = false
    /// Where to also write the grey mask (a file for one input, else a directory).
    public var maskOutput: String?
    /// Where to also write the instance label map (a file for one input, else a directory).
    public var labelsOutput: String?
    /// Where to write the JSON report, when set.
    public var jsonReport: OutputTarget?
    /// Probability (0…1) from which a pixel belongs to a subject; `nil` keeps the default (0.5).
    public var threshold: Float?
    /// Skip edge refinement whatever the quality.
    public var noRefine = false
    /// Give partly transparent edge pixels their estimated foreground colour (`--decontaminate on|off`);
    /// opaque pixels keep the photo's colour either way.
    public var decontaminate = true
    /// How the cut-out PNG is compressed: a zlib level, 0 (stored) … 9 (smallest), or the fast compressor.
    public var pngLevel = ImageFiles.defaultPNGCompression
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

/// Crop to the chosen subjects' extent, as given by `--crop`, `--margin` and `--square`.
public struct CropOption: Sendable, Equatable {
    /// Space kept around the subjects.
    public var margin: Margin = .pixels(0)
    /// Extend the crop to a square centred on the subjects.
    public var square = false

    /// A crop with the given margin and shape.
    public init(margin: Margin = .pixels(0), square: Bool = false) {
        self.margin = margin
        self.square = square
    }
}

/// Which subjects to keep, as given by `--instances`.
public enum InstanceSelection: Sendable, Equatable {
    /// Every subject found.
    case all
    /// Only the subject with the largest area.
    case largest
    /// The subjects with these 1-based numbers (subjects are numbered by decreasing area).
    case numbers([Int])
}
