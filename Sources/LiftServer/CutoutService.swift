import Foundation
import Lift
import LiftPipeline
import Synchronization

/// Turns a photo and request options into an answer: the cut-out PNG, the grey mask PNG, or the
/// analysis as JSON. Networks are loaded once per model and quality and shared by every request
/// (`SubjectLifter` values share their loaded networks and may be used from several threads).
final class CutoutService: Sendable {
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
    private func lifter(for request: CutoutRequest) throws(LiftError) -> SubjectLifter {
        let key = LifterKey(model: request.model, quality: request.quality)
        let result: Result<SubjectLifter, LiftError> = lifters.withLock { lifters in
            if let lifter = lifters[key] { return .success(lifter) }
            do throws(LiftError) {
                let lifter = try SubjectLifter(model: request.model, quality: request.quality, threads: threads)
                lifters[key] = lifter
                return .success(lifter)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Processes `photo` (the bytes of an image file) as `request` says (`CutoutPipeline`): the
    /// request's main image as the body, or with no image asked for, the analysis as JSON.
    /// - Parameter name: how errors name the photo (its form file name, or "the photo").
    /// - Throws: `HTTPError` 415 (not an image), 422 (undecodable, over the pixel limit, no such
    ///   subject), 500 (the model failed).
    func process(photo: [UInt8], name: String, request: CutoutRequest) throws(HTTPError) -> HTTPResponse {
        var timings = StageTimings()
        var clock = Stopwatch()
        do {
            let decoded = try ImageFiles.decodePhoto(photo, name: name, limits: limits, threads: threads)
            timings.decode = clock.lap()
            let lifter = try lifter(for: request)
            let result = try CutoutPipeline.run(request, on: decoded, with: lifter, name: name, timings: &timings)
            var headers: [(String, String)] = [("X-Lift-Subjects", "\(result.analysis.subjects.count)")]
            guard let image = result.parts.first?.image else {
                let document = AnalysisDocument(analysis: result.analysis, model: lifter.modelDescription(width: decoded.image.width, height: decoded.image.height),
                                                quality: lifter.quality, timings: timings.rounded())
                var response = HTTPResponse.json(.ok, document)
                response.headers += headers
                return response
            }
            headers += [("X-Lift-Kept", "\(result.kept.count)"), ("Content-Type", request.outputs.format.mediaType), ("Vary", "Accept"),
                        ("Server-Timing", Self.serverTiming(timings))]
            return HTTPResponse(.ok, headers: headers, body: image.bytes)
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
            HTTPError(.unsupportedMediaType, "the photo is not a PNG, JPEG, WebP or GIF image", closesConnection: false)
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
    var width: Int
    var height: Int
    var model: String
    var quality: String
    var subjects: [SubjectRecord]
    var timings: StageTimings

    init(analysis: Analysis, model: String, quality: Quality, timings: StageTimings) {
        width = analysis.photo.width
        height = analysis.photo.height
        self.model = model
        self.quality = quality.rawValue
        subjects = analysis.subjects.map(SubjectRecord.init)
        self.timings = timings
    }
}
