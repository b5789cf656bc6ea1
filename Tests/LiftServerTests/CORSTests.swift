import Foundation
import LiftServer
import Testing
import TestSupport

/// CORS over real sockets: `--cors-origin '*'` and listed origins, preflights echoing the requested
/// headers within the safe list and `--cors-header`, refusals naming what was refused, `Vary`.
@Suite(.serialized) struct CORSTests {
    /// A preflight for `POST /api/remove` from `origin` asking for `headers`.
    private func preflight(_ server: TestServer, origin: String, headers: String?) throws -> TestResponse {
        var fields = ["Origin": origin, "Access-Control-Request-Method": "POST"]
        if let headers { fields["Access-Control-Request-Headers"] = headers }
        return try URLSessionClient.send(server.base + "/api/remove", method: "OPTIONS", headers: fields)
    }

    @Test func anyOriginIsAnsweredWithAStarAndNeverWithCredentials() throws {
        let server = try TestServer { $0.corsOrigins = ["*"]; $0.token = "s3cret" }
        defer { server.stop() }
        let asked = "authorization, content-type, traceparent, tracestate, baggage, x-request-id, x-requested-with, accept"
        let allowed = try preflight(server, origin: "http://127.0.0.1:5173", headers: asked)
        #expect(allowed.status == 204)
        #expect(allowed.headers["access-control-allow-origin"] == "*")
        #expect(allowed.headers["access-control-allow-headers"] == asked)
        #expect(allowed.headers["access-control-allow-methods"] == "POST, OPTIONS")
        #expect(allowed.headers["access-control-allow-credentials"] == nil)
        #expect(allowed.headers["vary"] == "Origin, Access-Control-Request-Headers")

        // The token is a header the page sets, not a credential the browser attaches: `*` carries it.
        let photo = try ServerPhotos.flatGrey()
        let answer = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo,
                                               headers: ["Origin": "https://anywhere.example", "Authorization": "Bearer s3cret",
                                                         "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
        #expect(answer.status == 200)
        #expect(answer.headers["access-control-allow-origin"] == "*")
        #expect(answer.headers["access-control-allow-credentials"] == nil)
        #expect(answer.headers["access-control-expose-headers"]?.contains("X-Lift-Subjects") == true)
        #expect(answer.headers["vary"] == "Origin")
        // A refusal is readable by the page too, so it can show why.
        let refused = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: photo, headers: ["Origin": "https://anywhere.example"])
        #expect(refused.status == 401 && refused.headers["access-control-allow-origin"] == "*")
    }

    @Test func listedOriginsAreEchoedAndOthersRefused() throws {
        let server = try TestServer { $0.corsOrigins = ["https://editor.example", "http://localhost:8080"] }
        defer { server.stop() }
        for origin in ["https://editor.example", "http://localhost:8080"] {
            let allowed = try preflight(server, origin: origin, headers: "content-type")
            #expect(allowed.status == 204 && allowed.headers["access-control-allow-origin"] == origin)
        }
        for origin in ["https://evil.example", "https://editor.example:444", "null"] {
            let refused = try preflight(server, origin: origin, headers: "content-type")
            #expect(refused.status == 403 && refused.headers["access-control-allow-origin"] == nil, "\(origin)")
            #expect(try refused.json()["message"] as? String == "origin \(origin) may not call this server from a browser (lift serve --cors-origin)")
            #expect(refused.headers["vary"] == "Origin, Access-Control-Request-Headers")
        }
        // An answer to an unlisted origin still says it varies by origin, so no cache hands it on.
        let plain = try URLSessionClient.send(server.base + "/healthz", headers: ["Origin": "https://evil.example"])
        #expect(plain.status == 200 && plain.headers["access-control-allow-origin"] == nil && plain.headers["vary"] == "Origin")
    }

    @Test(arguments: [
        ("x-editor-session", ["'x-editor-session'"]),
        ("content-type, x-debug, traceparent, cookie2", ["'x-debug'", "'cookie2'"]),
    ])
    func headersOutsideTheSafeListAreRefusedByName(asked: String, named: [String]) throws {
        let server = try TestServer { $0.corsOrigins = ["https://editor.example"] }
        defer { server.stop() }
        let refused = try preflight(server, origin: "https://editor.example", headers: asked)
        #expect(refused.status == 403)
        #expect(refused.headers["access-control-allow-headers"] == nil)
        let message = try #require(try refused.json()["message"] as? String)
        for name in named { #expect(message.contains(name), "\(message)") }
        #expect(message.contains("--cors-header"), "\(message)")
    }

    @Test func corsHeaderAddsToTheSafeList() throws {
        let server = try TestServer { $0.corsOrigins = ["https://editor.example"]; $0.corsHeaders = ["X-Editor-Session"] }
        defer { server.stop() }
        let allowed = try preflight(server, origin: "https://editor.example", headers: "x-editor-session,Authorization")
        #expect(allowed.status == 204)
        #expect(allowed.headers["access-control-allow-headers"] == "x-editor-session, authorization")
        // A preflight asking for no headers is answered without Access-Control-Allow-Headers.
        let bare = try preflight(server, origin: "https://editor.example", headers: nil)
        #expect(bare.status == 204 && bare.headers["access-control-allow-headers"] == nil)
        #expect(try preflight(server, origin: "https://editor.example", headers: "x-other").status == 403)
    }

    @Test func withoutCORSNothingIsAddedAndPlainOptionsListsTheMethods() throws {
        let server = try TestServer()
        defer { server.stop() }
        let refused = try preflight(server, origin: "https://editor.example", headers: "content-type")
        #expect(refused.status == 403 && refused.headers["access-control-allow-origin"] == nil && refused.headers["vary"] == nil)
        let health = try URLSessionClient.send(server.base + "/healthz", headers: ["Origin": "https://editor.example"])
        #expect(health.headers["access-control-allow-origin"] == nil && health.headers["vary"] == nil)
        let options = try URLSessionClient.send(server.base + "/api/remove", method: "OPTIONS")
        #expect(options.status == 204 && options.headers["allow"] == "POST, OPTIONS")
    }

    @Test(arguments: [("X-Editor-Session", true), ("traceparent", true), ("x_b!", true), ("", false), ("X Bad", false),
                      ("X-Bad:", false), ("Ünicode", false)])
    func headerNames(name: String, valid: Bool) {
        #expect(CORSPolicy.isHeaderName(name) == valid)
    }
}
