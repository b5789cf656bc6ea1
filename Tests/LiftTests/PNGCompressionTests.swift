import Lift
import LiftCLI
import LiftPipeline
import Testing

/// `--png-level` takes a zlib level or `fast`, and each reaches the encoder.
@Test func pngLevelTakesZlibLevelsAndFast() throws {
    #expect(PNGCompression(argument: "0") == .zlib(level: 0))
    #expect(PNGCompression(argument: "9") == .zlib(level: 9))
    #expect(PNGCompression(argument: "fast") == .fast)
    for refused in ["10", "-1", "Fast", "", "4.0", "fastest"] { #expect(PNGCompression(argument: refused) == nil, "\(refused)") }
    guard case .run(let options) = try CutoutCommand.parse(["a.jpg", "--png-level", "fast"]) else {
        Issue.record("expected a run")
        return
    }
    #expect(options.request.outputs.pngCompression == .fast)
    #expect(throws: UsageError.self) { try CutoutCommand.parse(["a.jpg", "--png-level", "quick"]) }
}

@Test func fastCompressionKeepsThePixels() throws {
    let width = 90, height = 40
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for i in stride(from: 0, to: pixels.count, by: 4) where (i / 4) % width > 30 {
        pixels.replaceSubrange(i..<(i + 4), with: [UInt8(i % 251), UInt8(i / 4 % 7 * 30), 9, 255])
    }
    let image = RGBAImage(width: width, height: height, pixels: pixels)
    let fast = try ImageFiles.encodePNG(image, compression: .fast)
    #expect(try ImageFiles.decode(fast, name: "fast.png").pixels == pixels)
    #expect(fast != (try ImageFiles.encodePNG(image, level: 4)))
}
