import Lift

/// Where one image comes from.
public enum InputSource: Sendable, Equatable {
    /// A file path.
    case file(String)
    /// Standard input.
    case standardInput

    /// How the input is named in logs and reports.
    public var displayName: String {
        switch self {
        case .file(let path): path
        case .standardInput: "<stdin>"
        }
    }
}

/// One image to process and every file it produces.
public struct ImageJob: Sendable, Equatable {
    /// The photo.
    public var input: InputSource
    /// The cut-out's destination.
    public var output: OutputTarget
    /// The grey mask's path, when asked for.
    public var mask: String?
    /// The label map's path, when asked for.
    public var labels: String?
    /// `--each`: `output` and `mask` name the files of one subject each (`photo.cutout.png` stands for
    /// `photo.1.cutout.png`, `photo.2.cutout.png`…; see `subjectPath`); `output` is then never standard output.
    public var eachSubject: Bool

    /// A job writing `output` (and optionally `mask` and `labels`) from `input`.
    public init(input: InputSource, output: OutputTarget, mask: String? = nil, labels: String? = nil, eachSubject: Bool = false) {
        self.input = input
        self.output = output
        self.mask = mask
        self.labels = labels
        self.eachSubject = eachSubject
    }

    /// The file paths this job writes; under `--each`, the cut-out and mask paths stand for their
    /// numbered files. `/dev/null` is none: what goes there is discarded, never written.
    public var writtenPaths: [String] {
        var paths: [String] = []
        if case .path(let path) = output { paths.append(path) }
        if let mask { paths.append(mask) }
        if let labels { paths.append(labels) }
        return paths.filter { !Self.discards($0) }
    }

    /// The output that discards what is sent to it (`-o /dev/null` measures or checks a run without
    /// keeping its images): nothing is written there, since an atomic write would replace the device.
    public static let discardPath = "/dev/null"

    /// Whether an output named `path` is discarded.
    public static func discards(_ path: String) -> Bool { path == discardPath }

    /// Under `--each`, the file for subject `number` (1-based) of the cut-out or mask `path`:
    /// `photo.cutout.png` → `photo.3.cutout.png`, `item.png` → `item.3.png`.
    public static func subjectPath(_ path: String, number: Int) -> String {
        SubjectFileNaming(path: path).path(for: number)
    }

    /// Whether `path`, one of `writtenPaths`, stands for numbered per-subject files.
    func isPerSubject(_ path: String) -> Bool { eachSubject && path != labels }
}

/// Why an input will not be processed, found while planning; the batch reports it and goes on.
public enum PlanFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input path does not exist.
    case inputNotFound
    /// The name reached Lift with bytes that are not UTF-8 (shown as �), so it cannot be opened.
    case nameNotUTF8
    /// A directory input held no image files.
    case noImagesInDirectory
    /// The directory holds only files Lift wrote (`*.cutout.png`, …), which scans leave out.
    case onlyLiftOutputs(count: Int)
    /// A directory could not be listed.
    case unreadableDirectory(reason: String)
    /// An output path is one of the inputs.
    case wouldOverwriteInput(output: String)
    /// An output exists and neither `--force` nor `--skip-existing` was given.
    case outputExists(String)
    /// Two inputs would write the same output.
    case outputCollision(output: String, otherInput: String)
    /// The input is a named pipe, a device or a socket (`kind` says which), which Lift does not read.
    case notRegularFile(kind: String)
    /// An input from the `--files-from` list (`origin`: "line 3 of list.txt") does not exist.
    case listedInputNotFound(origin: String)

    /// The failure for a path that names nothing: a name that was not UTF-8, or simply missing.
    static func missing(_ path: String) -> PlanFailure {
        ImageFiles.hasUndecodableName(path) ? .nameNotUTF8 : .inputNotFound
    }

    public var description: String {
        switch self {
        case .inputNotFound: "no such file or directory"
        case .nameNotUTF8: "cannot open: \(ImageFiles.notUTF8Reason)"
        case .noImagesInDirectory: "no PNG, JPEG, WebP or GIF files in this directory (use -r to descend into sub-directories)"
        case .onlyLiftOutputs(let count):
            "the directory holds only Lift's own outputs (\(count) file\(count == 1 ? "" : "s") named *.cutout.*, *.mask.* or *.labels.png), "
                + "which are not cut out again; name one as a file to cut it out anyway"
        case .unreadableDirectory(let reason): "cannot list directory: \(reason)"
        case .wouldOverwriteInput(let output): "refusing to write \(output): it is an input"
        case .outputExists(let output): "\(output) exists (use --force to overwrite, or --skip-existing)"
        case .outputCollision(let output, let other): "\(output) would also be written for \(other); rename one of them or use separate runs"
        case .notRegularFile(let kind): "cannot read: \(ImageIO.notRegularReason(kind))"
        case .listedInputNotFound(let origin): "no such file or directory (\(origin))"
        }
    }
}

/// One line of the plan: process an image, skip it, or report why it cannot be processed.
public enum PlanEntry: Sendable, Equatable {
    /// Process this job.
    case process(ImageJob)
    /// Leave this input alone because its outputs exist (`--skip-existing`).
    case skip(InputSource, output: String)
    /// Leave this input alone because an earlier input (named here) is the same file.
    case duplicate(String, of: String)
    /// Report this failure for the named input (a path or `<stdin>`).
    case fail(String, PlanFailure)
}
