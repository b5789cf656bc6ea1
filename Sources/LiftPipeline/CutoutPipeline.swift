import Lift

/// One encoded image of a cut-out: the file's bytes and the image's size in pixels.
public struct EncodedImage: Sendable, Equatable {
    /// The whole file.
    public var bytes: [UInt8]
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// An encoded image from its parts.
    public init(bytes: [UInt8], width: Int, height: Int) {
        self.bytes = bytes
        self.width = width
        self.height = height
    }
}

/// What `CutoutPipeline.run` made of one photo.
public struct CutoutResult: Sendable {
    /// The main image (`CutoutOutputs.image`) and the mask of one group of kept subjects.
    public struct Part: Sendable {
        /// The subject's number (1-based) when the part is one subject of `eachSubject`; `nil` for all kept together.
        public var subjectNumber: Int?
        /// The main image, when the request asks for one.
        public var image: EncodedImage?
        /// The grey mask, when the request asks for it.
        public var mask: EncodedImage?
    }

    /// The photo's analysis: its size and every subject found.
    public let analysis: Analysis
    /// The subjects kept, in the order chosen (largest first for `all`); none when the request asks
    /// for no image and no mask.
    public let kept: [Subject]
    /// One part of all kept subjects, or with `eachSubject` one per kept subject in `kept`'s order;
    /// none when the request asks for no image and no mask.
    public var parts: [Part]
    /// The instance label map as a grey PNG, when asked for.
    public var labels: EncodedImage?
}

/// The cut-out pipeline after decoding, shared by every surface: analyse the photo, choose the
/// subjects, composite them as the request says and encode each asked-for image. Reading the photo
/// and delivering the images (files, standard output, an HTTP answer) are the surfaces' own.
public enum CutoutPipeline {
    /// Runs `request` on `photo` with `lifter` (any analysis options of the lifter's are replaced by
    /// the request's, `CutoutRequest.configure`). Every image is encoded before this returns, so a
    /// photo that fails leaves nothing half made.
    /// - Parameters:
    ///   - name: how errors name the photo (its path, form file name, or "the photo").
    ///   - timings: the analysis's stages, `composite` and `encode` are added in milliseconds.
    /// - Throws: `LiftError` (model, encoding), `MaskError` (compositing), `CutoutError` (no such subject,
    ///   nothing to crop or to write).
    public static func run(_ request: CutoutRequest, on photo: DecodedPhoto, with lifter: SubjectLifter, name: String,
                           timings: inout StageTimings) throws -> CutoutResult {
        var clock = Stopwatch()
        let lifter = request.configure(lifter)
        let analysis = try lifter.analyze(photo.image, timings: &timings)
        _ = clock.lap()
        let outputs = request.outputs
        // An analysis alone chooses no subjects, so a point or number that fits none is no error there.
        let kept = outputs.image != nil || outputs.mask ? try request.selectSubjects(from: analysis) : []
        if outputs.image == .cutout, request.crop != nil, kept.isEmpty { throw CutoutError.nothingToCrop }
        if outputs.eachSubject, kept.isEmpty { throw CutoutError.noSubjectToWrite }

        let groups: [(number: Int?, subjects: [Subject])] = outputs.eachSubject ? kept.map { ($0.index + 1, [$0]) } : [(nil, kept)]
        var parts: [CutoutResult.Part] = []
        if outputs.image != nil || outputs.mask {
            for group in groups {
                var part = CutoutResult.Part(subjectNumber: group.number)
                switch outputs.image {
                case .cutout?:
                    part.image = try encodeCutout(of: group.subjects, from: analysis, request: request, color: photo.color, name: name,
                                                  threads: lifter.threads, timings: &timings, clock: &clock)
                case .mask?:
                    part.image = try encodeMask(of: group.subjects, from: analysis, as: outputs.format, outputs: outputs, name: name,
                                                threads: lifter.threads)
                case nil: break
                }
                if outputs.mask {
                    part.mask = try encodeMask(of: group.subjects, from: analysis, as: outputs.maskFormat, outputs: outputs, name: name,
                                               threads: lifter.threads)
                }
                timings.encode += clock.lap()
                parts.append(part)
            }
        }
        var labels: EncodedImage?
        if outputs.labels {
            guard analysis.subjects.count <= 65535 else { throw CutoutError.tooManySubjectsForLabels(count: analysis.subjects.count) }
            labels = EncodedImage(bytes: try ImageFiles.encodeLabelsPNG(of: analysis, name: name, threads: lifter.threads),
                                  width: analysis.photo.width, height: analysis.photo.height)
            timings.encode += clock.lap()
        }
        return CutoutResult(analysis: analysis, kept: kept, parts: parts, labels: labels)
    }

    /// `subjects` composited as `request` says and encoded; the rows of a PNG are rendered as the encoder
    /// takes them, so the cut-out is never held whole (`composite` then times only the preparation).
    private static func encodeCutout(of subjects: [Subject], from analysis: Analysis, request: CutoutRequest, color: PNGMetadata,
                                     name: String, threads: Int, timings: inout StageTimings, clock: inout Stopwatch) throws -> EncodedImage {
        let rows = try analysis.imageRows(for: subjects, croppedToExtent: request.crop != nil, background: request.background,
                                          layout: request.outputLayout)
        timings.composite += clock.lap()
        let bytes = try CutoutEncoding.encode(rows, as: request.outputs.format, outputs: request.outputs, color: color, name: name,
                                              threads: threads)
        return EncodedImage(bytes: bytes, width: rows.width, height: rows.height)
    }

    /// The grey mask of `subjects`, the photo's size, as `format`.
    private static func encodeMask(of subjects: [Subject], from analysis: Analysis, as format: OutputFormat, outputs: CutoutOutputs,
                                   name: String, threads: Int) throws -> EncodedImage {
        EncodedImage(bytes: try CutoutEncoding.encodeMask(of: subjects, from: analysis, as: format, outputs: outputs, name: name, threads: threads),
                     width: analysis.photo.width, height: analysis.photo.height)
    }
}

extension StageTimings {
    /// Every stage rounded to a microsecond, so reports stay readable.
    public func rounded() -> StageTimings {
        var copy = self
        for stage in [\StageTimings.decode, \.preprocess, \.inference, \.mask, \.composite, \.encode, \.write] {
            copy[keyPath: stage] = (copy[keyPath: stage] * 1000).rounded() / 1000
        }
        return copy
    }
}
