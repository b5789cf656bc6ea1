/// Which web pages on other origins may call `lift serve` from a browser, and the CORS headers
/// (the Fetch standard's cross-origin protocol) that tell the browser so.
///
/// - An origin is allowed when it is listed (`https://editor.example.com`, compared exactly) or the
///   list holds `*`. A listed origin is echoed in `Access-Control-Allow-Origin`; `*` is answered as
///   `*`. `Access-Control-Allow-Credentials` is never sent, so a browser never attaches cookies or
///   stored HTTP credentials: the bearer token is a header the page sets itself, which `*` allows.
/// - A preflight's `Access-Control-Request-Headers` are echoed in `Access-Control-Allow-Headers`
///   when every one is in `safeHeaders` or `extraHeaders`; otherwise the preflight is refused with
///   403 naming the headers, so the page's author reads why instead of a bare network error.
/// - While any origin is configured, every answer carries `Vary: Origin` (preflights also
///   `Access-Control-Request-Headers`), so a shared cache never hands one origin's answer to another.
package struct CORSPolicy: Sendable {
    /// Request headers a page may send without the operator naming them: the token, the body's
    /// type, content negotiation, request ids and W3C trace context (`traceparent`, `tracestate`,
    /// `baggage`) that editors' tracing adds, and the `X-Requested-With` of older AJAX libraries.
    package static let safeHeaders = ["Authorization", "Content-Type", "Accept", "X-Request-Id", "traceparent", "tracestate",
                                      "baggage", "X-Requested-With"]
    /// Headers the API's answers expose to a page's script (besides the CORS-safelisted ones).
    static let exposedHeaders = "X-Lift-Subjects, X-Lift-Kept, Server-Timing"
    /// How long a browser may reuse a preflight's answer, in seconds.
    static let preflightMaxAge = "600"

    /// Allowed origins (`scheme://host[:port]`), or `*` for any.
    package var origins: [String]
    /// Request headers allowed besides `safeHeaders` (`lift serve --cors-header`).
    package var extraHeaders: [String]

    /// A policy for `origins` (none: no CORS headers at all) and `extraHeaders`.
    package init(origins: [String], extraHeaders: [String] = []) {
        self.origins = origins
        self.extraHeaders = extraHeaders
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, or nil when that origin
    /// may not call the server (or the request has no `Origin`).
    package func allowedOrigin(_ origin: String?) -> String? {
        guard let origin else { return nil }
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    /// The CORS headers for an answer to `head` (any answer, the preflight's included): `Vary`
    /// whenever CORS is configured; the allowed origin and the exposed headers when `Origin` is allowed.
    package func responseHeaders(for head: HTTPRequestHead?) -> [(String, String)] {
        guard !origins.isEmpty else { return [] }
        let isPreflight = head.map(Self.isPreflight) ?? false
        var headers = [("Vary", isPreflight ? "Origin, Access-Control-Request-Headers" : "Origin")]
        if let allowed = allowedOrigin(head?.headers["Origin"]) {
            headers += [("Access-Control-Allow-Origin", allowed), ("Access-Control-Expose-Headers", Self.exposedHeaders)]
        }
        return headers
    }

    /// The headers of a successful preflight for `head` on a route taking `methods`
    /// (`GET, HEAD, OPTIONS`), added to those of `responseHeaders(for:)`.
    /// - Throws: 403 when the origin is not allowed, or naming each requested header that is not.
    package func preflightHeaders(for head: HTTPRequestHead, methods: String) throws(HTTPError) -> [(String, String)] {
        let origin = head.headers["Origin"] ?? ""
        guard allowedOrigin(origin) != nil else {
            throw HTTPError(.forbidden, "origin \(origin) may not call this server from a browser (lift serve --cors-origin)", closesConnection: false)
        }
        let requested = head.headers.tokens("Access-Control-Request-Headers")
        let refused = requested.filter { name in !(Self.safeHeaders + extraHeaders).contains { $0.caseInsensitiveEquals(name) } }
        guard refused.isEmpty else {
            let names = refused.map { "'\($0)'" }.joined(separator: ", ")
            throw HTTPError(.forbidden, "request header\(refused.count == 1 ? "" : "s") \(names) may not be sent from a browser; allowed are "
                            + (Self.safeHeaders + extraHeaders).joined(separator: ", ") + " (add one with lift serve --cors-header NAME)",
                            closesConnection: false)
        }
        var headers = [("Access-Control-Allow-Methods", methods), ("Access-Control-Max-Age", Self.preflightMaxAge)]
        if !requested.isEmpty { headers.append(("Access-Control-Allow-Headers", requested.joined(separator: ", "))) }
        return headers
    }

    /// Whether `head` is a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
    package static func isPreflight(_ head: HTTPRequestHead) -> Bool {
        head.method == "OPTIONS" && head.headers["Origin"] != nil && head.headers["Access-Control-Request-Method"] != nil
    }

    /// Whether `name` can be a header field name (an RFC 9110 token), as `--cors-header` takes.
    package static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPRequestDecoder.isTokenByte)
    }
}
