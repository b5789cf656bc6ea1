import Lift

/// Everything `lift serve` was asked for.
public struct ServeConfiguration: Sendable {
    /// Address, port, request limits and timeouts.
    public var http = HTTPServer.Settings()
    /// The model answering requests that name none (`nil`: subject, else person).
    public var model: ModelName?
    /// The quality of requests that name none.
    public var quality: Quality = .balanced
    /// Worker threads for each photo's model and mask stages (`nil`: every core).
    public var threads: Int?
    /// Photos processed at once.
    public var workers = 2
    /// Photos that may wait for a worker before requests are refused with 503.
    public var queueCapacity = 32
    /// Size and memory limits each photo is checked against before it is decoded; its
    /// `maxMemoryBytes` is also the budget all photos in work share (`SharedMemoryBudget`).
    public var limits = DecodingLimits.default
    /// How long a photo waits for the photos in work to leave it room in the memory budget before
    /// it is answered 503.
    public var memoryPatience: Duration = .seconds(30)
    /// The bearer token `/api/*` and `/metrics` require, when set.
    public var token: String?
    /// Origins allowed to call the API from a browser (CORS), `*` for any; none by default.
    public var corsOrigins: [String] = []
    /// Request headers a browser may send besides `CORSPolicy.safeHeaders` (`--cors-header`).
    public var corsHeaders: [String] = []
    /// Access-log lines as text or JSON.
    public var logFormat = LogFormat.text
    /// How long SIGTERM waits for requests in flight before exiting anyway.
    public var drainTimeout: Duration = .seconds(30)

    /// Access-log line formats.
    public enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }

    /// The defaults: 127.0.0.1:7000, balanced, 2 photos at once, 32 waiting, no token, no CORS.
    public init() {}
}
