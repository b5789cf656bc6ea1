import Lift

/// Why one image of a batch could not be cut out after it was analysed.
public enum CutoutError: Error, Equatable, CustomStringConvertible {
    /// `--at X,Y` found no subject under or near the point.
    case noSubjectAt(x: Double, y: Double, subjectCount: Int)
    /// `--instances` named a subject number the photo does not have.
    case noSuchSubject(number: Int, subjectCount: Int)
    /// `--crop` was asked for but no subject was found to crop to.
    case nothingToCrop
    /// The label map holds more subjects than a 16-bit PNG can number.
    case tooManySubjectsForLabels(count: Int)
    /// `--each` was asked for but no subject was kept, so there is no file to write.
    case noSubjectToWrite

    public var description: String {
        switch self {
        case .noSubjectAt(let x, let y, let count):
            return "no subject at \(Self.number(x)),\(Self.number(y)) (the photo has \(count) subject\(count == 1 ? "" : "s"))"
        case .noSuchSubject(let number, let count):
            return "no subject \(number): the photo has \(count) subject\(count == 1 ? "" : "s")"
        case .nothingToCrop:
            return "no subject found, nothing to crop to"
        case .noSubjectToWrite:
            return "no subject found, so --each wrote no file"
        case .tooManySubjectsForLabels(let count):
            return "\(count) subjects do not fit a 16-bit label map (at most 65,535)"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// One image through the whole pipeline: read, decode, analyse, select subjects, composite, encode,
/// write. The model is loaded once, when the pipeline is made; nothing is kept between images.
public struct CutoutPipeline {
    private let options: CutoutOptions
    private let lifter: SubjectLifter
    private let writeStandardOutput: ([UInt8]) throws -> Void

    /// Loads the model `options` ask for.
    /// - Parameter writeStandardOutput: where a cut-out for `-o -` goes.
    /// - Throws: `LiftError` when the model cannot be found or loaded, `.noInstanceCues` when
    ///   `--instances-by model` is asked of a model without instance heads.
    public init(options: CutoutOptions, writeStandardOutput: @escaping ([UInt8]) throws -> Void) throws(LiftError) {
        var lifter = try SubjectLifter(model: options.model, quality: options.quality, threads: options.threads)
        if let threshold = options.threshold { lifter.analysisOptions.threshold = threshold }
        if options.noRefine { lifter.analysisOptions.refine = false }
        lifter.analysisOptions.decontaminate = options.decontaminate
        lifter.analysisOptions.instances = options.instancesBy
        if options.instancesBy == .model, !lifter.hasInstanceCues { throw .noInstanceCues(model: lifter.model) }
        self.options = options
        self.lifter = lifter
        self.writeStandardOutput = writeStandardOutput
    }

    /// Processes one job and reports what was found and written. Every file is encoded before the
    /// first is written, so an image that fails leaves none of its outputs behind.
    /// - Throws: `LiftError` (reading, decoding, model, writing), `MaskError` (compositing), `CutoutError`.
    public func process(_ job: ImageJob) throws -> ImageReport {
        var timings = StageTimings()
        var clock = Stopwatch()
        let name = job.input.displayName
        let bytes: [UInt8]
        switch job.input {
        case .file(let path): bytes = try ImageFiles.readFile(path)
        case .standardInput: bytes = try ImageFiles.readStandardInput()
        }
        // The process's one memory budget, shared with any other photo in work (waits for room).
        let memory = SharedMemoryBudget.shared.reserve(forImage: bytes, limits: options.limits)
        defer { memory?.release() }
        let decoded = try ImageFiles.decodePhoto(bytes, name: name, limits: options.limits, threads: options.threads)
        let photo = decoded.image
        timings.decode = clock.lap()

        let analysis = try lifter.analyze(photo, timings: &timings)
        _ = clock.lap()
        let kept = try options.selectSubjects(from: analysis)
        if options.crop != nil, kept.isEmpty { throw CutoutError.nothingToCrop }
        if job.eachSubject, kept.isEmpty { throw CutoutError.noSubjectToWrite }

        // One cut-out of every kept subject, or (--each) one per subject, each with its mask.
        var cutouts: [EncodedCutout] = []
        if job.eachSubject {
            guard case .path(let output) = job.output else { preconditionFailure("--each never writes to standard output") }
            for subject in kept {
                let number = subject.index + 1
                cutouts.append(try encodeCutout(of: [subject], from: analysis, color: decoded.color,
                                                output: .path(ImageJob.subjectPath(output, number: number)),
                                                mask: job.mask.map { ImageJob.subjectPath($0, number: number) },
                                                timings: &timings, clock: &clock))
            }
        } else {
            cutouts.append(try encodeCutout(of: kept, from: analysis, color: decoded.color, output: job.output, mask: job.mask,
                                            timings: &timings, clock: &clock))
        }
        let labelBytes = try job.labels.map { path in
            guard analysis.subjects.count <= 65535 else { throw CutoutError.tooManySubjectsForLabels(count: analysis.subjects.count) }
            return try ImageFiles.encodeLabelsPNG(of: analysis, name: path, threads: options.threads)
        }
        timings.encode += clock.lap()

        let overwrite = options.force || options.skipExisting
        if let path = job.labels, let labelBytes { try ImageFiles.write(labelBytes, to: path, overwrite: overwrite) }
        for cutout in cutouts {
            if let (path, bytes) = cutout.mask { try ImageFiles.write(bytes, to: path, overwrite: overwrite) }
            switch cutout.output {
            case .path(let path): try ImageFiles.write(cutout.bytes, to: path, overwrite: overwrite)
            case .standardOutput: try writeStandardOutput(cutout.bytes)
            }
        }
        timings.write = clock.lap()

        var report = ImageReport(input: name, status: .ok)
        report.labels = job.labels
        if !job.eachSubject, let cutout = cutouts.first {
            report.output = cutout.output.name
            report.mask = cutout.mask?.path
            report.outputWidth = cutout.width
            report.outputHeight = cutout.height
        }
        report.width = photo.width
        report.height = photo.height
        report.model = lifter.modelDescription(width: photo.width, height: photo.height)
        report.quality = options.quality.rawValue
        report.instancesBy = analysis.options.instances.rawValue
        let keptIndices = Set(kept.map(\.index))
        let perSubject = job.eachSubject ? Dictionary(uniqueKeysWithValues: zip(kept.map(\.index), cutouts)) : [:]
        report.instances = analysis.subjects.map { subject in
            let box = subject.boundingBox
            var instance = ImageReport.Instance(number: subject.index + 1, bbox: [box.x, box.y, box.width, box.height], area: subject.area,
                                                score: (Double(subject.score) * 1e4).rounded() / 1e4, kept: keptIndices.contains(subject.index))
            if let cutout = perSubject[subject.index] {
                instance.output = cutout.output.name
                instance.mask = cutout.mask?.path
                instance.outputWidth = cutout.width
                instance.outputHeight = cutout.height
            }
            return instance
        }
        report.timings = timings.rounded()
        return report
    }

    /// A cut-out encoded as PNG, with its destination, size and (when asked for) its encoded mask.
    private struct EncodedCutout {
        var output: OutputTarget
        var bytes: [UInt8]
        var width: Int
        var height: Int
        var mask: (path: String, bytes: [UInt8])?
    }

    /// Composites `subjects` as the options say and encodes the result (and their mask, when `mask` names a file).
    private func encodeCutout(of subjects: [Subject], from analysis: Analysis, color: PNGMetadata, output: OutputTarget,
                              mask: String?, timings: inout StageTimings, clock: inout Stopwatch) throws -> EncodedCutout {
        // The rows are rendered as the encoder takes them, so the cut-out is never held whole
        // (composite then times only the preparation).
        let rows = try analysis.imageRows(for: subjects, croppedToExtent: options.crop != nil, background: options.background,
                                          layout: options.outputLayout)
        timings.composite += clock.lap()
        let threads = options.threads
        var encoded = EncodedCutout(output: output, bytes: try ImageFiles.encodePNG(rows, name: output.name, compression: options.pngLevel,
                                                                                  color: color, threads: threads),
                                    width: rows.width, height: rows.height)
        if let mask { encoded.mask = (mask, try ImageFiles.encodeMaskPNG(of: analysis, for: subjects, name: mask, threads: threads)) }
        timings.encode += clock.lap()
        return encoded
    }
}

extension StageTimings {
    /// Every stage rounded to a microsecond, so reports stay readable.
    package func rounded() -> StageTimings {
        var copy = self
        for stage in [\StageTimings.decode, \.preprocess, \.inference, \.mask, \.composite, \.encode, \.write] {
            copy[keyPath: stage] = (copy[keyPath: stage] * 1000).rounded() / 1000
        }
        return copy
    }
}

extension OutputTarget {
    /// The path, or `-` for standard output.
    var name: String {
        switch self {
        case .path(let path): path
        case .standardOutput: "-"
        }
    }
}
