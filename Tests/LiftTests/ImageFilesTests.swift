import Foundation
import Lift
import Testing
import TestSupport

/// A scratch directory path for one test.
@Test func savedImagesLoadBackExactlyAndParentsAreCreated() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let directory = scratch.path
    let pixels = (0..<(7 * 5 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    let image = RGBAImage(width: 7, height: 5, pixels: pixels)
    try ImageFiles.savePNG(image, to: directory + "/a/b/image.png")
    #expect(try ImageFiles.load(directory + "/a/b/image.png") == image)
    let mask = GrayImage(width: 3, height: 2, pixels: [0, 255, 128, 1, 2, 3])
    try ImageFiles.savePNG(mask, to: directory + "/mask.png")
    let loaded = try ImageFiles.load(directory + "/mask.png")
    #expect(stride(from: 0, to: loaded.pixels.count, by: 4).map { loaded.pixels[$0] } == mask.pixels)
}

@Test func readingErrorsNameTheFileAndTheReason() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let directory = scratch.path
    let missing = directory + "/missing.png"
    #expect(throws: LiftError.self) { try ImageFiles.load(missing) }
    do {
        _ = try ImageFiles.readFile(directory)
        Issue.record("reading a directory should fail")
    } catch {
        #expect(error.path == directory)
        #expect(error.detail == "cannot read: it is a directory")
    }
    do {
        _ = try ImageFiles.decode(Array("hello".utf8), name: "hello.png")
        Issue.record("text should not decode")
    } catch {
        #expect(error.description == "hello.png: not a PNG, JPEG, WebP or GIF image")
    }
    let png = try ImageFiles.encodePNG(RGBAImage(width: 4, height: 4, fill: (1, 2, 3, 255)))
    do {
        _ = try ImageFiles.decode(Array(png.prefix(png.count - 20)), name: "cut.png")
        Issue.record("a truncated PNG should not decode")
    } catch {
        guard case .undecodable(let path, _) = error else { Issue.record("got \(error)"); return }
        #expect(path == "cut.png")
    }
}

@Test func writingBelowAFileFailsWithoutLeavingFiles() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let directory = scratch.path
    try Data([1]).write(to: URL(fileURLWithPath: directory + "/file"))
    do {
        try ImageFiles.write([1, 2, 3], to: directory + "/file/out.png")
        Issue.record("writing below a file should fail")
    } catch {
        guard case .writeFailed(let path, _) = error else { Issue.record("got \(error)"); return }
        #expect(path == directory + "/file/out.png")
    }
    try ImageFiles.write([1], to: directory + "/kept.bin")
    #expect(throws: LiftError.self) { try ImageFiles.write([2], to: directory + "/kept.bin", overwrite: false) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/kept.bin")) == Data([1]))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["file", "kept.bin"])
}

@Test func everyPNGLevelKeepsThePixelsAndHigherLevelsAreNotLarger() throws {
    // A smooth gradient with a little texture: compressible, but not trivially.
    let width = 96, height = 64
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let i = (y * width + x) * 4
            pixels[i] = UInt8(x * 2); pixels[i + 1] = UInt8(y * 3); pixels[i + 2] = UInt8((x * y) % 7 * 30)
            pixels[i + 3] = x < 48 ? 255 : UInt8(y * 4)
        }
    }
    let image = RGBAImage(width: width, height: height, pixels: pixels)
    let stored = try ImageFiles.encodePNG(image, level: 0)
    let fast = try ImageFiles.encodePNG(image, level: 1)
    let small = try ImageFiles.encodePNG(image, level: 9)
    let standard = try ImageFiles.encodePNG(image)
    for png in [stored, fast, small, standard] {
        #expect(try ImageFiles.decode(png, name: "level.png").pixels == pixels)
    }
    #expect(small.count <= fast.count && fast.count < stored.count)
    do {
        _ = try ImageFiles.encodePNG(image, name: "ten.png", level: 10)
        Issue.record("level 10 should be refused")
    } catch {
        #expect(error.description.contains("ten.png") && error.description.contains("compression level 10"))
    }
}
