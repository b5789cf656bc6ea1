/// A parsed request line and header block.
public struct HTTPRequestHead: Sendable {
    /// The method as sent (`GET`, `POST`; methods are case-sensitive).
    public var method: String
    /// The request target as sent (`/api/remove?background=white`).
    public var target: String
    /// The target's path, before `?` (not percent-decoded: routes compare it as sent).
    public var path: String
    /// The query's `name=value` pairs, percent-decoded (`+` is a space), in order.
    public var query: [(name: String, value: String)]
    /// The minor HTTP version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    public var minorVersion: Int
    /// The header fields.
    public var headers: HTTPHeaders

    /// Whether the connection stays open after the response: HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive` (RFC 9112 §9.3).
    public var keepsAlive: Bool {
        let tokens = headers.tokens("Connection")
        return minorVersion >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    public var expectsContinue: Bool { headers.tokens("Expect").contains("100-continue") }

    /// How the body is delimited (RFC 9112 §6.3): chunked, a length, or none.
    /// - Throws: 400 for conflicting or malformed framing, 501 for a transfer coding other than
    ///   chunked, 413 for a declared length over `maxBodyBytes`.
    public func bodyFraming(maxBodyBytes: Int) throws(HTTPError) -> BodyFraming {
        let transferCodings = headers.tokens("Transfer-Encoding")
        let lengths = headers.values("Content-Length").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingASCIISpaces }
        if !transferCodings.isEmpty {
            // A request with both could be read two ways by two servers (request smuggling): refused.
            guard lengths.isEmpty else {
                throw HTTPError(.badRequest, "the request has both Transfer-Encoding and Content-Length; send one")
            }
            guard minorVersion >= 1 else { throw HTTPError(.badRequest, "Transfer-Encoding is not allowed in HTTP/1.0") }
            guard transferCodings == ["chunked"] else {
                throw HTTPError(.notImplemented, "transfer coding '\(transferCodings.joined(separator: ", "))' is not supported; send the body plain or chunked")
            }
            return .chunked
        }
        guard let first = lengths.first else { return .none }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
              first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let length = Int(first) else {
            throw HTTPError(.badRequest, "invalid Content-Length '\(lengths.joined(separator: ", "))'")
        }
        guard length <= maxBodyBytes else { throw HTTPError.bodyTooLarge(limit: maxBodyBytes) }
        return length == 0 ? .none : .length(length)
    }
}

/// How a request's body is delimited.
public enum BodyFraming: Sendable, Equatable {
    /// No body.
    case none
    /// Exactly this many bytes follow the head.
    case length(Int)
    /// Chunked transfer coding.
    case chunked
}

extension HTTPError {
    /// 413 for a body over `limit` bytes.
    static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "the request body is larger than this server's limit of \(ByteCount.text(limit)) (--max-body)")
    }
}
