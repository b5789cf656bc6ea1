/// What an `HTTPServer` serves: it decides on each request head before the body is read, answers
/// whole requests, and hears about every answer (for logs and metrics).
public protocol HTTPService: Sendable {
    /// Checks a request head before its body is read (route, method, credentials, whether the server
    /// can take more work); throwing answers with that error without reading the body.
    func accept(_ head: HTTPRequestHead) throws(HTTPError)

    /// The answer to a whole request (errors become error responses inside).
    func respond(to head: HTTPRequestHead, body: [UInt8]) -> HTTPResponse

    /// Adds headers every answer to `head` carries (CORS), errors included; `head` is nil when the
    /// request could not be parsed.
    func decorate(_ response: inout HTTPResponse, for head: HTTPRequestHead?)

    /// Called once per answered request, after its response was written (or failed to be).
    func didAnswer(_ exchange: HTTPExchange)

    /// The answer to a request that arrived on a connection over the server's limit, when it costs
    /// nothing and reads no body (a health check), else nil (the server answers 503). Called on the
    /// one thread that answers such connections: it must not block.
    func overflowResponse(to head: HTTPRequestHead) -> HTTPResponse?
}

extension HTTPService {
    /// None: every request over the connection limit gets 503.
    public func overflowResponse(to head: HTTPRequestHead) -> HTTPResponse? { nil }
}

/// One answered request, as access logs and metrics see it.
public struct HTTPExchange: Sendable {
    /// The client's `host:port`.
    public var peer: String
    /// The parsed head, nil when the request was malformed.
    public var head: HTTPRequestHead?
    /// The status sent.
    public var status: HTTPStatus
    /// Bytes of the request (head and body) and of the response (head and body).
    public var bytesReceived: Int
    public var bytesSent: Int
    /// Seconds from the request's first byte to the response's last.
    public var duration: Double
}
