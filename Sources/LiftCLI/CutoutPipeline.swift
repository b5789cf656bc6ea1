import Lift

/// Why one image of a batch could not be cut out after it was analysed.
public enum CutoutError: Error, Equatable, CustomStringConvertible {
    /// `--at X,Y` found no subject under or near the point.
    case noSubjectAt(x: Double, y: Double, subjectCount: Int)
    /// `--instances` named a subject number the photo does not have.
    case noSuchSubject(number: Int, subjectCount: Int)
    /// `--crop` was asked for but no subject was found to crop to.
    case nothingToCrop
    /// The label map holds more subjects than an 8-bit PNG can number.
    case tooManySubjectsForLabels(count: Int)

    public var description: String {
        switch self {
        case .noSubjectAt(let x, let y, let count):
            return "no subject at \(Self.number(x)),\(Self.number(y)) (the photo has \(count) subject\(count == 1 ? "" : "s"))"
        case .noSuchSubject(let number, let count):
            return "no subject \(number): the photo has \(count) subject\(count == 1 ? "" : "s")"
        case .nothingToCrop:
            return "no subject found, nothing to crop to"
        case .tooManySubjectsForLabels(let count):
            return "\(count) subjects do not fit an 8-bit label map (at most 255)"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
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
    /// - Throws: `LiftError` when the model cannot be found or loaded.
    public init(options: CutoutOptions, writeStandardOutput: @escaping ([UInt8]) throws -> Void) throws(LiftError) {
        var lifter = try SubjectLifter(model: options.model, quality: options.quality, threads: options.threads)
        if let threshold = options.threshold { lifter.analysisOptions.threshold = threshold }
        if options.noRefine { lifter.analysisOptions.refine = false }
        self.options = options
        self.lifter = lifter
        self.writeStandardOutput = writeStandardOutput
    }

    /// Processes one job and reports what was found and written.
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
        let decoded = try ImageFiles.decodePhoto(bytes, name: name, threads: options.threads)
        let photo = decoded.image
        timings.decode = clock.lap()

        let analysis = try lifter.analyze(photo, timings: &timings)
        _ = clock.lap()
        let kept = try select(from: analysis)
        if options.crop != nil, kept.isEmpty { throw CutoutError.nothingToCrop }
        let layout = OutputLayout(margin: options.crop?.margin ?? .pixels(0), square: options.crop?.square ?? false,
                                  maxLongSide: options.maxSize)
        let cutout = try analysis.image(for: kept, croppedToExtent: options.crop != nil, background: options.background, layout: layout)
        let mask = job.mask == nil ? nil : analysis.mask(for: kept).grayImage()
        let labels = job.labels == nil ? nil : try labelImage(analysis.labels)
        timings.composite = clock.lap()

        let threads = options.threads
        let cutoutBytes = try ImageFiles.encodePNG(cutout, name: job.output.name, level: options.pngLevel,
                                                   color: decoded.color, threads: threads)
        let maskBytes = try mask.map { image throws(LiftError) in try ImageFiles.encodePNG(image, name: job.mask ?? "mask", threads: threads) }
        let labelBytes = try labels.map { image throws(LiftError) in try ImageFiles.encodePNG(image, name: job.labels ?? "labels", threads: threads) }
        timings.encode = clock.lap()

        let overwrite = options.force || options.skipExisting
        if let path = job.mask, let maskBytes { try ImageFiles.write(maskBytes, to: path, overwrite: overwrite) }
        if let path = job.labels, let labelBytes { try ImageFiles.write(labelBytes, to: path, overwrite: overwrite) }
        switch job.output {
        case .path(let path): try ImageFiles.write(cutoutBytes, to: path, overwrite: overwrite)
        case .standardOutput: try writeStandardOutput(cutoutBytes)
        }
        timings.write = clock.lap()

        var report = ImageReport(input: name, status: .ok)
        report.output = job.output.name
        report.mask = job.mask
        report.labels = job.labels
        report.width = photo.width
        report.height = photo.height
        report.outputWidth = cutout.width
        report.outputHeight = cutout.height
        report.model = lifter.modelVariant(width: photo.width, height: photo.height).rawValue
        report.quality = options.quality.rawValue
        let keptIndices = Set(kept.map(\.index))
        report.instances = analysis.subjects.map { subject in
            let box = subject.boundingBox
            return ImageReport.Instance(number: subject.index + 1, bbox: [box.x, box.y, box.width, box.height], area: subject.area,
                                        score: (Double(subject.score) * 1e4).rounded() / 1e4, kept: keptIndices.contains(subject.index))
        }
        report.timings = timings.rounded()
        return report
    }

    /// The subjects `--instances` or `--at` choose.
    private func select(from analysis: Analysis) throws(CutoutError) -> [Subject] {
        let subjects = analysis.subjects
        if let point = options.point {
            guard let subject = analysis.subject(at: point) else {
                throw .noSubjectAt(x: point.x, y: point.y, subjectCount: subjects.count)
            }
            return [subject]
        }
        switch options.instances {
        case .all: return subjects
        case .largest: return Array(subjects.prefix(1))
        case .numbers(let numbers):
            return try numbers.map { number throws(CutoutError) in
                guard number <= subjects.count else { throw .noSuchSubject(number: number, subjectCount: subjects.count) }
                return subjects[number - 1]
            }
        }
    }

    /// The label map as 8-bit grey: 0 background, `n` for subject `n`.
    private func labelImage(_ labels: LabelMap) throws(CutoutError) -> GrayImage {
        guard labels.count <= 255 else { throw .tooManySubjectsForLabels(count: labels.count) }
        return GrayImage(width: labels.width, height: labels.height, pixels: labels.labels.map { UInt8(truncatingIfNeeded: $0) })
    }
}

extension StageTimings {
    /// Every stage rounded to a microsecond, so reports stay readable.
    func rounded() -> StageTimings {
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
