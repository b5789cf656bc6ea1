import Lift
import LiftPipeline

/// One image of a batch: read, decode, run `CutoutPipeline` (analyse, select, composite, encode),
/// then write every file. The model is loaded once, when the processor is made; nothing is kept
/// between images.
public struct JobProcessor {
    private let options: CutoutOptions
    private let lifter: SubjectLifter
    private let writeStandardOutput: ([UInt8]) throws -> Void

    /// Loads the model `options` ask for.
    /// - Parameter writeStandardOutput: where a cut-out for `-o -` goes.
    /// - Throws: `LiftError` when the model cannot be found or loaded, `.noInstanceCues` when
    ///   `--instances-by model` is asked of a model without instance heads.
    public init(options: CutoutOptions, writeStandardOutput: @escaping ([UInt8]) throws -> Void) throws(LiftError) {
        let request = options.request
        let lifter = try SubjectLifter(model: request.model, quality: request.quality, threads: options.threads)
        if request.instancesBy == .model, !lifter.hasInstanceCues { throw .noInstanceCues(model: lifter.model) }
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
        let photo = try ImageFiles.decodePhoto(bytes, name: name, limits: options.limits, threads: options.threads)
        timings.decode = clock.lap()

        var request = options.request
        request.outputs.mask = job.mask != nil
        request.outputs.labels = job.labels != nil
        request.outputs.eachSubject = job.eachSubject
        let result = try CutoutPipeline.run(request, on: photo, with: lifter, name: name, timings: &timings)
        _ = clock.lap()

        // Every file of the job, with its destination: the cut-outs (one, or one per subject) and masks, then the labels.
        let overwrite = options.force || options.skipExisting
        func write(_ bytes: [UInt8], to path: String, base: String) throws {
            if !ImageJob.discards(base) { try ImageFiles.write(bytes, to: path, overwrite: overwrite) }
        }
        if let path = job.labels, let labels = result.labels { try write(labels.bytes, to: path, base: path) }
        var written: [Int: (output: OutputTarget, mask: String?, image: EncodedImage)] = [:]
        for part in result.parts {
            guard let image = part.image else { continue }
            let output = part.subjectNumber.map { number -> OutputTarget in
                guard case .path(let path) = job.output else { preconditionFailure("--each never writes to standard output") }
                return .path(ImageJob.subjectPath(path, number: number))
            } ?? job.output
            let maskPath = job.mask.map { path in part.subjectNumber.map { ImageJob.subjectPath(path, number: $0) } ?? path }
            if let maskPath, let base = job.mask, let mask = part.mask { try write(mask.bytes, to: maskPath, base: base) }
            switch output {
            case .path(let path):
                guard case .path(let base) = job.output else { preconditionFailure("a numbered file stands for a path") }
                try write(image.bytes, to: path, base: base)
            case .standardOutput: try writeStandardOutput(image.bytes)
            }
            written[part.subjectNumber ?? 0] = (output, maskPath, image)
        }
        timings.write = clock.lap()

        var report = ImageReport(input: name, status: .ok)
        report.labels = job.labels
        if let whole = written[0] {
            report.output = whole.output.name
            report.mask = whole.mask
            report.outputWidth = whole.image.width
            report.outputHeight = whole.image.height
        }
        report.width = photo.image.width
        report.height = photo.image.height
        report.model = lifter.modelDescription(width: photo.image.width, height: photo.image.height)
        report.quality = request.quality.rawValue
        report.instancesBy = result.analysis.options.instances.rawValue
        let keptIndices = Set(result.kept.map(\.index))
        report.instances = result.analysis.subjects.map { subject in
            var instance = ImageReport.Instance(SubjectRecord(subject), kept: keptIndices.contains(subject.index))
            if job.eachSubject, let file = written[subject.index + 1] {
                instance.output = file.output.name
                instance.mask = file.mask
                instance.outputWidth = file.image.width
                instance.outputHeight = file.image.height
            }
            return instance
        }
        report.timings = timings.rounded()
        return report
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
