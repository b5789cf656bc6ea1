import Foundation
import LiftImage
import Testing
import TestSupport

/// `lift convert` and `lift info` run as a user runs them: exit codes, outputs, and failures that
/// name the file and leave nothing behind.
@Suite struct ConvertInfoTests {
    @Test func convertWritesAPNGWithTheSamePixels() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyFixture("jpeg/cmyk.jpg", to: "in.jpg")
        let result = try LiftBinary.run(["convert", scratch.path("in.jpg"), scratch.path("out.png")])
        #expect(result.status == 0, "\(result.standardError)")
        let original = try ImageIO.decode(try Fixtures.bytes("jpeg/cmyk.jpg"))
        let converted = try ImageIO.read(contentsOf: scratch.path("out.png"))
        #expect(converted == original)
    }

    @Test func convertReadsStandardInputAndWritesStandardOutput() throws {
        let png = try Fixtures.bytes("png/adam7-rgba-17x33.png")
        let result = try LiftBinary.run(["convert", "-", "-"], input: png)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try ImageIO.decode(result.standardOutput) == ImageIO.decode(png))
    }

    @Test func convertNeverOverwritesItsInputAndAsksBeforeReplacingAnOutput() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyFixture("png/adam7-rgba-17x33.png", to: "a.png")
        let before = try Fixtures.bytes("png/adam7-rgba-17x33.png")
        let same = try LiftBinary.run(["convert", scratch.path("a.png"), scratch.path("a.png"), "--force"])
        #expect(same.status == 2)
        #expect(same.standardError.contains("never overwrites an input"))
        #expect([UInt8](try Data(contentsOf: scratch.url.appendingPathComponent("a.png"))) == before)

        try scratch.write([1, 2, 3], to: "b.png")
        let exists = try LiftBinary.run(["convert", scratch.path("a.png"), scratch.path("b.png")])
        #expect(exists.status == 1, "an existing output fails the input, as for a cut-out")
        #expect(exists.standardError.contains("--force"))
        let forced = try LiftBinary.run(["convert", scratch.path("a.png"), scratch.path("b.png"), "--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try ImageIO.read(contentsOf: scratch.path("b.png")) == ImageIO.decode(before))
    }

    @Test func convertOfABrokenFileNamesItAndLeavesNoOutput() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let jpeg = try Fixtures.bytes("jpeg/cmyk.jpg")
        try scratch.write(Array(jpeg.prefix(jpeg.count / 2)), to: "cut.jpg")
        let result = try LiftBinary.run(["convert", scratch.path("cut.jpg"), scratch.path("out.png")])
        #expect(result.status == 1)
        #expect(result.standardError.contains(scratch.path("cut.jpg")))
        #expect(!scratch.exists("out.png"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(leftovers == ["cut.jpg"])
    }

    @Test func convertKeepsAJPEGsRGBProfileAndWritesOnlyPNG() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["convert", Fixtures.url("jpeg/icc_srgb.jpg").path, scratch.path("out.png")])
        #expect(result.status == 0, "\(result.standardError)")
        let written = try ImageIO.decodePhoto([UInt8](try Data(contentsOf: scratch.url.appendingPathComponent("out.png"))))
        #expect(written.color.iCCP == (try ImageIO.decodePhoto(try Fixtures.bytes("jpeg/icc_srgb.jpg")).color.iCCP))

        let misnamed = try LiftBinary.run(["convert", Fixtures.url("jpeg/icc_srgb.jpg").path, scratch.path("out.jpg")])
        #expect(misnamed.status == 2)
        #expect(misnamed.standardError.contains("convert writes PNG only"))
        #expect(!scratch.exists("out.jpg"))
    }

    /// A full disk on standard output is a failure with a message, not a crash or a success.
    @Test func writingToAFullStandardOutputFails() throws {
        for arguments in [["convert", Fixtures.url("jpeg/gray.jpg").path, "-"], ["info", Fixtures.url("jpeg/gray.jpg").path]] {
            let result = try LiftBinary.run(arguments, standardOutputPath: "/dev/full")
            #expect(result.status == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("cannot write standard output: No space left on device"))
            // With standard error full too the message is lost, but the exit status still says it.
            let silent = try LiftBinary.run(arguments, standardOutputPath: "/dev/full", standardErrorPath: "/dev/full")
            #expect(silent.status == 1, "\(arguments)")
        }
    }

    @Test func infoDescribesPNGAndJPEGFromFilesAndStandardInput() throws {
        let png = try LiftBinary.run(["info", Fixtures.url("png/adam7-rgba-17x33.png").path])
        #expect(png.status == 0, "\(png.standardError)")
        #expect(png.outputText.contains("format: PNG"))
        #expect(png.outputText.contains("size: 17x33"))
        #expect(png.outputText.contains("interlace: Adam7"))
        let jpeg = try LiftBinary.run(["info", "-"], input: try Fixtures.bytes("jpeg/cmyk.jpg"))
        #expect(jpeg.status == 0, "\(jpeg.standardError)")
        #expect(jpeg.outputText.contains("format: JPEG"))
        #expect(jpeg.outputText.contains("color space: cmyk"))
    }

    @Test func infoGivesThePNGOrientationFromItsExifChunk() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // Big-endian TIFF with one IFD0 entry: orientation 6 (rotate 90° clockwise to show).
        let exif: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let image = RGBAImage(width: 3, height: 2, fill: (1, 2, 3, 255))
        try scratch.write(try PNGEncoder.encode(image, options: PNGEncoder.Options(metadata: PNGMetadata(eXIf: exif))), to: "r.png")
        let result = try LiftBinary.run(["info", scratch.path("r.png")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.outputText.contains("orientation: 6 (shown as 2x3)"))
    }

    @Test func infoDescribesAnONNXModel() throws {
        let result = try LiftBinary.run(["info", Fixtures.url("onnx/tiny.onnx").path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.outputText == """
            format: ONNX
            IR version: 8
            operator sets: ai.onnx 13
            producer: lift-fixtures 1
            inputs: image float [batch, 3, 8, 8]
            outputs: out float [batch, 8, 8, 8]
            nodes: 10 (Cast 2, BatchNormalization 1, Concat 1, Constant 1, Conv 1, MaxPool 1, Relu 1, Resize 1, Sigmoid 1)
            parameters: 130 in 7 tensors

            """)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(Array(try Fixtures.bytes("onnx/tiny.onnx").prefix(700)), to: "cut.onnx")
        let cut = try LiftBinary.run(["info", scratch.path("cut.onnx")])
        #expect(cut.status == 1 && cut.standardError.contains("the ONNX file is malformed at byte"), "\(cut.standardError)")
    }

    @Test func infoOnTextNamesTheFileAndWhatItSaw() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(Array("hello, world".utf8), to: "notes.txt")
        let result = try LiftBinary.run(["info", scratch.path("notes.txt")])
        #expect(result.status == 1)
        #expect(result.standardError.contains(scratch.path("notes.txt")))
        #expect(result.standardError.contains("unknown image format"))
        let missing = try LiftBinary.run(["info", scratch.path("absent.png")])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("absent.png"))
    }
}
