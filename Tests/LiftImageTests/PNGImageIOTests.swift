import Foundation
import LiftImage
import TestSupport
import Testing

/// ImageIO's PNG side: sniffing by content, one decode call, reading from and writing to paths.
@Suite struct PNGImageIOTests {
    @Test func sniffsFormatsByContent() throws {
        #expect(ImageFormat.sniff(try Fixtures.bytes("png/ct2-d08-plain.png")) == .png)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xDB, 0, 0]) == .jpeg)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == .jpeg)  // a JPEG cut after its SOI: the JPEG decoder explains
        #expect(ImageFormat.sniff([0xFF]) == nil)
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00]) == nil)  // TIFF
        #expect(ImageFormat.sniff([]) == nil)
    }

    @Test func decodeNamesWhatItSaw() throws {
        #expect(throws: ImageIOError.unknownFormat(leadingBytes: [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00])) {
            try ImageIO.decode([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00])
        }
        let png = try Fixtures.bytes("png/ct6-d08-adam7.png")
        #expect(try ImageIO.decode(png) == PNGDecoder.decode(png).image)
        #expect(throws: PNGLexingError.self) { try ImageIO.decode(Array(png.prefix(60))) }
    }

    @Test func writesAtomicallyAndReadsBack() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dir = scratch.url
        let path = dir.appendingPathComponent("out.png").path
        let image = try PNGDecoder.decode(try Fixtures.bytes("png/ct6-d16-plain.png")).image
        try ImageIO.writePNG(image, to: path)
        #expect(try ImageIO.read(contentsOf: path) == image)
        let mask = GrayImage(width: 5, height: 3, pixels: [0, 255, 0, 255, 0, 0, 0, 255, 255, 255, 0, 0, 0, 0, 255])
        try ImageIO.writePNG(mask, to: path, options: .fast)
        #expect(try PNGDecoder.decodeGray(try ImageIO.readFile(path)).image == mask)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.png"])
        #expect(throws: ImageIOError.cannotRead(path: dir.path + "/missing.png", reason: "No such file or directory")) {
            try ImageIO.read(contentsOf: dir.path + "/missing.png")
        }
        #expect(throws: AtomicFile.WriteError.self) { try ImageIO.writePNG(image, to: dir.path + "/no/such/dir.png") }
    }
}
