import Lift
import LiftPipeline

/// Turns the inputs and output options into a list of jobs, checking the file system for
/// directories, existing outputs and inputs that would be overwritten.
public struct OutputPlanner: Sendable {
    /// File extensions picked up from directory inputs (explicit file inputs may have any name).
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp", "gif"]
    /// Suffixes of files Lift writes; directory scans skip them so a second run does not cut out cut-outs.
    public static let outputSuffixes = [".cutout.png", ".cutout.webp", ".cutout.jpg", ".mask.png", ".mask.webp", ".mask.jpg", ".labels.png"]

    private let fileSystem: any FileSystemView

    /// A planner looking at `fileSystem`.
    public init(fileSystem: any FileSystemView = LocalFileSystem()) { self.fileSystem = fileSystem }

    /// An image found among the inputs, with the sub-path used to name outputs in a directory.
    struct FoundImage {
        var source: InputSource
        /// Relative directory inside a directory input (`""` for top level and file inputs).
        var subdirectory: String
        var stem: String
    }

    /// Plans every input of `options`. Throws only usage errors (exit 2), such as several images
    /// for one output file; per-input problems come back as `.fail` entries.
    public func plan(_ options: CutoutOptions) throws(UsageError) -> [PlanEntry] {
        // First pass: every input becomes images, a failure or a duplicate, in input order.
        var pending: [Pending] = []
        var firstNameOfInput: [String: String] = [:]  // canonical path → the input's name as first given
        var anyDirectory = false
        var scannedDirectories: Set<String> = []  // canonical paths, so each real directory is listed once
        let kinds = options.inputs.map { $0 == "-" ? nil : fileSystem.kind(of: $0) }
        let enclosingDirectories = !options.recursive ? [] : zip(options.inputs, kinds)
            .filter { $0.1 == .directory }.map { fileSystem.canonicalPath($0.0) }
        for (input, kind) in zip(options.inputs, kinds) {
            guard let kind else {
                pending.append(.image(FoundImage(source: .standardInput, subdirectory: "", stem: "stdin")))
                continue
            }
            switch kind {
            case .missing:
                let failure = options.inputOrigins[input].map { PlanFailure.listedInputNotFound(origin: $0) } ?? .missing(input)
                pending.append(.settled(.fail(input, failure)))
            case .special(let what):
                pending.append(.settled(.fail(input, .notRegularFile(kind: what))))
            case .file:
                // The same file named twice (or again through another path) is cut out once.
                if let first = firstNameOfInput.claim(fileSystem.canonicalPath(input), for: input) {
                    pending.append(.settled(.duplicate(input, of: first)))
                    continue
                }
                pending.append(.image(FoundImage(source: .file(input), subdirectory: "", stem: PathText.stem(of: input))))
            case .directory:
                anyDirectory = true
                // A directory named twice, or with -r inside another one named, adds nothing: its
                // images are found (and their outputs nested) under the enclosing one, whatever the order.
                let canonical = fileSystem.canonicalPath(input)
                guard !scannedDirectories.contains(canonical),
                      !enclosingDirectories.contains(where: { Self.scan(from: $0, reaches: canonical) }) else { continue }
                do {
                    let found = try scan(directory: input, subdirectory: "", recursive: options.recursive,
                                         scanned: &scannedDirectories)
                    if found.isEmpty {
                        let outputs = (try? fileSystem.contentsOfDirectory(input))?.count { name in
                            Self.outputSuffixes.contains { name.lowercased().hasSuffix($0) }
                        } ?? 0
                        pending.append(.settled(.fail(input, outputs > 0 ? .onlyLiftOutputs(count: outputs) : .noImagesInDirectory)))
                    }
                    for item in found {
                        switch item {
                        case .success(let image):
                            if case .file(let path) = image.source,
                               let first = firstNameOfInput.claim(fileSystem.canonicalPath(path), for: path) {
                                pending.append(.settled(.duplicate(path, of: first)))
                            } else {
                                pending.append(.image(image))
                            }
                        case .failure(let named):
                            pending.append(.settled(.fail(named.input, named.failure)))
                        }
                    }
                } catch {
                    pending.append(.settled(.fail(input, .unreadableDirectory(reason: "\(error)"))))
                }
            }
        }

        // Second pass: name every output, then check it against inputs, other outputs and the disk.
        let inputCanonical = Set(firstNameOfInput.keys)
        let inputsByDirectory = InputNames(canonicalPaths: options.eachSubject ? inputCanonical : [])
        var listings: [String: [String]] = [:]  // --each: output directories listed once, not once per image
        let imageCount = pending.count { if case .image = $0 { true } else { false } }
        let outputLayout = try layout(for: options.output, imageCount: imageCount, anyDirectory: anyDirectory, flag: "-o")
        let maskLayout = try options.maskOutput.map { path throws(UsageError) in
            try layout(for: .path(path), imageCount: imageCount, anyDirectory: anyDirectory, flag: "--mask")
        }
        let labelsLayout = try options.labelsOutput.map { path throws(UsageError) in
            try layout(for: .path(path), imageCount: imageCount, anyDirectory: anyDirectory, flag: "--labels")
        }
        var entries: [PlanEntry] = []
        var claimed: [String: String] = [:]  // canonical output path (under --each, numbered files' stand-in) → input display name
        var claimedNumbered: [String: String] = [:]  // the stand-ins of numbered files alone, to check --json against
        imageLoop: for item in pending {
            let image: FoundImage
            switch item {
            case .settled(let entry):
                entries.append(entry)
                continue imageLoop
            case .image(let found):
                image = found
            }
            let job = ImageJob(
                input: image.source,
                output: outputLayout.target(for: image, suffix: (options.request.outputs.image == .mask ? ".mask." : ".cutout.")
                                                  + options.request.outputs.format.fileExtension),
                mask: maskLayout.map { $0.path(for: image, suffix: ".mask." + options.request.outputs.maskFormat.fileExtension) },
                labels: labelsLayout.map { $0.path(for: image, suffix: ".labels.png") },
                eachSubject: options.eachSubject)
            let name = image.source.displayName
            try checkDistinctFiles(of: job)
            for path in job.writtenPaths {
                let canonical = fileSystem.canonicalPath(path)
                if let input = inputCanonical.contains(canonical) ? path
                    : job.isPerSubject(path) ? inputsByDirectory.perSubjectInput(named: SubjectFileNaming(path: canonical)) : nil {
                    entries.append(.fail(name, .wouldOverwriteInput(output: input)))
                    continue imageLoop
                }
                if let other = claimed[canonical] {
                    entries.append(.fail(name, .outputCollision(output: path, otherInput: other)))
                    continue imageLoop
                }
            }
            for path in job.writtenPaths {
                claimed[fileSystem.canonicalPath(path)] = name
                if job.isPerSubject(path) { claimedNumbered[fileSystem.canonicalPath(path)] = name }
            }
            let existing = job.writtenPaths.compactMap { path in
                job.isPerSubject(path) ? firstSubjectFile(SubjectFileNaming(path: path), listings: &listings)
                                       : fileSystem.kind(of: path) != .missing ? path : nil
            }
            if !existing.isEmpty, !options.force {
                if options.skipExisting, existing.count == job.writtenPaths.count, case .path = job.output {
                    entries.append(.skip(image.source, output: existing[0]))
                    continue
                }
                if !options.skipExisting {
                    entries.append(.fail(name, .outputExists(existing[0])))
                    continue
                }
            }
            entries.append(.process(job))
        }
        // Every shard plans the whole batch (the same output layouts, claims and collisions, one
        // entry per input), then keeps its part.
        if let shard = options.shard {
            entries = zip(pending, entries).filter { shard.contains(fileSystem.canonicalPath($0.0.inputPath)) }.map(\.1)
        }
        if options.jsonLines, entries.contains(where: { if case .process(let job) = $0 { job.output == .standardOutput } else { false } }) {
            throw .conflictingOptions("--json-lines", "a cut-out to standard output",
                                      reason: "only one of them can use standard output; name the cut-out with -o")
        }
        switch options.jsonReport {
        case .path(let report):
            try checkReportPath(report, inputs: inputCanonical, outputs: claimed, numberedOutputs: claimedNumbered, options: options)
        case .standardOutput:
            // Standard input's cut-out goes to standard output unless -o says otherwise.
            if entries.contains(where: { if case .process(let job) = $0 { job.output == .standardOutput } else { false } }) {
                throw .conflictingOptions("--json -", "a cut-out to standard output",
                                          reason: "only one of them can use standard output; name the cut-out with -o")
            }
        case nil: break
        }
        return entries
    }

    /// The JSON report may not replace an input or another output, nor an existing file unless
    /// `--force` (or `--skip-existing`, which resumes a batch whose report describes this run).
    private func checkReportPath(_ report: String, inputs: Set<String>, outputs: [String: String],
                                 numberedOutputs: [String: String], options: CutoutOptions) throws(UsageError) {
        let canonical = fileSystem.canonicalPath(report)
        if inputs.contains(canonical) { throw .invalidOutput("--json \(report) is an input; Lift never overwrites an input") }
        if let other = outputs[canonical] ?? SubjectFileNaming.standIns(containing: canonical).lazy.compactMap({ numberedOutputs[$0] }).first {
            throw .invalidOutput("--json \(report) is also an output for \(other)")
        }
        switch fileSystem.kind(of: report) {
        case .directory: throw .invalidOutput("--json \(report) is a directory; give the report a file name")
        case .special(let what): throw .invalidOutput("--json \(report) is \(what); give the report a regular file's name")
        case .file where !options.force && !options.skipExisting:
            throw .invalidOutput("--json \(report) exists (use --force to overwrite it)")
        case .file, .missing: break
        }
    }

    /// Two kinds of output of one image naming one file would overwrite each other: `-o c.png --mask
    /// c.png`, `--mask a.cutout.png` beside the default `-o`, or under `--each` `--labels p.2.cutout.png`
    /// among the cut-outs' numbered files.
    private func checkDistinctFiles(of job: ImageJob) throws(UsageError) {
        var outputs: [(flag: String, path: String)] = []
        if case .path(let path) = job.output { outputs.append(("-o", path)) }
        if let mask = job.mask { outputs.append(("--mask", mask)) }
        if let labels = job.labels { outputs.append(("--labels", labels)) }
        outputs.removeAll { ImageJob.discards($0.path) }  // several outputs may all be discarded
        for (index, second) in outputs.enumerated() {
            for first in outputs[..<index] {
                let (a, b) = (fileSystem.canonicalPath(first.path), fileSystem.canonicalPath(second.path))
                // A labels path equal to the numbered files' stand-in is refused too: it reads as the same output.
                let (firstNumbered, secondNumbered) = (job.eachSubject && first.flag != "--labels", job.eachSubject && second.flag != "--labels")
                let clash = a == b || (firstNumbered && !secondNumbered && SubjectFileNaming(path: a).contains(b))
                    || (secondNumbered && !firstNumbered && SubjectFileNaming(path: b).contains(a))
                guard clash else { continue }
                let what = firstNumbered || secondNumbered ? "name the same files (--each numbers them)" : "name the same file"
                throw .invalidOutput("\(first.flag) \(first.path) and \(second.flag) \(second.path) \(what); give each output its own name")
            }
        }
    }

    /// The first existing file (by number) that `naming` describes, or `nil`; `listings` caches the
    /// names in each directory (none for a directory that is missing or unreadable).
    private func firstSubjectFile(_ naming: SubjectFileNaming, listings: inout [String: [String]]) -> String? {
        let directory = naming.directory
        if listings[directory] == nil {
            listings[directory] = fileSystem.kind(of: directory) == .directory ? (try? fileSystem.contentsOfDirectory(directory)) ?? [] : []
        }
        return listings[directory, default: []].filter(naming.matches(name:)).min { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
            .map { PathText.join(directory, $0) }
    }

    /// Canonical input paths grouped by directory, to find an input that `--each` numbering would name.
    struct InputNames {
        private var namesByDirectory: [String: [String]] = [:]

        init(canonicalPaths: Set<String>) {
            for path in canonicalPaths { namesByDirectory[PathText.directory(of: path), default: []].append(PathText.name(of: path)) }
        }

        /// An input (canonical path) among the files `naming` (made from a canonical path) describes.
        func perSubjectInput(named naming: SubjectFileNaming) -> String? {
            namesByDirectory[naming.directory]?.first(where: naming.matches(name:)).map { PathText.join(naming.directory, $0) }
        }
    }

    /// A failure found for an input while planning.
    struct NamedFailure: Error {
        var input: String
        var failure: PlanFailure
    }

    /// An input after the first pass: an image still to plan, or its entry already decided.
    enum Pending {
        case image(FoundImage)
        case settled(PlanEntry)

        /// The path that decides the input's `--shard` (standard input, which cannot be sharded, is `-`).
        var inputPath: String {
            switch self {
            case .image(let found): found.source.displayName
            case .settled(.process(let job)): job.input.displayName
            case .settled(.skip(let input, _)): input.displayName
            case .settled(.duplicate(let input, _)), .settled(.fail(let input, _)): input
            }
        }
    }

    /// Whether a recursive scan of canonical directory `outer` lists canonical directory `inner`: `inner`
    /// lies strictly below it, through no hidden (dot) directory, which scans skip.
    static func scan(from outer: String, reaches inner: String) -> Bool {
        let prefix = outer.hasSuffix("/") ? outer : outer + "/"
        guard inner.count > prefix.count, inner.hasPrefix(prefix) else { return false }
        return !inner.dropFirst(prefix.count).split(separator: "/").contains { $0.hasPrefix(".") }
    }

    /// Image files in `directory` (sorted by name), descending when `recursive` into directories not
    /// yet in `scanned` (canonical paths: a symbolic link back up the tree, or a second link to one
    /// directory, is not followed again). An image-named entry that cannot be opened, such as a name
    /// that is not UTF-8, comes back as a failure rather than being dropped in silence.
    private func scan(directory: String, subdirectory: String, recursive: Bool,
                      scanned: inout Set<String>) throws -> [Result<FoundImage, NamedFailure>] {
        guard scanned.insert(fileSystem.canonicalPath(directory)).inserted else { return [] }
        var found: [Result<FoundImage, NamedFailure>] = []
        for name in try fileSystem.contentsOfDirectory(directory).sorted() where !name.hasPrefix(".") {
            let path = PathText.join(directory, name)
            let lower = name.lowercased()
            let isImageName = Self.imageExtensions.contains(PathText.fileExtension(of: name))
                && !Self.outputSuffixes.contains(where: { lower.hasSuffix($0) })
            switch fileSystem.kind(of: path) {
            case .file where isImageName:
                found.append(.success(FoundImage(source: .file(path), subdirectory: subdirectory, stem: PathText.stem(of: name))))
            case .special(let what) where isImageName:
                // A pipe or device with an image's name: reported, never opened (opening a FIFO blocks).
                found.append(.failure(NamedFailure(input: path, failure: .notRegularFile(kind: what))))
            case .missing where isImageName || (recursive && ImageFiles.hasUndecodableName(name)):
                // A listed name that cannot be opened: an image, or under -r possibly a directory.
                found.append(.failure(NamedFailure(input: path, failure: .missing(path))))
            case .directory where recursive:
                found += try scan(directory: path, subdirectory: PathText.join(subdirectory, name), recursive: true,
                                  scanned: &scanned)
            case .file, .directory, .missing, .special:
                continue
            }
        }
        return found
    }

    /// How outputs of one kind are named.
    enum Layout {
        /// Next to each input (standard input goes to standard output).
        case besideInput
        /// Everything to standard output (one image only).
        case standardOutput
        /// One image to exactly this file.
        case file(String)
        /// Into this directory, keeping sub-directories of directory inputs.
        case directory(String)

        func target(for image: FoundImage, suffix: String) -> OutputTarget {
            switch self {
            case .standardOutput: return .standardOutput
            case .besideInput:
                guard case .file(let input) = image.source else { return .standardOutput }
                return .path(PathText.join(PathText.directory(of: input), image.stem + suffix))
            case .file, .directory: return .path(path(for: image, suffix: suffix))
            }
        }

        func path(for image: FoundImage, suffix: String) -> String {
            switch self {
            case .file(let path): return path
            case .directory(let directory):
                return PathText.join(PathText.join(directory, image.subdirectory), image.stem + suffix)
            case .besideInput, .standardOutput:
                guard case .path(let path) = target(for: image, suffix: suffix) else {
                    preconditionFailure("extra outputs are always given a path")
                }
                return path
            }
        }
    }

    /// Decides between one file and a directory for `target`.
    private func layout(for target: OutputTarget?, imageCount: Int, anyDirectory: Bool, flag: String) throws(UsageError) -> Layout {
        guard let target else { return .besideInput }
        guard case .path(let path) = target else {
            if imageCount > 1 || anyDirectory {
                throw .invalidOutput("\(flag) - writes one image to standard output, but the inputs hold \(imageCount) images")
            }
            return .standardOutput
        }
        let several = imageCount > 1 || anyDirectory
        switch fileSystem.kind(of: path) {
        case .directory: return .directory(path)
        case .special where ImageJob.discards(path) && !several: return .file(path)
        case .special(let what): throw .invalidOutput("\(flag) \(path) is \(what); give a file or directory name")
        case .file where several:
            throw .invalidOutput("\(flag) \(path) is a file, but the inputs hold \(imageCount) images; give a directory")
        case .missing where several && !path.hasSuffix("/") && Self.imageExtensions.contains(PathText.fileExtension(of: path)):
            // `-o single.png` for a batch would otherwise become a directory named like a file.
            throw .invalidOutput("\(flag) \(path) names an image file, but the inputs hold \(imageCount) images; "
                                 + "give a directory (a name without an image extension, or ending in /)")
        case .file, .missing:
            if path.hasSuffix("/") || several { return .directory(path) }
            // PNG bytes under `photo.gif` would mislead every program that trusts the name (as `lift convert` refuses too).
            let fileExtension = PathText.fileExtension(of: path)
            if flag == "--labels", !fileExtension.isEmpty, fileExtension.lowercased() != "png" {
                throw .invalidOutput("\(flag) \(path): the label map is a PNG (its values are subject numbers, which a lossy format would change); name it .png")
            }
            if !fileExtension.isEmpty, OutputFormat(fileExtension: fileExtension) == nil {
                throw .invalidOutput("\(flag) \(path): lift writes PNG, WebP or JPEG; name the output .png, .webp or .jpg")
            }
            return .file(path)
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// Records `name` as the first name of input file `canonical`; returns the earlier name instead when
    /// the file was already named.
    fileprivate mutating func claim(_ canonical: String, for name: String) -> String? {
        if let first = self[canonical] { return first }
        self[canonical] = name
        return nil
    }
}
