import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lift
import LiftServer
import Synchronization
import TestSupport
import Testing

/// A `lift serve` service and server in this process, on a port the system picks.
final class TestServer: Sendable {
    let server: HTTPServer
    let service: LiftService
    let log = LogLines()
    var port: Int { server.port }
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts a server with the defaults changed by `configure` (port 0, 2 workers before it).
    init(_ configure: (inout ServeConfiguration) -> Void = { _ in }) throws {
        var configuration = ServeConfiguration()
        configuration.http.port = 0
        configuration.workers = 2
        configure(&configuration)
        let log = log
        service = try LiftService(configuration: configuration, writeLog: { log.append($0) })
        server = try HTTPServer(settings: configuration.http, service: service)
        service.attach(to: server)
        server.start()
    }

    /// Stops it, waiting for requests in flight.
    func stop() { _ = server.stop(timeout: .seconds(10)) }
}

/// Access-log lines collected by a test server.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Photos for the server tests, made from committed fixtures.
enum ServerPhotos {
    /// Two astronauts side by side, 512×256, as PNG.
    static func twoAstronauts() throws -> [UInt8] {
        let one = try Fixtures.opaqueImage(rgb: "person/astronaut.rgb", width: 256, height: 256)
        var pixels: [UInt8] = []
        for row in 0..<one.height {
            let line = one.pixels[row * one.width * 4 ..< (row + 1) * one.width * 4]
            pixels += line
            pixels += line
        }
        return try PNGEncoder.encode(RGBAImage(width: 2 * one.width, height: one.height, pixels: pixels))
    }

    /// A flat grey 64×64 PNG: nothing to find.
    static func flatGrey() throws -> [UInt8] { try PNGEncoder.encode(RGBAImage(width: 64, height: 64, fill: (128, 128, 128, 255))) }
}

/// A response as a test reads it.
struct TestResponse {
    var status: Int
    /// Header values by lowercased name (repeated fields joined with ", ").
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON.
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }
}

/// Requests through Foundation's URLSession (what an app would use).
enum URLSessionClient {
    /// Sends a request and waits for its answer (blocking: Swift Testing's few cooperative threads
    /// are never held by the server tests' waits).
    static func send(_ url: String, method: String = "GET", body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> TestResponse {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        if let body { request.httpBody = Data(body) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = 60
        let finalRequest = request
        let answer = Background<Result<(Data, URLResponse?), any Error>> { done in
            URLSession.shared.dataTask(with: finalRequest) { data, response, error in
                done(error.map { .failure($0) } ?? .success((data ?? Data(), response)))
            }.resume()
        }
        let (data, response) = try answer.value().get()
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return TestResponse(status: http.statusCode, headers: fields, body: [UInt8](data))
    }

    /// A multipart/form-data body with `fields` and the photo as `file`.
    static func form(photo: [UInt8], filename: String = "photo.png", fields: [(String, String)] = []) -> (body: [UInt8], contentType: String) {
        let boundary = "lift-test-boundary-7c1e"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += photo + Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}

/// A client on a raw TCP socket, for what URLSession will not send: malformed requests, pipelining,
/// slow and partial uploads, and watching the connection close.
final class RawClient {
    let descriptor: Int32

    init(port: Int) throws {
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
    func send(_ bytes: [UInt8]) -> Bool {
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
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

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
    func readResponse(timeout: TimeInterval = 30) -> TestResponse? {
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
    func closedByServer(within timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !fill(pending.count + 1, deadline: deadline) { return Date() < deadline }
            pending.removeAll()
        }
        return false
    }
}

enum RawClientError: Error { case cannotConnect }

/// A value computed elsewhere (a thread, a callback), waited for with a semaphore.
final class Background<T>: @unchecked Sendable {
    private var result: T?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on its own thread; it calls its argument once with the value.
    init(_ body: @escaping @Sendable (@escaping @Sendable (T) -> Void) -> Void) {
        Thread { body { value in self.result = value; self.done.signal() } }.start()
    }

    /// Runs `body` on its own thread.
    convenience init(running body: @escaping @Sendable () -> T) {
        self.init { finish in finish(body()) }
    }

    /// Waits for the value.
    func value() -> T {
        done.wait()
        done.signal()
        return result!
    }
}

/// A request with a photo body, as raw bytes.
func rawPost(_ path: String, body: [UInt8], extraHeaders: String = "") -> [UInt8] {
    Array("POST \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: image/png\r\nContent-Length: \(body.count)\r\n\(extraHeaders)\r\n".utf8) + body
}
