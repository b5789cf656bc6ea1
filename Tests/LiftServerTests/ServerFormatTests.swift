import Foundation
import Lift
import LiftPipeline
import LiftServer
import Testing
import TestSupport

/// The server answers in the format the request names (`format`) or its `Accept` header asks for,
/// and reads WebP and GIF photos.
@Suite struct ServerFormatTests {
    @Test func theFormatComesFromTheFieldOrTheAcceptHeader() throws {
        let server = try TestServer()
        defer { server.stop() }
        let photo = try ImageIO.encodeWebP(try Fixtures.twoAstronauts())
        func send(_ query: String, accept: String? = nil) throws -> TestResponse {
            try URLSessionClient.send(server.base + "/api/remove" + query, method: "POST", body: photo,
                                      headers: accept.map { ["Accept": $0] } ?? [:])
        }
        let cases: [(query: String, accept: String?, type: String, format: ImageFormat)] = [
            ("", nil, "image/png", .png),
            ("", "image/webp", "image/webp", .webp),
            ("", "image/*", "image/png", .png),
            ("", "image/webp;q=0.9, image/png;q=0.5", "image/webp", .webp),
            ("?background=white", "image/jpeg", "image/jpeg", .jpeg),
            ("?format=webp", "image/png", "image/webp", .webp),
            ("?format=jpg&background=black&output-quality=50", nil, "image/jpeg", .jpeg),
        ]
        for item in cases {
            let answer = try send(item.query, accept: item.accept)
            #expect(answer.status == 200 && answer.headers["content-type"] == item.type, "\(item.query) \(item.accept ?? "")")
            #expect(ImageFormat.sniff(answer.body) == item.format)
            let image = try ImageIO.decode(answer.body)
            #expect(image.width == 512 && image.height == 256)
        }
        let notAcceptable = try send("", accept: "image/jpeg")
        #expect(notAcceptable.status == 406 && notAcceptable.text.contains("cannot be a JPEG"), "\(notAcceptable.text)")
        #expect(try send("", accept: "text/html").status == 406)
        let transparentJPEG = try send("?format=jpeg")
        #expect(transparentJPEG.status == 400 && transparentJPEG.text.contains("background=white"))
        #expect(try send("?output-quality=80").status == 400)
        let mask = try URLSessionClient.send(server.base + "/api/mask?format=jpeg", method: "POST",
                                             body: try PNGEncoder.encode(try Fixtures.twoAstronauts()), headers: [:])
        #expect(mask.status == 200 && mask.headers["content-type"] == "image/jpeg")
    }

    @Test(arguments: [
        ("image/png", [OutputFormat.png, .webp, .jpeg], OutputFormat.png),
        ("*/*", [.png, .webp, .jpeg], .png),
        ("image/webp, */*;q=0.1", [.png, .webp, .jpeg], .webp),
        ("image/png;q=0, image/*", [.png, .webp, .jpeg], .webp),
        ("image/jpeg", [.png, .webp], nil),
        ("text/html, application/json", [.png, .webp, .jpeg], nil),
        ("garbage, image/JPEG;q=0.3", [.png, .webp, .jpeg], .jpeg),
    ] as [(String, [OutputFormat], OutputFormat?)])
    func acceptHeaderWeights(header: String, formats: [OutputFormat], expected: OutputFormat?) {
        #expect(AcceptHeader(header).best(of: formats) == expected)
    }
}
