import Foundation
import Lift
import LiftCLI
import Synchronization

/// Turns a photo and request options into an answer: the cut-out PNG, the grey mask PNG, or the
/// analysis as JSON. Networks are loaded once per model and quality and shared by every request
/// (`SubjectLifter` values share their loaded networks and may be used from several threads).
final class CutoutService: Sendable {
    /// What a request asks to get back.
    enum Product: Sendable {
        case cutout, mask, analysis
    }

    private let limits: DecodingLimits
    private let threads: Int?
    private let lifters: Mutex<[LifterKey: SubjectLifter]>

    private struct LifterKey: Hashable {
        var model: ModelName?
        var quality: Quality
    }

    /// Loads the default model at the default quality, so a server that starts can answer.
    /// - Throws: `LiftError` when the model cannot be found or loaded.
    init(model: ModelName?, quality: Quality, threads: Int?, limits: DecodingLimits) throws(LiftError) {
        self.limits = limits
        self.threads = threads
        let lifter = try SubjectLifter(model: model, quality: quality, threads: threads)
        lifters = Mutex([LifterKey(model: model, quality: quality): lifter])
    }

    /// The model the server answers with when a request names none.
    var defaultModel: ModelName {
        lifters.withLock { $0.values.first?.model ?? .subject }
    }

    /// The lifter for a request's model and quality, loaded on first use.
    private func lifter(for options: CutoutOptions) throws(LiftError) -> SubjectLifter {
        let key = LifterKey(model: options.model, quality: options.quality)
        let result: Result<SubjectLifter, LiftError> = lifters.withLock { lifters in
            if let lifter = lifters[key] { return .success(lifter) }
            do throws(LiftError) {
                let lifter = try SubjectLifter(model: options.model, quality: options.quality, threads: threads)
                lifters[key] = lifter
                return .success(lifter)
            } catch {
                return .failure(error)
            }
        }
        var lifter = try result.get()
        if let threshold = options.threshold { lifter.analysisOptions.threshold = threshold }
        if options.noRefine { lifter.analysisOptions.refine = false }
        lifter.analysisOptions.decontaminate = options.decontaminate
        lifter.analysisOptions.instances = options.instancesBy
        return lifter
    }

    /// Processes `photo` (PNG or JPEG bytes) as `options` say.
    /// - Parameter name: how errors name the photo (its form file name, or "the photo").
    /// - Throws: `HTTPError` 415 (not an image), 422 (undecodable, over the pixel limit, no such
    ///   subject), 500 (the model failed).
    func process(photo: [UInt8], name: String, options: RequestOptions, product: Product) throws(HTTPError) -> HTTPResponse {
        var timings = StageTimings()
        var clock = Stopwatch()
        do {
            let decoded = try ImageFiles.decodePhoto(photo, name: name, limits: limits, threads: threads)
            timings.decode = clock.lap()
            let lifter = try lifter(for: options.cutout)
            let analysis = try lifter.analyze(decoded.image, timings: &timings)
            _ = clock.lap()
            var headers: [(String, String)] = [("X-Lift-Subjects", "\(analysis.subjects.count)")]
            let body: [UInt8]
            switch product {
            case .analysis:
                let document = AnalysisDocument(analysis: analysis, model: lifter.modelDescription(width: decoded.image.width, height: decoded.image.height),
                                                quality: lifter.quality, timings: timings.rounded())
                var response = HTTPResponse.json(.ok, document)
                response.headers += headers
                return response
            case .mask:
                let kept = try options.cutout.selectSubjects(from: analysis)
                timings.composite = clock.lap()
                body = try ImageFiles.encodeMaskPNG(of: analysis, for: kept, name: name, threads: threads)
                headers.append(("X-Lift-Kept", "\(kept.count)"))
            case .cutout:
                let kept = try options.cutout.selectSubjects(from: analysis)
                if options.cutout.crop != nil, kept.isEmpty { throw CutoutError.nothingToCrop }
                // As the CLI: rows rendered as the encoder takes them.
                let rows = try analysis.imageRows(for: kept, croppedToExtent: options.cutout.crop != nil,
                                                  background: options.cutout.background, layout: options.cutout.outputLayout)
                timings.composite = clock.lap()
                body = try ImageFiles.encodePNG(rows, name: name, compression: options.cutout.pngLevel, color: decoded.color, threads: threads)
                headers.append(("X-Lift-Kept", "\(kept.count)"))
            }
            timings.encode = clock.lap()
            headers += [("Content-Type", "image/png"), ("Server-Timing", Self.serverTiming(timings))]
            return HTTPResponse(.ok, headers: headers, body: body)
        } catch let error as LiftError {
            throw Self.httpError(error)
        } catch let error as CutoutError {
            throw HTTPError(.unprocessableContent, error.description, closesConnection: false)
        } catch let error as MaskError {
            throw HTTPError(.unprocessableContent, "\(error)", closesConnection: false)
        } catch {
            throw HTTPError(.internalServerError, "\(error)", closesConnection: false)
        }
    }

    /// The status a `LiftError` answers with.
    private static func httpError(_ error: LiftError) -> HTTPError {
        switch error {
        case .unsupportedFormat:
            HTTPError(.unsupportedMediaType, "the photo is not a PNG or JPEG image", closesConnection: false)
        case .fileTooLarge, .undecodable:
            HTTPError(.unprocessableContent, error.description, closesConnection: false)
        case .noInstanceCues:
            HTTPError(.badRequest, error.description, closesConnection: false)
        default:
            HTTPError(.internalServerError, error.description, closesConnection: false)
        }
    }

    /// `Server-Timing` (W3C): `decode;dur=12.1, inference;dur=9.8, …` in milliseconds.
    private static func serverTiming(_ timings: StageTimings) -> String {
        [("decode", timings.decode), ("preprocess", timings.preprocess), ("inference", timings.inference), ("mask", timings.mask),
         ("composite", timings.composite), ("encode", timings.encode)]
            .map { "\($0.0);dur=\(($0.1 * 10).rounded() / 10)" }.joined(separator: ", ")
    }
}

/// `POST /api/analyze`'s answer: the photo's size, what ran, the subjects (largest first) and the
/// stage times in milliseconds.
struct AnalysisDocument: Encodable {
    struct SubjectEntry: Encodable {
        /// 1-based, as `instances=` and the CLI number them.
        var number: Int
        /// x, y, width, height in photo pixels.
        var bbox: [Int]
        /// Pixels of the hard mask.
        var area: Int
        /// Mean foreground probability over the subject, 0…1.
        var score: Double
    }

    var width: Int
    var height: Int
    var model: String
    var quality: String
    var subjects: [SubjectEntry]
    var timings: StageTimings

    init(analysis: Analysis, model: String, quality: Quality, timings: StageTimings) {
        width = analysis.photo.width
        height = analysis.photo.height
        self.model = model
        self.quality = quality.rawValue
        subjects = analysis.subjects.map { subject in
            let box = subject.boundingBox
            return SubjectEntry(number: subject.index + 1, bbox: [box.x, box.y, box.width, box.height], area: subject.area,
                                score: (Double(subject.score) * 1e4).rounded() / 1e4)
        }
        self.timings = timings
    }
}
