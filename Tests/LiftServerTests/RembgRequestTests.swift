import Foundation
import Lift
import LiftServer
import Testing
import TestSupport

/// rembg's documented requests, replayed against Lift's server: its README's
/// `curl -s -F file=@input.jpg "http://localhost:7000/api/remove" -o output.png` and the form fields
/// of its server (`model`, `a`, `af`, `ab`, `ae`, `om`, `ppm`, `bgc`, `extras`) as Python's
/// `requests.post(url, files={"file": …}, data={…})` sends them. Each answer must be a PNG of the
/// photo's size and of the kind asked for.
@Suite struct RembgRequestTests {
    /// A multipart form as curl's `-F` and `requests`' `files=`/`data=` write it: the photo as `file`
    /// with its file name, then each field.
    private static func form(photo: [UInt8], fields: [(String, String)]) -> (body: [UInt8], contentType: String) {
        let boundary = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"input.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += photo
        for (name, value) in fields {
            body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)".utf8)
        }
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    private static func post(_ server: TestServer, query: String = "", fields: [(String, String)]) throws -> TestResponse {
        let photo = try Fixtures.bytes("examples/astronaut.jpg")
        let (body, type) = form(photo: photo, fields: fields)
        return try URLSessionClient.send(server.base + "/api/remove" + query, method: "POST", body: body, headers: ["Content-Type": type])
    }

    @Test func rembgsRequestsGetPNGsOfTheKindAsked() throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = try ImageIO.decode(try Fixtures.bytes("examples/astronaut.jpg"))
        func image(_ response: TestResponse, _ what: String) throws -> RGBAImage {
            #expect(response.status == 200 && response.headers["content-type"] == "image/png", "\(what): \(response.status) \(String(decoding: response.body, as: UTF8.self).prefix(300))")
            #expect(ImageFormat.sniff(response.body) == .png)
            let image = try ImageIO.decode(response.body)
            #expect(image.width == size.width && image.height == size.height, "\(what)")
            return image
        }
        // The README's curl: the cut-out, transparent where the background was.
        let cutout = try image(try Self.post(server, fields: []), "curl -F file=@")
        #expect(cutout.pixels[3] == 0 && cutout.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element == 255 })
        // requests.post(…, data={"model": "u2netp", "a": "true", "af": "240", "ab": "10", "ae": "10", "ppm": "true"})
        let matted = try image(try Self.post(server, fields: [("model", "u2netp"), ("a", "true"), ("af", "240"), ("ab", "10"), ("ae", "10"), ("ppm", "true")]),
                               "matting fields")
        #expect(matted.pixels[3] == 0)
        // om: the grey mask, opaque, grey in every pixel.
        let mask = try image(try Self.post(server, fields: [("om", "true")]), "om")
        var notGrey = 0
        for pixel in 0 ..< mask.pixelCount {
            let p = Array(mask.pixels[pixel * 4 ..< pixel * 4 + 4])
            if p[0] != p[1] || p[0] != p[2] || p[3] != 255 { notGrey += 1 }
        }
        #expect(notGrey == 0)
        // bgc (a query field in rembg's POST): the background painted that colour, opaque.
        let painted = try image(try Self.post(server, query: "?bgc=255,0,0,255&extras=%7B%7D", fields: []), "bgc")
        #expect(Array(painted.pixels[0 ..< 4]) == [255, 0, 0, 255])
        // rembg's defaults spelled out as a client library sends them.
        _ = try image(try Self.post(server, fields: [("a", "false"), ("om", "false"), ("ppm", "false")]), "false switches")

        let bad = try Self.post(server, fields: [("af", "300")])
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("'af'"))
        let both = try Self.post(server, query: "?bgc=1,2,3,4&background=white", fields: [])
        #expect(both.status == 400)
        let missing = try Self.post(server, fields: [("model", "no-such-rembg-model")])
        #expect(missing.status == 422 && String(decoding: missing.body, as: UTF8.self).contains("no-such-rembg-model.onnx"))
        let path = try Self.post(server, fields: [("model", "/etc/passwd.onnx")])
        #expect(path.status == 400)
    }
}
