import Foundation
import Lift
import LiftPipeline
import Synchronization

/// `lift serve`'s routes over an `HTTPServer`: the API (`/api/remove`, `/api/mask`, `/api/analyze`),
/// the web page (`/`), its OpenAPI description (`/openapi.json`), `/healthz` and `/metrics`; bearer
/// tokens, CORS for listed origins, the work queue, access log and metrics.
public final class LiftService: HTTPService {
    private let configuration: ServeConfiguration
    private let cutouts: CutoutService
    /// Admits photos to the workers (`package` so tests can hold a worker busy).
    package let scheduler: WorkScheduler
    private let metrics = ServerMetrics()
    private let log: AccessLog
    /// The server this service answers for (`attach(to:)`), read for `/metrics`' connection count.
    private let server = Mutex<HTTPServer?>(nil)

    /// The routes and the methods each takes.
    private static let routes: [String: [String]] = [
        "/": ["GET", "HEAD"], "/healthz": ["GET", "HEAD"], "/metrics": ["GET", "HEAD"], "/openapi.json": ["GET", "HEAD"],
        "/api/remove": ["POST"], "/api/mask": ["POST"], "/api/analyze": ["POST"],
    ]
    /// Routes that need the token when one is set.
    private static let protected: Set<String> = ["/metrics", "/api/remove", "/api/mask", "/api/analyze"]

    /// Loads the default model and makes the routes.
    /// - Parameter writeLog: where access-log lines go.
    /// - Throws: `LiftError` when the model cannot be loaded.
    public init(configuration: ServeConfiguration, writeLog: @escaping @Sendable (String) -> Void) throws(LiftError) {
        self.configuration = configuration
        cutouts = try CutoutService(model: configuration.model, quality: configuration.quality, threads: configuration.threads,
                                    limits: configuration.limits)
        scheduler = WorkScheduler(workers: configuration.workers, queueCapacity: configuration.queueCapacity)
        log = AccessLog(format: configuration.logFormat == .json ? .json : .text, write: writeLog)
    }

    /// Tells the service which server it answers for (whose open connections `/metrics` reports).
    public func attach(to server: HTTPServer) { self.server.withLock { $0 = server } }

    /// The model answering requests that name none.
    public var modelName: String { cutouts.defaultModel.rawValue }

    public func accept(_ head: HTTPRequestHead) throws(HTTPError) {
        if head.method == "OPTIONS" { return }
        guard let methods = Self.routes[head.path] else {
            throw HTTPError(.notFound, "there is nothing at \(head.path); the API is POST /api/remove, /api/mask and /api/analyze",
                            closesConnection: false)
        }
        guard methods.contains(head.method) else {
            if head.path.hasPrefix("/api/"), head.query.contains(where: { $0.name == "url" }) {
                throw HTTPError(.badRequest, "Lift never fetches URLs for a client (no 'url' option); POST the photo's bytes as the body or as the form field 'file'",
                                closesConnection: false)
            }
            throw HTTPError(.methodNotAllowed, "\(head.path) takes \(methods.joined(separator: " or ")), not \(head.method)",
                            headers: [("Allow", methods.joined(separator: ", "))], closesConnection: false)
        }
        if Self.protected.contains(head.path), let token = configuration.token {
            guard Self.bearerToken(head.headers["Authorization"]).map({ Self.constantTimeEquals($0, token) }) == true else {
                throw HTTPError(.unauthorized, "this server needs 'Authorization: Bearer <token>' (lift serve --token)",
                                headers: [("WWW-Authenticate", "Bearer realm=\"lift\"")], closesConnection: false)
            }
        }
        if head.method == "POST" {
            if scheduler.isFull { throw Self.busy(scheduler) }
        }
    }

    public func respond(to head: HTTPRequestHead, body: [UInt8]) -> HTTPResponse {
        do throws(HTTPError) {
            switch (head.method, head.path) {
            case ("OPTIONS", _): return try preflight(head)
            case (_, "/"): return HTTPResponse(.ok, headers: Self.pageHeaders, body: EmbeddedFiles.page)
            case (_, "/openapi.json"): return HTTPResponse(.ok, headers: [("Content-Type", "application/json")], body: EmbeddedFiles.openAPI)
            case (_, "/healthz"): return .json(.ok, Health(status: "ok", version: LiftVersion.string, model: cutouts.defaultModel.rawValue))
            case (_, "/metrics"):
                let load = scheduler.load
                let text = metrics.text(queueDepth: load.waiting, inFlight: load.running, connections: server.withLock { $0?.openConnections ?? 0 },
                                        workers: scheduler.workers, queueCapacity: scheduler.queueCapacity)
                return HTTPResponse(.ok, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: Array(text.utf8))
            case (_, "/api/remove"): return try process(head, body: body, image: .cutout)
            case (_, "/api/mask"): return try process(head, body: body, image: .mask)
            case (_, "/api/analyze"): return try process(head, body: body, image: nil)
            default: throw HTTPError(.notFound, "there is nothing at \(head.path)", closesConnection: false)
            }
        } catch {
            return .error(error)
        }
    }

    public func decorate(_ response: inout HTTPResponse, for head: HTTPRequestHead?) {
        response.headers.append(("Server", "lift/\(LiftVersion.string)"))
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers += cors.responseHeaders(for: head)
    }

    public func didAnswer(_ exchange: HTTPExchange) {
        metrics.record(exchange)
        log.record(exchange)
    }

    /// `/healthz` is answered even on a connection over the limit: a probe must not fail because a
    /// flood holds every connection.
    public func overflowResponse(to head: HTTPRequestHead) -> HTTPResponse? {
        guard head.path == "/healthz", head.method == "GET" || head.method == "HEAD" else { return nil }
        return respond(to: head, body: [])
    }

    /// Runs one photo through the queue and the pipeline; `image` is what the route answers with
    /// (`nil`: the analysis as JSON).
    private func process(_ head: HTTPRequestHead, body: [UInt8], image: CutoutOutputs.Image?) throws(HTTPError) -> HTTPResponse {
        var fields = head.query
        var photo = body
        var name = "the photo"
        if let type = head.headers["Content-Type"], let boundary = try MultipartForm.boundary(contentType: type) {
            let form = try MultipartForm(body: body, boundary: boundary)
            for part in form.parts where part.name != "file" {
                fields.append((part.name, String(decoding: part.data, as: UTF8.self)))
            }
            let files = form.parts.count { $0.name == "file" }
            guard files <= 1 else {
                throw HTTPError(.badRequest, "the form has \(files) fields named 'file'; send one photo per request", closesConnection: false)
            }
            guard let file = form.part("file") else {
                throw HTTPError(.badRequest, "the form has no field 'file' holding the photo", closesConnection: false)
            }
            photo = Array(file.data)
            if let filename = file.filename, !filename.isEmpty { name = filename }
        }
        let options = try RequestOptions(fields: fields, serverModel: configuration.model, serverQuality: configuration.quality)
        var request = options.request
        // `/api/remove` answers as the request says (the cut-out, or the mask for `only-mask`/`om`).
        if image != .cutout { request.outputs.image = image }
        if request.outputs.image != nil {
            if !options.formatGiven, let accept = head.headers["Accept"] { request.outputs.format = try Self.format(accepting: accept, for: request) }
            do throws(UsageError) {
                try request.checkFormats(spelled: { $0.name ?? $0.key }, backgroundExample: "background=white")
            } catch {
                throw HTTPError(.badRequest, error.description, closesConnection: false)
            }
        }
        return try process(photo: photo, name: name, request: request)
    }

    /// The format an `Accept` header asks for: the acceptable one with the highest weight, PNG first
    /// among equals (so `*/*` and `image/*` keep PNG), then WebP, then JPEG, which a transparent
    /// cut-out cannot be.
    /// - Throws: 406 when no format Lift writes is acceptable.
    private static func format(accepting accept: String, for request: CutoutRequest) throws(HTTPError) -> OutputFormat {
        let transparent = request.outputs.image == .cutout && !request.background.isOpaque
        let candidates = OutputFormat.allCases.filter { !(transparent && $0 == .jpeg) }
        guard let format = AcceptHeader(accept).best(of: candidates) else {
            throw HTTPError(.notAcceptable, "Accept: \(accept) allows none of " + candidates.map(\.mediaType).joined(separator: ", ")
                            + (transparent ? " (a transparent cut-out cannot be a JPEG: send background=white, or another opaque background)" : "")
                            + "; or name the format with format=png|webp|jpeg", closesConnection: false)
        }
        return format
    }

    private func process(photo: [UInt8], name: String, request: CutoutRequest) throws(HTTPError) -> HTTPResponse {
        guard !photo.isEmpty else {
            throw HTTPError(.badRequest, "the request has no photo; send its bytes as the body or as the form field 'file'", closesConnection: false)
        }
        // The photo's memory is reserved from the process's one budget before it takes a worker: a
        // photo that does not fit beside those in work waits here, on its connection's thread.
        guard let memory = SharedMemoryBudget.shared.reserve(forImage: photo, limits: configuration.limits,
                                                             waitingAtMost: configuration.memoryPatience) else {
            throw HTTPError(.serviceUnavailable, "the photos in work hold the server's memory budget (\(MemoryBudget.size(configuration.limits.maxMemoryBytes))); "
                            + "try again shortly", headers: [("Retry-After", "5")], closesConnection: false)
        }
        defer { memory.release() }
        let result: Result<HTTPResponse, HTTPError>? = scheduler.run {
            do throws(HTTPError) {
                return .success(try cutouts.process(photo: photo, name: name, request: request))
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw Self.busy(scheduler) }
        return try result.get()
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`),
    /// or to a plain `OPTIONS`.
    private func preflight(_ head: HTTPRequestHead) throws(HTTPError) -> HTTPResponse {
        let allow = Self.routes[head.path].map { ($0 + ["OPTIONS"]).joined(separator: ", ") } ?? "GET, HEAD, POST, OPTIONS"
        guard CORSPolicy.isPreflight(head) else { return HTTPResponse(.noContent, headers: [("Allow", allow)]) }
        return HTTPResponse(.noContent, headers: try cors.preflightHeaders(for: head, methods: allow))
    }

    /// The origins and request headers `--cors-origin` and `--cors-header` allow.
    private var cors: CORSPolicy { CORSPolicy(origins: configuration.corsOrigins, extraHeaders: configuration.corsHeaders) }

    private static func busy(_ scheduler: WorkScheduler) -> HTTPError {
        HTTPError(.serviceUnavailable, "the server is busy (\(scheduler.workers) photos in work, \(scheduler.queueCapacity) waiting); try again shortly",
                  headers: [("Retry-After", "1")], closesConnection: false)
    }

    /// The token of `Bearer <token>`.
    private static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveEquals("Bearer") else { return nil }
        return parts[1].trimmingASCIISpaces
    }

    /// Equality that takes as long whatever the first difference (tokens are secrets).
    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) { difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0) }
        return difference == 0
    }

    /// The page's headers: HTML, revalidated, and a policy that lets it load nothing from elsewhere.
    private static let pageHeaders = [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
        ("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' blob: data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'"),
    ]

    private struct Health: Encodable {
        var status: String
        var version: String
        var model: String
    }
}
