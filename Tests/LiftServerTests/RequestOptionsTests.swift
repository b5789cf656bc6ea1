import Lift
import LiftServer
import Testing
import TestSupport

/// The API's `png-level` goes through the CLI's parser: a zlib level or `fast`, the same pixels either way.
@Test func pngLevelFastOverHTTP() throws {
    let server = try TestServer()
    defer { server.stop() }
    let photo = try ServerPhotos.twoAstronauts()
    let zlib = try URLSessionClient.send(server.base + "/api/remove?png-level=6", method: "POST", body: photo)
    let fast = try URLSessionClient.send(server.base + "/api/remove?png-level=fast", method: "POST", body: photo)
    #expect(zlib.status == 200 && fast.status == 200)
    #expect(zlib.body != fast.body)
    #expect(try ImageIO.decode(fast.body) == ImageIO.decode(zlib.body))
    let refused = try URLSessionClient.send(server.base + "/api/remove?png-level=quick", method: "POST", body: photo)
    #expect(refused.status == 400 && refused.text.contains("or fast"))
}
