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

/// `instances-by` is the CLI's `--instances-by`: the shipped subject model has instance heads; asked
/// of a model without them it is the client's mistake (400, with the sentence the CLI prints), an
/// unknown value too.
@Test func instancesByOverHTTP() throws {
    let server = try TestServer()
    defer { server.stop() }
    let photo = try ServerPhotos.twoAstronauts()
    let components = try URLSessionClient.send(server.base + "/api/remove?instances-by=components", method: "POST", body: photo)
    #expect(components.status == 200)
    let model = try URLSessionClient.send(server.base + "/api/remove?instances-by=model", method: "POST", body: photo)
    #expect(model.status == 200, "\(model.text)")
    let person = try URLSessionClient.send(server.base + "/api/remove?model=person&instances-by=model", method: "POST", body: photo)
    #expect(person.status == 400 && person.text.contains("has no instance heads"), "\(person.text)")
    let unknown = try URLSessionClient.send(server.base + "/api/remove?instances-by=heads", method: "POST", body: photo)
    #expect(unknown.status == 400 && unknown.text.contains("components, model"), "\(unknown.text)")
}
