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
        try server.start()
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
    static func twoAstronauts() throws -> [UInt8] { try PNGEncoder.encode(Fixtures.twoAstronauts()) }

    /// A flat grey 64×64 PNG: nothing to find.
    static func flatGrey() throws -> [UInt8] { try PNGEncoder.encode(RGBAImage(width: 64, height: 64, fill: (128, 128, 128, 255))) }
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
