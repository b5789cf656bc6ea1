import Foundation

/// A response as a test reads it.
public struct TestResponse {
    public var status: Int
    /// Header values by lowercased name (repeated fields joined with ", ").
    public var headers: [String: String]
    public var body: [UInt8]
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { throw RawClientError.notJSONObject }
        return object
    }
}

/// A client on a raw TCP socket, for what URLSession will not send: malformed requests, pipelining,
/// slow and partial uploads, and watching the connection close.
public final class RawClient {
    public let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard status == 0 else {
            close(descriptor)
            throw RawClientError.cannotConnect
        }
    }

    deinit { close(descriptor) }

    /// Sends everything; false when the server has closed (EPIPE, reset).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    private var pending: [UInt8] = []

    /// Reads bytes until `count` are pending or `timeout` passes; false on EOF or timeout.
    private func fill(_ count: Int, deadline: Date) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while pending.count < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let received = recv(descriptor, &buffer, buffer.count, 0)
            guard received > 0 else { return false }
            pending += buffer[..<received]
        }
        return true
    }

    /// Reads one response (head, then a `Content-Length` body); nil when the connection ended first.
    public func readResponse(timeout: TimeInterval = 30) -> TestResponse? {
        let deadline = Date().addingTimeInterval(timeout)
        var headEnd: Int?
        while headEnd == nil {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound { headEnd = end; break }
            guard fill(pending.count + 1, deadline: deadline) else { return nil }
        }
        guard let end = headEnd else { return nil }
        let lines = String(decoding: pending[..<(end - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        pending.removeFirst(end)
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let length = status == 100 || status == 204 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        guard fill(length, deadline: deadline) else { return nil }
        let body = Array(pending[..<length])
        pending.removeFirst(length)
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Whether the server closes the connection (EOF or reset) within `timeout`, after any bytes
    /// already on their way.
    public func closedByServer(within timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !fill(pending.count + 1, deadline: deadline) { return Date() < deadline }
            pending.removeAll()
        }
        return false
    }
}

/// Why a raw client could not do what a test asked.
public enum RawClientError: Error {
    case cannotConnect
    case notJSONObject
}

/// A request with a photo body, as raw bytes.
public func rawPost(_ path: String, body: [UInt8], extraHeaders: String = "") -> [UInt8] {
    Array("POST \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: image/png\r\nContent-Length: \(body.count)\r\n\(extraHeaders)\r\n".utf8) + body
}
