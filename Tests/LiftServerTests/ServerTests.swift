import Foundation
import Lift
import LiftServer
import Testing
import TestSupport

/// `lift serve` over real sockets: every endpoint, every error status, the HTTP/1.1 mechanics
/// (keep-alive, pipelining, chunked bodies, 100-continue, limits, timeouts) and draining.
@Suite(.serialized) struct ServerTests {
    /// Decodes a PNG answer.
    private func image(_ response: TestResponse) throws -> RGBAImage {
        #expect(response.headers["content-type"] == "image/png")
        return try ImageIO.decode(response.body)
    }

    @Test func healthPageAndOpenAPI() throws {
        let server = try TestServer()
        defer { server.stop() }
        let health = try URLSessionClient.send(server.base + "/healthz")
        #expect(health.status == 200)
        #expect(try health.json()["status"] as? String == "ok")
        let page = try URLSessionClient.send(server.base + "/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("<html") && page.text.contains("/api/remove"))
        // The page may load nothing from elsewhere.
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        for reference in ["src=\"http", "href=\"http", "url(http", "@import", "src=\"//", "href=\"//"] {
            #expect(!page.text.contains(reference), "the page refers to another site: \(reference)")
        }
        let openAPI = try URLSessionClient.send(server.base + "/openapi.json")
        let paths = try #require(try openAPI.json()["paths"] as? [String: Any])
        #expect(Set(paths.keys).isSuperset(of: ["/api/remove", "/api/mask", "/api/analyze", "/healthz", "/metrics"]))
        // Every option the server takes is documented: the list its unknown-option answer gives.
        let components = try #require(try openAPI.json()["components"] as? [String: Any])
        let documented = Set(try #require(components["parameters"] as? [String: Any]).keys)
        let unknown = try URLSessionClient.send(server.base + "/api/remove?colour=red", method: "POST", body: try ServerPhotos.twoAstronauts())
        let message = try #require(try unknown.json()["message"] as? String)
        let listed = try #require(message.components(separatedBy: "the options are ").last)
        let options = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(unknown.status == 400 && options.count >= 14, "\(unknown.text)")
        #expect(Set(options).isSubset(of: documented), "undocumented: \(Set(options).subtracting(documented))")
        let head = try RawClient(port: server.port)
        head.send("HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let headAnswer = try #require(head.readResponse())
        #expect(headAnswer.status == 200 && headAnswer.body.isEmpty == false || headAnswer.headers["content-length"] != nil)
    }

    @Test func removeMaskAndAnalyze() throws {
        let server = try TestServer()
        defer { server.stop() }
        let photo = try ServerPhotos.twoAstronauts()
        let analysis = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo)
        #expect(analysis.status == 200)
        let document = try analysis.json()
        #expect(document["width"] as? Int == 512 && document["height"] as? Int == 256)
        let subjects = try #require(document["subjects"] as? [[String: Any]])
        #expect(subjects.count >= 1)

        let sent = Date()
        let cutout = try URLSessionClient.send(server.base + "/api/remove", method: "POST", body: photo)
        let wallMilliseconds = Date().timeIntervalSince(sent) * 1000
        #expect(cutout.status == 200 && cutout.headers["x-lift-subjects"] == "\(subjects.count)")
        // Server-Timing's stages (milliseconds) fit inside the request's own time.
        let stages = try #require(cutout.headers["server-timing"]).split(separator: ",").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
        #expect(stages.count == 6 && stages.reduce(0, +) > 0 && stages.reduce(0, +) <= wallMilliseconds, "\(stages) vs \(wallMilliseconds) ms")
        let timings = try #require(document["timings"] as? [String: Double])
        #expect((timings["inference"] ?? 0) > 0.1 && (timings["inference"] ?? .infinity) < 10_000)
        let transparent = try image(cutout)
        #expect(transparent.width == 512 && transparent.height == 256)
        #expect(transparent.pixels[3] == 0)                       // the top-left corner is background
        let white = try image(try URLSessionClient.send(server.base + "/api/remove?background=white", method: "POST", body: photo))
        #expect(Array(white.pixels[0..<4]) == [255, 255, 255, 255])

        // The first subject alone, by its number and by a point inside it.
        let box = try #require(subjects[0]["bbox"] as? [Int])
        let one = try URLSessionClient.send(server.base + "/api/remove?instances=1&crop=true", method: "POST", body: photo)
        #expect(one.headers["x-lift-kept"] == "1")
        let cropped = try image(one)
        #expect(cropped.width <= box[2] + 8 && cropped.height <= box[3] + 8)
        let mask = try URLSessionClient.send(server.base + "/api/mask?instances=1", method: "POST", body: photo)
        let grey = try ImageIO.decode(mask.body)
        #expect(mask.status == 200 && grey.width == 512)

        // rembg's form: the photo in the field `file`, options as fields.
        let form = URLSessionClient.form(photo: photo, fields: [("crop", "true"), ("instances", "1")])
        let viaForm = try URLSessionClient.send(server.base + "/api/remove", method: "POST", body: form.body,
                                                      headers: ["Content-Type": form.contentType])
        #expect(viaForm.status == 200 && viaForm.body == one.body)
        let onlyMask = try URLSessionClient.send(server.base + "/api/remove?only-mask=true&instances=1", method: "POST", body: photo)
        #expect(onlyMask.body == mask.body)
    }

    /// Every answer keeps the photo's colour where the subject is opaque (the mask's 255), with
    /// decontamination on (the default) and off.
    @Test func answersKeepThePhotosColourWhereTheSubjectIsOpaque() throws {
        let server = try TestServer()
        defer { server.stop() }
        let photoFile = try ServerPhotos.twoAstronauts()
        let photo = try ImageIO.decode(photoFile)
        let mask = try ImageIO.decode(try URLSessionClient.send(server.base + "/api/mask", method: "POST", body: photoFile).body)
        for query in ["", "background=white", "background=%23204080", "background=blur", "background=dim", "decontaminate=off"] {
            let out = try image(try URLSessionClient.send(server.base + "/api/remove?" + query, method: "POST", body: photoFile))
            var opaque = 0, repainted = 0
            for i in 0 ..< photo.pixelCount where mask.pixels[i * 4] == 255 {
                opaque += 1
                if out.pixels[i * 4 ..< i * 4 + 4] != photo.pixels[i * 4 ..< i * 4 + 4] { repainted += 1 }
            }
            #expect(opaque > 10_000 && repainted == 0, "\(query): \(repainted) of \(opaque) opaque pixels repainted")
        }
        let refused = try URLSessionClient.send(server.base + "/api/remove?decontaminate=maybe", method: "POST", body: photoFile)
        #expect(refused.status == 400 && refused.text.contains("on or off"))
    }

    @Test func errorsAreJSONWithTheRightStatus() throws {
        let server = try TestServer { $0.http.limits.maxBodyBytes = 2_000_000 }
        defer { server.stop() }
        let photo = try ServerPhotos.twoAstronauts()
        func check(_ path: String, method: String = "POST", body: [UInt8]? = nil, status: Int, saying: String,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
            let response = try URLSessionClient.send(server.base + path, method: method, body: body ?? (method == "POST" ? photo : nil))
            #expect(response.status == status, "\(path)", sourceLocation: sourceLocation)
            #expect(response.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
            let message = try response.json()["message"] as? String ?? ""
            #expect(message.contains(saying), "\(message)", sourceLocation: sourceLocation)
        }
        try check("/api/remove?colour=red", status: 400, saying: "unknown option 'colour'")
        try check("/api/remove?background=plaid", status: 400, saying: "#RRGGBB")
        try check("/api/remove?crop=maybe", status: 400, saying: "true or false")
        try check("/api/remove?at=1,2&instances=1", status: 400, saying: "cannot be used together")
        try check("/api/remove?model=/etc/passwd", status: 400, saying: "not offered here")
        try check("/api/remove?url=https%3A%2F%2Fexample.com%2Fa.jpg", method: "GET", status: 400, saying: "never fetches URLs")
        try check("/api/remove?url=x", status: 400, saying: "never fetches URLs")
        try check("/api/remove", body: [], status: 400, saying: "no photo")
        try check("/nothing", method: "GET", status: 404, saying: "nothing at /nothing")
        try check("/api/remove", method: "GET", status: 405, saying: "takes POST")
        try check("/api/remove", body: Array("just text".utf8), status: 415, saying: "not a PNG, JPEG, WebP or GIF")
        try check("/api/remove", body: Array(photo.prefix(2000)), status: 422, saying: "cannot decode")
        try check("/api/remove?at=5,5", body: try ServerPhotos.flatGrey(), status: 422, saying: "no subject at 5,5")
        try check("/api/remove?crop=true", body: try ServerPhotos.flatGrey(), status: 422, saying: "nothing to crop")
        try check("/api/remove?instances=9", status: 422, saying: "no subject 9")
        try check("/api/remove", body: [UInt8](repeating: 0, count: 2_000_001), status: 413, saying: "2 MB")
        let allowed = try URLSessionClient.send(server.base + "/api/remove", method: "PUT", body: photo)
        #expect(allowed.status == 405 && allowed.headers["allow"] == "POST")
    }

    @Test func pixelLimitIsCheckedBeforeDecoding() throws {
        let server = try TestServer { $0.limits.maxPixels = 10_000 }
        defer { server.stop() }
        let response = try URLSessionClient.send(server.base + "/api/remove", method: "POST", body: try ServerPhotos.twoAstronauts())
        #expect(response.status == 422)
        #expect((try response.json()["message"] as? String)?.contains("pixels") == true)
    }

    @Test func tokenGuardsTheAPIAndMetrics() throws {
        let server = try TestServer { $0.token = "s3cret" }
        defer { server.stop() }
        let photo = try ServerPhotos.flatGrey()
        let missing = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo)
        #expect(missing.status == 401 && missing.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let wrong = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo, headers: ["Authorization": "Bearer s3creT"])
        #expect(wrong.status == 401)
        let right = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo, headers: ["Authorization": "Bearer s3cret"])
        #expect(right.status == 200)
        #expect(try URLSessionClient.send(server.base + "/metrics").status == 401)
        #expect(try URLSessionClient.send(server.base + "/healthz").status == 200)
        #expect(try URLSessionClient.send(server.base + "/").status == 200)
    }

    @Test func corsOnlyForListedOrigins() throws {
        let server = try TestServer { $0.corsOrigins = ["https://editor.example"] }
        defer { server.stop() }
        let preflight = ["Origin": "https://editor.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"]
        let allowed = try URLSessionClient.send(server.base + "/api/remove", method: "OPTIONS", headers: preflight)
        #expect(allowed.status == 204)
        #expect(allowed.headers["access-control-allow-origin"] == "https://editor.example")
        #expect(allowed.headers["access-control-allow-methods"]?.contains("POST") == true)
        var other = preflight
        other["Origin"] = "https://evil.example"
        let refused = try URLSessionClient.send(server.base + "/api/remove", method: "OPTIONS", headers: other)
        #expect(refused.status == 403 && refused.headers["access-control-allow-origin"] == nil)
        let answer = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey(),
                                                     headers: ["Origin": "https://editor.example"])
        #expect(answer.headers["access-control-allow-origin"] == "https://editor.example")
        #expect(answer.headers["access-control-expose-headers"]?.contains("X-Lift-Subjects") == true)
        let plain = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey(),
                                                    headers: ["Origin": "https://evil.example"])
        #expect(plain.headers["access-control-allow-origin"] == nil)
    }

    @Test func keepAlivePipeliningAndClose() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        #expect(client.readResponse()?.status == 200)
        client.send(rawPost("/api/analyze", body: try ServerPhotos.flatGrey()))
        #expect(client.readResponse()?.status == 200)
        // A refused request without a body keeps the connection; one whose body was not read closes it.
        client.send("GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.status == 404)
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let last = try #require(client.readResponse())
        #expect(last.status == 200 && last.headers["connection"] == "close")
        #expect(client.closedByServer(within: 5))
        let old = try RawClient(port: server.port)
        old.send("GET /healthz HTTP/1.0\r\n\r\n")
        #expect(old.readResponse()?.headers["connection"] == "close")
        #expect(old.closedByServer(within: 5))
    }

    @Test func chunkedUploadWithExpectContinue() throws {
        let server = try TestServer()
        defer { server.stop() }
        let photo = try ServerPhotos.twoAstronauts()
        let client = try RawClient(port: server.port)
        client.send("POST /api/remove?background=white HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
        #expect(client.readResponse(timeout: 10)?.status == 100)
        var offset = 0
        while offset < photo.count {
            let piece = photo[offset..<min(photo.count, offset + 7_777)]
            client.send(Array(String(piece.count, radix: 16).utf8) + Array("\r\n".utf8) + piece + Array("\r\n".utf8))
            offset += piece.count
        }
        client.send("0\r\n\r\n")
        let answer = try #require(client.readResponse())
        #expect(answer.status == 200)
        #expect(try image(answer).width == 512)
    }

    @Test func oversizedBodiesGetAReadable413() throws {
        let server = try TestServer { $0.http.limits.maxBodyBytes = 64_000 }
        defer { server.stop() }
        // Declared too large: answered before the body is read, while the client is still sending.
        let declared = try RawClient(port: server.port)
        declared.send("POST /api/remove HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n")
        declared.send([UInt8](repeating: 1, count: 1_000_000))
        let answer = try #require(declared.readResponse())
        #expect(answer.status == 413 && answer.headers["connection"] == "close")
        #expect(answer.text.contains("64 KB"))
        #expect(declared.closedByServer(within: 10))
        // Chunked: refused when the chunks pass the limit.
        let chunked = try RawClient(port: server.port)
        chunked.send("POST /api/remove HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<20 { chunked.send("1000\r\n" + String(repeating: "x", count: 4096) + "\r\n") }
        #expect(chunked.readResponse()?.status == 413)
    }

    @Test func headLimits() throws {
        let server = try TestServer()
        defer { server.stop() }
        let long = try RawClient(port: server.port)
        long.send("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(long.readResponse()?.status == 414)
        let many = try RawClient(port: server.port)
        many.send("GET / HTTP/1.1\r\nHost: t\r\n" + (0..<150).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        #expect(many.readResponse()?.status == 431)
        let garbage = try RawClient(port: server.port)
        garbage.send("\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\u{0}\u{1}\u{fc}\r\n\r\n")
        #expect(garbage.readResponse()?.status == 400)
    }

    @Test func aSlowClientCostsASocketNotAWorker() throws {
        let server = try TestServer {
            $0.workers = 1
            $0.http.readTimeout = .milliseconds(1500)
            $0.http.idleTimeout = .milliseconds(500)
        }
        defer { server.stop() }
        let slow = try RawClient(port: server.port)
        slow.send("POST /api/analyze HTTP/1.1\r\nHost: t\r\nContent-Le")
        let started = Date()
        let quick = try RawClient(port: server.port)
        quick.send(rawPost("/api/analyze", body: try ServerPhotos.flatGrey()))
        #expect(quick.readResponse()?.status == 200)
        #expect(Date().timeIntervalSince(started) < 1.2)
        #expect(slow.readResponse(timeout: 5)?.status == 408)
        #expect(slow.closedByServer(within: 5))
        // An idle kept-alive connection is closed after the idle timeout.
        let idle = try RawClient(port: server.port)
        idle.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        let answered = Date()
        #expect(idle.closedByServer(within: 3))
        #expect(Date().timeIntervalSince(answered) > 0.4)
    }

    @Test func aFullQueueAnswers503() throws {
        let server = try TestServer {
            $0.workers = 1
            $0.queueCapacity = 0
        }
        defer { server.stop() }
        let release = DispatchSemaphoreBox()
        let scheduler = server.service.scheduler
        let holder = Background(running: { scheduler.run { release.wait() } })
        while scheduler.load.running < 1 { Thread.sleep(forTimeInterval: 0.005) }
        let busy = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey())
        #expect(busy.status == 503 && busy.headers["retry-after"] == "1")
        release.signal()
        _ = holder.value()
        let served = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey())
        #expect(served.status == 200)
    }

    @Test func bodiesHeldAtOnceAreBounded() throws {
        let server = try TestServer {
            $0.http.limits.maxBodyBytes = 100_000
            $0.http.maxBufferedBodyBytes = 150_000
        }
        defer { server.stop() }
        let photo = try ServerPhotos.flatGrey()
        let first = try RawClient(port: server.port)
        first.send("POST /api/analyze HTTP/1.1\r\nHost: t\r\nContent-Length: 90000\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        // The second is refused; its body, already on its way, is read past and the connection kept.
        let second = try RawClient(port: server.port)
        second.send("POST /api/analyze HTTP/1.1\r\nHost: t\r\nContent-Length: 90000\r\n\r\n")
        second.send([UInt8](repeating: 7, count: 90000))
        let refused = try #require(second.readResponse())
        #expect(refused.status == 503 && refused.headers["retry-after"] == "1" && refused.headers["connection"] == nil)
        second.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(second.readResponse()?.status == 200)
        // The first upload goes on; once answered, its reservation is returned.
        first.send(photo + [UInt8](repeating: 0, count: 90000 - photo.count))
        #expect(first.readResponse()?.status == 200)   // a PNG ends at IEND; the padding after it is ignored
        let third = try RawClient(port: server.port)
        third.send(rawPost("/api/analyze", body: photo))
        #expect(third.readResponse()?.status == 200)
    }

    @Test func metricsAndAccessLog() throws {
        let server = try TestServer { $0.logFormat = .json }
        defer { server.stop() }
        for _ in 0..<2 { _ = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey()) }
        _ = try URLSessionClient.send(server.base + "/nope")
        let text = try URLSessionClient.send(server.base + "/metrics").text
        #expect(text.contains("lift_http_requests_total{endpoint=\"/api/analyze\",status=\"200\"} 2"))
        #expect(text.contains("lift_http_requests_total{endpoint=\"other\",status=\"404\"} 1"))
        #expect(text.contains("lift_http_request_duration_seconds_count{endpoint=\"/api/analyze\"} 2"))
        #expect(text.contains("lift_http_request_duration_seconds_bucket{endpoint=\"/api/analyze\",le=\"+Inf\"} 2"))
        for gauge in ["lift_queue_depth 0", "lift_in_flight 0", "lift_workers 2", "lift_connections_open "] { #expect(text.contains(gauge)) }
        #expect(text.contains("# TYPE lift_http_sent_bytes_total counter"))
        let lines = server.log.all
        #expect(lines.count >= 3)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["method"] as? String == "POST" && first["status"] as? Int == 200 && first["target"] as? String == "/api/analyze")
    }

    @Test func stopFinishesRequestsInFlight() throws {
        let server = try TestServer()
        let photo = try ServerPhotos.twoAstronauts()
        let client = try RawClient(port: server.port)
        let request = rawPost("/api/remove", body: photo)
        client.send(Array(request.prefix(request.count / 2)))
        Thread.sleep(forTimeInterval: 0.1)
        let stopping = Background(running: { server.server.stop(timeout: .seconds(20)) })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(throws: RawClientError.self) { _ = try RawClient(port: server.port) }   // no longer accepting
        client.send(Array(request.suffix(request.count - request.count / 2)))
        let answer = try #require(client.readResponse())
        #expect(answer.status == 200 && answer.headers["connection"] == "close")
        #expect(stopping.value())
    }
}
