import Foundation
import Lift
import Testing
import TestSupport

/// rembg's command-line verbs as `lift` takes them: `lift i` with rembg's flags and `lift b` on raw
/// RGB24 frames, as rembg's README shows them.
@Suite struct RembgVerbTests {
    @Test func iTakesRembgsFlags() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "input.png")
        // rembg i path/to/input.png path/to/output.png
        #expect(try LiftBinary.run(["i", "-m", "person", "input.png", "output.png"], in: scratch.url).status == 0)
        let cutout = try ImageIO.decode(try ImageIO.readFile(scratch.path("output.png")))
        #expect(cutout.pixels[3] == 0 && cutout.width == 256)
        // The same bytes as lift's own flags.
        #expect(try LiftBinary.run(["input.png", "-m", "person", "-o", "lift.png", "-q"], in: scratch.url).status == 0)
        #expect(try ImageIO.readFile(scratch.path("output.png")) == (try ImageIO.readFile(scratch.path("lift.png"))))
        // rembg i -om …: the grey mask, as lift --only-mask writes it.
        #expect(try LiftBinary.run(["i", "-m", "person", "-om", "-a", "-ppm", "-af", "240", "-ab", "10", "-ae", "10", "-x", "{}", "input.png", "mask.png"],
                                   in: scratch.url).status == 0)
        #expect(try LiftBinary.run(["input.png", "-m", "person", "--only-mask", "-o", "only.png", "-q"], in: scratch.url).status == 0)
        #expect(try ImageIO.readFile(scratch.path("mask.png")) == (try ImageIO.readFile(scratch.path("only.png"))))
        // -bgc R G B A, and a JPEG output.
        #expect(try LiftBinary.run(["i", "-m", "person", "-bgc", "255", "255", "255", "255", "input.png", "white.jpg"], in: scratch.url).status == 0)
        let white = try ImageIO.decode(try ImageIO.readFile(scratch.path("white.jpg")))
        #expect(white.pixels[0] > 250 && white.pixels[3] == 255)
        // Standard input to standard output.
        let piped = try LiftBinary.run(["i", "-m", "person"], in: scratch.url, input: try SamplePhotos.astronaut())
        let written = try ImageIO.readFile(scratch.path("output.png"))
        #expect(piped.status == 0 && piped.standardOutput == written)
        for (arguments, saying) in [(["i", "-zz", "input.png"], "unknown option '-zz'"), (["i", "-bgc", "1", "2", "input.png", "x.png"], "'-bgc'"),
                                    (["i", "input.png", "t.jpg"], "a JPEG cannot be transparent"), (["i", "-af", "300", "input.png", "x.png"], "'-af'")] {
            let run = try LiftBinary.run(arguments, in: scratch.url)
            #expect(run.status == 2 && run.standardError.contains(saying), "\(arguments): \(run.standardError)")
        }
    }

    /// `ffmpeg … -f rawvideo -pix_fmt rgb24 pipe:1 | rembg b W H -o out-%03u.png`: each frame is the
    /// cut-out `lift i` makes of the same pixels, in order; a stream that ends inside a frame fails
    /// after writing the whole frames before it.
    @Test func bCutsOutRawFramesInOrder() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let photo = try ImageIO.decode(try SamplePhotos.astronaut())
        var mirrored = photo
        for y in 0 ..< photo.height {
            for x in 0 ..< photo.width {
                let from = (y * photo.width + photo.width - 1 - x) * 4, to = (y * photo.width + x) * 4
                mirrored.pixels.replaceSubrange(to ..< to + 4, with: photo.pixels[from ..< from + 4])
            }
        }
        func rgb(_ image: RGBAImage) -> [UInt8] { image.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element) }
        let frames = [photo, mirrored, photo, mirrored, photo]
        try scratch.write(try PNGEncoder.encode(photo), to: "f0.png")
        try scratch.write(try PNGEncoder.encode(mirrored), to: "f1.png")
        for name in ["f0", "f1"] { #expect(try LiftBinary.run(["i", "-m", "person", "\(name).png", "\(name).cut.png"], in: scratch.url).status == 0) }
        let stream = frames.flatMap(rgb)
        let run = try LiftBinary.run(["b", "\(photo.width)", "\(photo.height)", "-m", "person", "-o", "out-%03u.png"], in: scratch.url, input: stream)
        #expect(run.status == 0, "\(run.standardError)")
        for index in frames.indices {
            let expected = try ImageIO.readFile(scratch.path("f\(index % 2).cut.png"))
            #expect(try ImageIO.readFile(scratch.path(String(format: "out-%03d.png", index))) == expected, "frame \(index)")
        }
        #expect(!scratch.exists("out-005.png"))
        // Without -o: the frames' PNGs one after another on standard output.
        let piped = try LiftBinary.run(["b", "\(photo.width)", "\(photo.height)", "-m", "person"], in: scratch.url, input: Array(stream.prefix(stream.count / 5 * 2)))
        let both = try ImageIO.readFile(scratch.path("f0.cut.png")) + ImageIO.readFile(scratch.path("f1.cut.png"))
        #expect(piped.status == 0 && piped.standardOutput == both)
        let short = try LiftBinary.run(["b", "\(photo.width)", "\(photo.height)", "-m", "person", "-o", "short-%d.png"], in: scratch.url,
                                       input: Array(stream.prefix(stream.count / 5 + 100)))
        #expect(short.status == 1 && short.standardError.contains("ended inside frame 1"), "\(short.standardError)")
        #expect(scratch.exists("short-0.png") && !scratch.exists("short-1.png"))
        #expect(try LiftBinary.run(["b", "0", "10"], in: scratch.url).status == 2)
        #expect(try LiftBinary.run(["b", "10", "10", "-o", "no-number.png"], in: scratch.url).status == 2)
    }

    /// rembg's habit `lift in.png out.png` is refused before anything is written, pointing at -o.
    @Test func aSecondNameThatLooksLikeAnOutputIsAUsageError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "in.png")
        let run = try LiftBinary.run(["in.png", "out.png", "-m", "person"], in: scratch.url)
        #expect(run.status == 2 && run.standardError.contains("did you mean -o out.png?"), "\(run.standardError)")
        #expect(!scratch.exists("in.cutout.png") && !scratch.exists("out.png"))
        #expect(try LiftBinary.run(["in.png", "-m", "person", "-b", "navy", "--only-mask", "-q"], in: scratch.url).status == 0)
        #expect(scratch.exists("in.mask.png"))
    }


    /// `rembg p IN OUT` and `rembg p -w IN OUT`: the folder is cut out, then each file that arrives
    /// complete (moved in, or closed after writing in two parts) is cut out once; SIGTERM ends the
    /// watch with no temporary file left.
    @Test func pCutsOutAFolderThenWatchesIt() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let photo = try SamplePhotos.astronaut()
        try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: true)
        try scratch.write(photo, to: "in/a.png")
        try scratch.write(photo, to: "single.png")
        #expect(try LiftBinary.run(["single.png", "-m", "person", "-o", "expected.png", "-q"], in: scratch.url).status == 0)
        let expected = try ImageIO.readFile(scratch.path("expected.png"))
        #expect(try LiftBinary.run(["p", "-m", "person", "in", "out"], in: scratch.url).status == 0)
        #expect(try ImageIO.readFile(scratch.path("out/a.cutout.png")) == expected)

        let watcher = Process()
        watcher.executableURL = LiftBinary.url
        watcher.arguments = ["p", "-w", "-m", "person", "in", "out"]
        watcher.currentDirectoryURL = scratch.url
        #expect(FileManager.default.createFile(atPath: scratch.path("watch.log"), contents: nil))
        watcher.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("watch.log")))
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        func waitFor(_ condition: () throws -> Bool) throws -> Bool {
            for _ in 0 ..< 600 where !(try condition()) { Thread.sleep(forTimeInterval: 0.1) }
            return try condition()
        }
        #expect(try waitFor { (try? String(contentsOfFile: scratch.path("watch.log"), encoding: .utf8))?.contains("watching") == true })
        try scratch.write(photo, to: "staging.png")
        try FileManager.default.moveItem(atPath: scratch.path("staging.png"), toPath: scratch.path("in/moved.png"))
        #expect(FileManager.default.createFile(atPath: scratch.path("in/written.png"), contents: nil))
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("in/written.png")))
        try writer.write(contentsOf: photo.prefix(photo.count / 2))
        Thread.sleep(forTimeInterval: 0.5)
        try writer.write(contentsOf: photo.suffix(from: photo.count / 2))
        try writer.close()
        #expect(try waitFor { scratch.exists("out/moved.cutout.png") && scratch.exists("out/written.cutout.png") })
        #expect(try ImageIO.readFile(scratch.path("out/moved.cutout.png")) == expected)
        #expect(try ImageIO.readFile(scratch.path("out/written.cutout.png")) == expected)
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .uncaughtSignal && watcher.terminationStatus == SIGTERM)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
        #expect(left == ["a.cutout.png", "moved.cutout.png", "written.cutout.png"])
        let log = try String(contentsOfFile: scratch.path("watch.log"), encoding: .utf8)
        #expect(log.components(separatedBy: "written.cutout.png").count == 2, "\(log)")
    }

}
