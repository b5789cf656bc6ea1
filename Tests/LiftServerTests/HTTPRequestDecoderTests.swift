import Foundation
import LiftServer
import Testing
import TestSupport

/// The request decoder on its own: framing, limits, malformed input, and bytes arriving in pieces.
@Suite struct HTTPRequestDecoderTests {
    /// Every request in `text`, fed `step` bytes at a time.
    private func decodeAll(_ text: String, step: Int = .max, limits: HTTPLimits = HTTPLimits()) throws(HTTPError) -> [(HTTPRequestHead, [UInt8])] {
        try HTTPRequestDecoder.requests(in: Array(text.utf8), pieceSize: step, limits: limits).map { ($0.head, $0.body) }
    }

    private func status(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
        do throws(HTTPError) {
            _ = try decodeAll(text, limits: limits)
            return nil
        } catch {
            return error.status.code
        }
    }

    @Test func requestLineHeadersAndQuery() throws {
        let requests = try decodeAll("POST /api/remove?background=%23ff0000&crop=&at=1%2C2&x=a+b HTTP/1.1\r\nHost: h\r\nX-A:  one \r\nx-a: two\r\nContent-Length: 3\r\n\r\nabc")
        #expect(requests.count == 1)
        let (head, body) = requests[0]
        #expect(head.method == "POST" && head.path == "/api/remove" && head.minorVersion == 1)
        #expect(head.query.map { "\($0.name)=\($0.value)" } == ["background=#ff0000", "crop=", "at=1,2", "x=a b"])
        #expect(head.headers["x-A"] == "one, two")
        #expect(body == Array("abc".utf8))
        #expect(head.keepsAlive)
    }

    @Test(arguments: [1, 2, 7, 1000])
    func piecesPipeliningAndChunked(step: Int) throws {
        let text = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0006\r\n world\r\n0\r\nTrailer: x\r\n\r\n"
            + "POST /c HTTP/1.0\r\nContent-Length: 2\r\n\r\nok"
        let requests = try decodeAll(text, step: step)
        #expect(requests.map(\.0.path) == ["/a", "/b", "/c"])
        #expect(requests.map { String(decoding: $0.1, as: UTF8.self) } == ["", "hello world", "ok"])
        #expect(requests[2].0.minorVersion == 0 && !requests[2].0.keepsAlive)
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreAccepted() throws {
        let requests = try decodeAll("\r\n\nGET /x HTTP/1.1\nHost: h\n\n")
        #expect(requests.map(\.0.path) == ["/x"])
    }

    @Test func malformedRequestsGetTheirStatus() {
        #expect(status("GET /x HTTP/1.1\r\n\r\n") == 400)                               // no Host
        #expect(status("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)          // two Hosts
        #expect(status("GET  /x HTTP/1.1\r\nHost: h\r\n\r\n") == 400)                    // double space
        #expect(status("GET x HTTP/1.1\r\nHost: h\r\n\r\n") == 400)                      // not a path
        #expect(status("GET /x HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(status("GET /x HTXP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET /x HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n") == 400)
        #expect(status("GET /x HTTP/1.1\r\nHost : h\r\n\r\n") == 400)                   // space before colon
        #expect(status("GET /x HTTP/1.1\r\nHost: h\u{1}\r\n\r\n") == 400)
        #expect(status("GET /x?a=%zz HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 501)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") == 400)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n") == 400)
    }

    @Test func limitsAreCheckedAsBytesArrive() {
        var limits = HTTPLimits()
        limits.maxRequestLineBytes = 64
        limits.maxHeaderBytes = 256
        limits.maxHeaderFieldCount = 3
        limits.maxBodyBytes = 10
        // A request line that never ends is refused once it passes the limit, not when it ends.
        #expect(status("GET /" + String(repeating: "a", count: 100), limits: limits) == 414)
        #expect(status("GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits) == 414)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 300), limits: limits) == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == 431)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits) == 413)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\nabcde\r\n", limits: limits) == 413)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "t", count: 300), limits: limits) == 431)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits) == nil)
    }

    /// The fuzz target's seeds decode (read size from their first byte), and what the fuzzer found
    /// (`Tests/Fixtures/fuzz/fuzz-http/`, when it has found anything) decodes or fails with a status.
    @Test func fuzzSeedsAndFindings() throws {
        let seeds = Fixtures.url("http")
        let names = try FileManager.default.contentsOfDirectory(atPath: seeds.path).filter { $0.hasSuffix(".bin") }
        #expect(names.count >= 4)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: seeds.appendingPathComponent(name)))
            let requests = try HTTPRequestDecoder.requests(in: Array(bytes.dropFirst()), pieceSize: Int(bytes[0]) + 1)
            #expect(!requests.isEmpty, "\(name)")
        }
        let findings = Fixtures.url("fuzz/fuzz-http")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: findings.path)) ?? [] {
            let bytes = [UInt8](try Data(contentsOf: findings.appendingPathComponent(name)))
            _ = try? HTTPRequestDecoder.requests(in: Array(bytes.dropFirst()), pieceSize: Int(bytes.first ?? 0) + 1)
        }
    }

    @Test func aHeadSentByteByByteCostsLinearTime() throws {
        // 30 KB of fields one byte at a time: the end-of-head search resumes where it stopped.
        let fields = (0..<90).map { "X-\($0): " + String(repeating: "v", count: 300) + "\r\n" }.joined()
        var limits = HTTPLimits()
        limits.maxHeaderFieldCount = 100
        let requests = try decodeAll("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n", step: 1, limits: limits)
        #expect(requests.count == 1 && requests[0].0.headers.fields.count == 91)
    }
}

@Suite struct MultipartFormTests {
    @Test func filesAndFields() throws {
        let body = Array(("preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"crop\"\r\n\r\ntrue\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").utf8)
            + [0xFF, 0xD8, 13, 10, 0x2D, 0x2D, 0xFF] + Array("\r\n--XyZ--\r\nepilogue".utf8)
        let boundary = try #require(try MultipartForm.boundary(contentType: "multipart/form-data; charset=utf-8; boundary=\"XyZ\""))
        let form = try MultipartForm(body: body, boundary: boundary)
        #expect(form.parts.map(\.name) == ["crop", "file"])
        #expect(Array(form.part("crop")?.data ?? []) == Array("true".utf8))
        #expect(form.part("file")?.filename == "a \"b\".jpg")
        #expect(form.part("file")?.contentType == "image/jpeg")
        #expect(Array(form.part("file")?.data ?? []) == [0xFF, 0xD8, 13, 10, 0x2D, 0x2D, 0xFF])
    }

    @Test func malformedFormsAreRefused() throws {
        #expect(try MultipartForm.boundary(contentType: "image/png") == nil)
        #expect(throws: HTTPError.self) { try MultipartForm.boundary(contentType: "multipart/form-data") }
        #expect(throws: HTTPError.self) { try MultipartForm.boundary(contentType: "multipart/form-data; boundary=") }
        for text in ["no boundary at all", "--b\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nunterminated",
                     "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--", "--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--"] {
            #expect(throws: HTTPError.self) { try MultipartForm(body: Array(text.utf8), boundary: "b") }
        }
    }
}

@Suite struct WorkSchedulerTests {
    @Test func admitsWorkersThenQueuesThenRefuses() {
        let scheduler = WorkScheduler(workers: 1, queueCapacity: 1)
        let release = DispatchSemaphoreBox()
        let first = Background(running: { scheduler.run { release.wait(); return 1 } })
        while scheduler.load.running < 1 { Thread.sleep(forTimeInterval: 0.005) }
        let second = Background(running: { scheduler.run { 2 } })
        while scheduler.load.waiting < 1 { Thread.sleep(forTimeInterval: 0.005) }
        #expect(scheduler.isFull)
        #expect(scheduler.run { 3 } == nil)
        release.signal()
        #expect(first.value() == 1)
        #expect(second.value() == 2)
        #expect(scheduler.load == (0, 0))
    }
}

@Suite struct SocketStreamTests {
    /// A descriptor number is reused by the next socket at once: a second close must not reach it.
    @Test func closingTwiceClosesOnce() {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let stream = SocketStream(descriptor: pair[0], peer: "test", writeTimeout: .seconds(1))
        stream.closeNow()
        let reused = open("/dev/null", O_RDONLY)
        defer { close(reused) }
        stream.closeNow()
        #expect(fcntl(reused, F_GETFD) != -1, "the second close closed descriptor \(reused)")
    }
}

/// A semaphore usable from Sendable closures.
final class DispatchSemaphoreBox: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func signal() { semaphore.signal() }
}

import Dispatch
