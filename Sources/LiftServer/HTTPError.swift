/// A request `lift serve` answers with an error status: the status and a sentence for a person,
/// sent as JSON (`{"status":413,"error":"Content Too Large","message":"…"}`).
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status to answer with.
    public var status: HTTPStatus
    /// What went wrong, for a person.
    public var message: String
    /// Extra response headers (`Retry-After`, `Allow`, `WWW-Authenticate`).
    public var headers: [(String, String)] = []
    /// Whether the connection must be closed after the answer (the request's body was not read, or
    /// the stream can no longer be trusted).
    public var closesConnection: Bool

    /// An error with `status` and `message`; `closesConnection` defaults to true for framing errors
    /// (4xx raised before the body was read) and is set by whoever raises it.
    public init(_ status: HTTPStatus, _ message: String, headers: [(String, String)] = [], closesConnection: Bool = true) {
        self.status = status
        self.message = message
        self.headers = headers
        self.closesConnection = closesConnection
    }

    public var description: String { "\(status): \(message)" }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.closesConnection == rhs.closesConnection
            && lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" }
    }
}
