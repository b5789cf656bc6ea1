import Foundation
import LiftImage
import Testing
import TestSupport

/// One entry of `Tests/Fixtures/gif/manifest.json` (written by Tools/fixtures/make_gif_fixtures.py).
struct GIFFixture: Decodable, CustomStringConvertible, Sendable {
    let file: String
    let frame: Int
    let width: Int?
    let height: Int?
    let expected: String?
    /// `exact`, `visible`, `browser`, or nil for an error case.
    let compare: String?
    /// The `GIFError` case Lift must throw.
    let error: String?
    var description: String { "\(file) frame \(frame)" }

    static let all: [GIFFixture] = {
        guard let bytes = try? Fixtures.bytes("gif/manifest.json"),
              let list = try? JSONDecoder().decode([GIFFixture].self, from: Data(bytes)) else { return [] }
        return list
    }()

    static let decodable = all.filter { $0.expected != nil }
    static let failing = all.filter { $0.error != nil }
}

/// The case name of a `GIFError`, as the manifest writes it.
private func caseName(_ error: GIFError) -> String {
    String(String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)").prefix { $0 != "(" })
}

@Test func gifCorpusIsPresent() {
    #expect(GIFFixture.decodable.count >= 80)
    #expect(GIFFixture.failing.count >= 14)
}

/// Frame 0 is bit-exact against Pillow; later frames too, except the colour under pixels a disposal-2
/// frame cleared (`visible`: Pillow keeps the transparent index's colour there, Lift black).
@Test(arguments: GIFFixture.decodable)
func gifMatchesPillow(_ fixture: GIFFixture) throws {
    let image = try GIFDecoder.decode(try Fixtures.bytes("gif/\(fixture.file)"), frame: fixture.frame)
    #expect(image.width == fixture.width && image.height == fixture.height)
    let expected = try Fixtures.bytes("gif/\(fixture.expected ?? "")")
    try #require(image.pixels.count == expected.count)
    let exact = fixture.compare == "exact"
    let differing = (0 ..< image.pixelCount).filter { p in
        let alpha = expected[p * 4 + 3]
        return image.pixels[p * 4 + 3] != alpha
            || ((exact || alpha != 0) && image.pixels[p * 4 ..< p * 4 + 3] != expected[p * 4 ..< p * 4 + 3])
    }
    #expect(differing.isEmpty, "\(differing.count) pixels differ, the first at index \(differing.first ?? -1)")
}

@Test(arguments: GIFFixture.failing)
func gifRejectsBrokenFiles(_ fixture: GIFFixture) throws {
    let bytes = try Fixtures.bytes("gif/\(fixture.file)")
    do {
        let image = try GIFDecoder.decode(bytes, frame: fixture.frame)
        Issue.record("decoded a \(image.width)x\(image.height) image; expected \(fixture.error ?? "")")
    } catch {
        #expect(caseName(error) == fixture.error, "\(error)")
        #expect(!error.description.isEmpty)
    }
}

/// Where Pillow departs from browsers, Lift does what browsers do.
@Test func gifFollowsBrowsersWherePillowDoesNot() throws {
    let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    let white: [UInt8] = [255, 255, 255, 255], clear: [UInt8] = [0, 0, 0, 0]
    func rows(_ pixels: [[UInt8]]) -> [UInt8] { pixels.flatMap { $0 } }

    // A first frame smaller than the screen, without transparency: the rest is transparent.
    let small = try GIFDecoder.decode(try Fixtures.bytes("gif/browser-small-first-frame.gif"))
    #expect(small.pixels == rows([clear, clear, clear, clear, clear, green, green, clear,
                                  clear, green, green, clear, clear, clear, clear, clear]))
    // Disposal 2 on an opaque frame clears it to transparent before the next one.
    let disposed = try GIFDecoder.decode(try Fixtures.bytes("gif/browser-disposal2-opaque.gif"), frame: 1)
    #expect(disposed.pixels == rows([clear, clear, clear, clear, clear, white, white, clear,
                                     clear, white, white, clear, clear, clear, clear, clear]))
    // Frame 2 has unspecified disposal after a disposal-2 frame: its pixels stay for frame 3.
    let file = try Fixtures.bytes("gif/browser-unspecified-disposal.gif")
    let third = try GIFDecoder.decode(file, frame: 3)
    #expect(third.pixels == rows([clear, clear, red, red, clear, clear, red, red,
                                  red, red, blue, blue, red, red, blue, white]))
    #expect(try GIFDecoder.readInfo(file) == GIFInfo(width: 4, height: 4, frameCount: 4))
    // Disposal 3 on the first frame restores the empty canvas.
    let restored = try GIFDecoder.decode(try Fixtures.bytes("gif/browser-first-frame-restore.gif"), frame: 1)
    #expect(restored.pixels == disposed.pixels)
}

@Test func gifInfoCountsFrames() throws {
    #expect(try GIFDecoder.readInfo(try Fixtures.bytes("gif/pillow-animation-disposal3.gif")).frameCount == 4)
    #expect(try GIFDecoder.readInfo(try Fixtures.bytes("gif/hand-frame-larger-than-screen.gif")) == GIFInfo(width: 4, height: 4, frameCount: 1))
    #expect(throws: GIFError.frameOutOfRange(requested: -1, frameCount: 1)) {
        try GIFDecoder.decode(try Fixtures.bytes("gif/hand-gif87a.gif"), frame: -1)
    }
    #expect(throws: GIFError.limitExceeded(what: "frame number", value: 10_000, limit: 9_999)) {
        try GIFDecoder.decode(try Fixtures.bytes("gif/hand-gif87a.gif"), frame: 10_000)
    }
}

/// Sizes are checked against the limits before anything is allocated or decoded.
@Test func gifChecksLimitsBeforeDecoding() throws {
    let animation = try Fixtures.bytes("gif/pillow-animation-disposal1.gif")  // 40x24, four frames
    #expect(throws: GIFError.limitExceeded(what: "canvas pixel count", value: 960, limit: 959)) {
        try GIFDecoder.decode(animation, limits: DecodingLimits(maxPixels: 959))
    }
    #expect(throws: GIFError.limitExceeded(what: "canvas dimension", value: 40, limit: 39)) {
        try GIFDecoder.decode(animation, limits: DecodingLimits(maxDimension: 39))
    }
    #expect(throws: GIFError.overMemoryBudget(width: 40, height: 24, budget: 1000)) {
        try GIFDecoder.decode(animation, limits: DecodingLimits(maxMemoryBytes: 1000))
    }
    // Four full frames and cropped ones: the indices of frames 0...3 add up past 1000.
    do {
        _ = try GIFDecoder.decode(animation, frame: 3, limits: DecodingLimits(maxInflatedBytes: 1000))
        Issue.record("decoded past the work limit")
    } catch {
        guard case .limitExceeded(let what, let value, 1000) = error else { throw error }
        #expect(what.hasPrefix("pixel count of frames 0..."))
        #expect(value > 1000)
    }
    #expect(try GIFDecoder.decode(animation, frame: 3, limits: DecodingLimits(maxInflatedBytes: 4 * 960)).width == 40)
}

@Test func imageIOReadsTheFirstFrameOfAGIF() throws {
    let bytes = try Fixtures.bytes("gif/pillow-animation-disposal0.gif")
    #expect(ImageFormat.sniff(bytes) == .gif)
    #expect(ImageFormat.sniff(Array("GIF87a".utf8)) == .gif)
    #expect(ImageFormat.sniff(Array("GIF88a".utf8)) == nil)
    let photo = try ImageIO.decodePhoto(bytes)
    #expect(photo.image == (try GIFDecoder.decode(bytes)))
    #expect(photo.color == PNGMetadata())
    #expect(ImageFormat.gif.description == "GIF")
}

/// Inputs the fuzz target found; each must fail with a GIFError or decode, quickly.
@Test func gifRegressionsDoNotCrash() throws {
    let folder = Fixtures.url("gif/regressions")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for file in files.sorted() {
        let bytes = try Fixtures.bytes("gif/regressions/\(file)")
        _ = try? GIFDecoder.decode(bytes, frame: 0)
        _ = try? GIFDecoder.decode(bytes, frame: 5)
    }
}
