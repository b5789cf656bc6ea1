import Foundation
import Lift
import LiftServer
import Synchronization
import TestSupport
import Testing

/// The server attacks of an adversarial trial, replayed in process: heads that announce bodies they
/// never send, one client holding every upload's room, stalled uploads, connection floods, a thread
/// limit, photos that need the memory others hold, and malformed forms. (`Benchmarks/attack.py`
/// replays them against `lift serve` with signals and address-space caps.)
@Suite(.serialized) struct ServerAttackTests {
    private let head100k = "POST /api/analyze HTTP/1.1\r\nHost: t\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n"

    @Test func headsAloneClaimNoUploadRoom() throws {
        let server = try TestServer {
            $0.http.limits.maxBodyBytes = 100_000
            $0.http.maxBufferedBodyBytes = 800_000
            $0.http.maxBufferedBodyBytesPerClient = 800_000  // every client here is 127.0.0.1
        }
        defer { server.stop() }
        // Eight heads announcing full bodies, two chunked: they used to reserve the whole pool.
        var idle: [RawClient] = []
        for index in 0 ..< 10 {
            let client = try RawClient(port: server.port)
            client.send(index < 8 ? head100k : "POST /api/analyze HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            idle.append(client)
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(server.server.bodies.held <= 10 * 64 * 1024)
        let upload = try RawClient(port: server.port)
        upload.send(rawPost("/api/analyze", body: try ServerPhotos.flatGrey()))
        #expect(upload.readResponse()?.status == 200)
        withExtendedLifetime(idle) {}
    }

    @Test func oneClientHoldsAtMostItsShare() throws {
        let server = try TestServer {
            $0.http.limits.maxBodyBytes = 100_000
            $0.http.maxBufferedBodyBytes = 400_000
            $0.http.maxBufferedBodyBytesPerClient = 150_000
        }
        defer { server.stop() }
        let first = try RawClient(port: server.port)
        first.send(head100k)
        first.send([UInt8](repeating: 1, count: 95_000))
        Thread.sleep(forTimeInterval: 0.2)
        // The second upload from the same address finds the share taken: 503 before its body, and
        // the connection stays usable.
        let second = try RawClient(port: server.port)
        second.send(head100k)
        second.send([UInt8](repeating: 2, count: 100_000))
        let refused = try #require(second.readResponse())
        #expect(refused.status == 503 && refused.text.contains("as one client may"), "\(refused.text)")
        second.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(second.readResponse()?.status == 200)
        // Once the first is answered (not an image) its room comes back.
        first.send([UInt8](repeating: 1, count: 5_000))
        #expect(first.readResponse()?.status == 415)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(server.server.bodies.held == 0)
    }

    @Test func aStalledUploadIsAnswered408BeforeTheReadTimeout() throws {
        let server = try TestServer {
            $0.http.minBodyBytesPerSecond = 10_000
            $0.http.bodyRateGrace = .milliseconds(500)
        }
        defer { server.stop() }
        let slow = try RawClient(port: server.port)
        let started = Date()
        slow.send(head100k)
        slow.send([UInt8](repeating: 1, count: 1000))
        let answer = try #require(slow.readResponse(timeout: 10))
        #expect(answer.status == 408 && answer.text.contains("slower than"), "\(answer.text)")
        #expect(Date().timeIntervalSince(started) < 3)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(server.server.bodies.held == 0)
    }

    @Test func aFloodOfConnectionsLeavesHealthChecksAnswered() throws {
        let server = try TestServer { $0.http.maxConnections = 4 }
        defer { server.stop() }
        var flood: [RawClient] = []
        for _ in 0 ..< 200 { flood.append(try RawClient(port: server.port)) }
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        let probe = try RawClient(port: server.port)
        probe.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let health = try #require(probe.readResponse(timeout: 5))
        #expect(health.status == 200 && health.text.contains("\"ok\""))
        #expect(Date().timeIntervalSince(started) < 1)
        let other = try RawClient(port: server.port)
        other.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(other.readResponse(timeout: 5)?.status == 503)
        // Over-limit connections are closed within patience + linger, never counted.
        #expect(flood[150].closedByServer(within: 3))
        #expect(server.server.openConnections <= 4)
        // And the server still stops promptly.
        let stopping = Date()
        #expect(server.server.stop(timeout: .seconds(20)))
        #expect(Date().timeIntervalSince(stopping) < 2)
    }

    @Test func aConnectionWhoseThreadCannotStartIsAnsweredClosedAndUncounted() throws {
        var configuration = ServeConfiguration()
        configuration.http.port = 0
        let service = try LiftService(configuration: configuration, writeLog: { _ in })
        let server = try HTTPServer(settings: configuration.http, service: service, startThread: { _, _ in false })
        service.attach(to: server)
        try server.start()
        defer { _ = server.stop(timeout: .seconds(5)) }
        for _ in 0 ..< 20 {
            let client = try RawClient(port: server.port)
            client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse(timeout: 5)?.status == 503)
            #expect(client.closedByServer(within: 2))
        }
        #expect(server.openConnections == 0)
    }

    @Test func aPhotoWaitsForTheMemoryOthersHoldThenIsRefused() throws {
        let server = try TestServer {
            $0.limits.maxMemoryBytes = 400_000_000  // one small photo (336 MB estimated) at a time
            $0.memoryPatience = .milliseconds(300)
        }
        defer { server.stop() }
        let held = try #require(SharedMemoryBudget.shared.reserve(200_000_000, of: 400_000_000))
        let refused = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey())
        #expect(refused.status == 503 && refused.text.contains("memory budget"), "\(refused.text)")
        held.release()
        // Other suites' photos share the process's budget: room comes once theirs are done.
        var served = 0
        for _ in 0 ..< 20 where served != 200 {
            served = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey()).status
        }
        #expect(served == 200)
    }

    @Test func malformedFormsAndTrailersAreRefused() throws {
        let server = try TestServer()
        defer { server.stop() }
        let photo = try ServerPhotos.flatGrey()
        func form(_ parts: [(String, [UInt8])], type: String = "multipart/form-data; boundary=B") -> [UInt8] {
            let body = parts.flatMap { Array("--B\r\nContent-Disposition: form-data; name=\"\($0.0)\"; filename=\"p.png\"\r\n\r\n".utf8) + $0.1 + Array("\r\n".utf8) }
                + Array("--B--\r\n".utf8)
            return Array("POST /api/remove HTTP/1.1\r\nHost: t\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        }
        let cases: [([UInt8], Int, String)] = [
            (form([("file", photo)], type: "multipart/form-data"), 400, "boundary"),
            (form([("file", photo), ("file", photo)]), 400, "2 fields named 'file'"),
        ]
        for (request, status, saying) in cases {
            let client = try RawClient(port: server.port)
            client.send(request)
            let answer = try #require(client.readResponse())
            #expect(answer.status == status && answer.text.contains(saying), "\(answer.text)")
        }
        let trailers = try RawClient(port: server.port)
        trailers.send("POST /api/analyze HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
                      + (0 ..< 500).map { "X-T\($0): v\r\n" }.joined() + "\r\n")
        let refused = try #require(trailers.readResponse())
        #expect(refused.status == 431 && refused.text.contains("trailer fields"), "\(refused.text)")
    }

    @Test func aHugeMarginIsRefusedNotRendered() throws {
        let server = try TestServer()
        defer { server.stop() }
        let started = Date()
        let answer = try URLSessionClient.send(server.base + "/api/remove?crop=true&margin=6900", method: "POST",
                                               body: try ServerPhotos.twoAstronauts())
        #expect(answer.status == 422 && answer.text.contains("output canvas"), "\(answer.text)")
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
