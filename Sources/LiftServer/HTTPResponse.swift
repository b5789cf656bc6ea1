import Foundation

/// A response: status, header fields and a body sent with `Content-Length`.
public struct HTTPResponse: Sendable {
    /// The status.
    public var status: HTTPStatus
    /// Header fields other than `Content-Length`, `Connection` and `Date`, which `head` adds.
    public var headers: [(String, String)]
    /// The body (omitted on the wire for HEAD requests and 204/304).
    public var body: [UInt8]

    /// A response with `status`, `headers` and `body`.
    public init(_ status: HTTPStatus, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: HTTPStatus = .ok, _ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)).map { [UInt8]($0) + [10] } ?? Array("{}\n".utf8)
        return HTTPResponse(status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The JSON error document for `error`: `{"error":"Content Too Large","message":"…","status":413}`.
    public static func error(_ error: HTTPError) -> HTTPResponse {
        var response = json(error.status, ErrorDocument(status: error.status.code, error: error.status.reason, message: error.message))
        response.headers += error.headers
        return response
    }

    private struct ErrorDocument: Encodable {
        var status: Int
        var error: String
        var message: String
    }

    /// The status line and header block, ending with the empty line; `Content-Length` is the body's
    /// (also for HEAD, whose body the connection then leaves out).
    /// - Parameter closing: adds `Connection: close`.
    public func head(closing: Bool, date: Date = Date()) -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        text += "Date: \(Self.httpDate(date))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if status.code != 204 { text += "Content-Length: \(body.count)\r\n" }
        if closing { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7): `Fri, 04 Dec 2026 01:20:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
