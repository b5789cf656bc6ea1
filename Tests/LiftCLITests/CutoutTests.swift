import Foundation
import Lift
import LiftImage
import Testing
import TestSupport

/// The cut-out action end to end on a real photo: every option family, through the built binary.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, "\(SamplePhotos.noWeights)"))
struct CutoutTests {
    /// A scratch directory holding `person.png` (the astronaut).
    private func scratchWithPhoto() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory()
        try scratch.write(try SamplePhotos.astronaut(), to: "person.png")
        return scratch
    }

    /// The JSON report of one run, parsed.
    private func report(_ result: LiftBinary.Result) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput))
        return try #require(object as? [String: Any])
    }

    @Test func defaultWritesACutoutBesideTheInput() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("person.png -> person.cutout.png ("))
        let cutout = try SamplePhotos.decodeFile(scratch.path("person.cutout.png"))
        #expect(cutout.width == 256 && cutout.height == 256)
        let alphas = stride(from: 3, to: cutout.pixels.count, by: 4).map { cutout.pixels[$0] }
        #expect(alphas.contains(0), "the background should be transparent")
        #expect(alphas.contains(255), "the person should be opaque")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["person.cutout.png", "person.png"])
    }

    @Test func jsonReportCarriesSizeModelInstancesAndTimings() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png", "--json", "-", "--model", "person", "-q"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        let document = try report(result)
        let images = try #require(document["images"] as? [[String: Any]])
        let image = try #require(images.first)
        #expect(image["status"] as? String == "ok")
        #expect(image["width"] as? Int == 256 && image["height"] as? Int == 256)
        #expect(image["model"] as? String == "person")
        let instances = try #require(image["instances"] as? [[String: Any]])
        #expect(!instances.isEmpty)
        let first = try #require(instances.first)
        #expect((first["bbox"] as? [Int])?.count == 4)
        #expect((first["area"] as? Int ?? 0) > 0)
        #expect((first["score"] as? Double ?? 0) > 0.5)
        let timings = try #require(image["timings"] as? [String: Double])
        #expect(Set(timings.keys) == ["decode", "preprocess", "inference", "mask", "composite", "encode", "write"])
        #expect((timings["inference"] ?? 0) > 0)
    }

    @Test func outputToAFileADirectoryAndStandardOutput() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        #expect(try LiftBinary.run(["person.png", "-o", "named.png"], in: scratch.url).status == 0)
        #expect(scratch.exists("named.png"))
        #expect(try LiftBinary.run(["person.png", "-o", "outdir/"], in: scratch.url).status == 0)
        #expect(scratch.exists("outdir/person.cutout.png"))
        let piped = try LiftBinary.run(["person.png", "-o", "-"], in: scratch.url)
        #expect(piped.status == 0)
        #expect(try SamplePhotos.decode(piped.standardOutput).width == 256)
    }

    /// Every output mode keeps the photo's colour where the subject is opaque: the mask's 255
    /// pixels (and, shrunk, the area average of the photo where the shrunk cut-out is opaque).
    @Test func opaquePixelsAreThePhotosInEveryMode() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try Fixtures.bytes("examples/three-cups.jpg")
        try scratch.write(file, to: "cups.jpg")
        let photo = try ImageIO.decode(file)
        #expect(try LiftBinary.run(["cups.jpg", "-o", "plain.png", "--mask", "mask.png"], in: scratch.url).status == 0)
        let mask = try SamplePhotos.decodeFile(scratch.path("mask.png"))
        let modes: [[String]] = [[], ["-b", "white"], ["-b", "#336699"], ["-b", "blur"], ["-b", "dim"], ["--decontaminate", "off"],
                                 ["-b", "white", "--decontaminate", "on"]]
        for (n, mode) in modes.enumerated() {
            let result = try LiftBinary.run(["cups.jpg", "-o", "out\(n).png"] + mode, in: scratch.url)
            #expect(result.status == 0, "\(mode): \(result.standardError)")
            let out = try SamplePhotos.decodeFile(scratch.path("out\(n).png"))
            var opaque = 0, repainted = 0
            for i in 0 ..< photo.pixelCount where mask.pixels[i * 4] == 255 {
                opaque += 1
                if out.pixels[i * 4 ..< i * 4 + 4] != photo.pixels[i * 4 ..< i * 4 + 4] { repainted += 1 }
            }
            #expect(opaque > 5000 && repainted == 0, "\(mode): \(repainted) of \(opaque) opaque pixels repainted")
        }
        // Cropped to a square with a margin: the same pixels, moved by the crop's origin.
        let cropped = try LiftBinary.run(["cups.jpg", "-o", "crop.png", "--crop", "--square", "--margin", "12", "--json", "report.json"], in: scratch.url)
        #expect(cropped.status == 0, "\(cropped.standardError)")
        let crop = try SamplePhotos.decodeFile(scratch.path("crop.png"))
        // The crop holds every subject, so its opaque pixels are the mask's 255 ones moved by the crop's origin.
        func corner(_ image: RGBAImage, channel: Int) -> (x: Int, y: Int) {
            let opaque = (0 ..< image.pixelCount).filter { image.pixels[$0 * 4 + channel] == 255 }
            return (opaque.map { $0 % image.width }.min() ?? 0, opaque.map { $0 / image.width }.min() ?? 0)
        }
        let (maskCorner, cropCorner) = (corner(mask, channel: 0), corner(crop, channel: 3))
        let found = Self.opaqueMatch(crop, in: photo, mask: mask, dx: maskCorner.x - cropCorner.x, dy: maskCorner.y - cropCorner.y)
        #expect(found, "no placement of the cropped cut-out keeps the photo's opaque pixels")
        // Shrunk: opaque output pixels are the photo's area average.
        #expect(try LiftBinary.run(["cups.jpg", "-o", "small.png", "--max-size", "100"], in: scratch.url).status == 0)
        let small = try SamplePhotos.decodeFile(scratch.path("small.png"))
        let truth = AreaDownscale.fit(photo, maxLongSide: 100)
        let opaque = (0 ..< small.pixelCount).filter { small.pixels[$0 * 4 + 3] == 255 }
        #expect(opaque.count > 100)
        #expect(opaque.allSatisfy { small.pixels[$0 * 4 ..< $0 * 4 + 4] == truth.pixels[$0 * 4 ..< $0 * 4 + 4] })
    }

    /// Whether `crop`, placed at (`dx`, `dy`) on `photo`, shows the photo's pixel wherever `mask` is 255,
    /// and covers at least one such pixel.
    private static func opaqueMatch(_ crop: RGBAImage, in photo: RGBAImage, mask: RGBAImage, dx: Int, dy: Int) -> Bool {
        var covered = 0
        for y in 0 ..< crop.height {
            let py = y + dy
            guard py >= 0, py < photo.height else { continue }
            for x in 0 ..< crop.width {
                let px = x + dx
                guard px >= 0, px < photo.width else { continue }
                let p = (py * photo.width + px) * 4
                guard mask.pixels[p] == 255 else { continue }
                let o = (y * crop.width + x) * 4
                if crop.pixels[o ..< o + 4] != photo.pixels[p ..< p + 4] { return false }
                covered += 1
            }
        }
        return covered > 1000
    }

    /// A full disk on standard output fails the image (and the report), with the reason.
    @Test func aFullStandardOutputFailsTheRun() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let cutout = try LiftBinary.run(["person.png", "-o", "-"], in: scratch.url, standardOutputPath: "/dev/full")
        #expect(cutout.status == 1)
        #expect(cutout.standardError.contains("person.png: cannot write standard output: No space left on device"))
        let report = try LiftBinary.run(["person.png", "-o", "c.png", "--json", "-"], in: scratch.url, standardOutputPath: "/dev/full")
        #expect(report.status == 1)
        #expect(report.standardError.contains("cannot write the JSON report: cannot write standard output"))
    }

    /// The photo's ICC profile goes into its cut-out, so colour-managed viewers show the same colours.
    @Test func aCutoutKeepsThePhotosColourProfile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyFixture("jpeg/icc_srgb.jpg", to: "icc.jpg")
        let result = try LiftBinary.run(["icc.jpg", "-b", "white"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        let written = try ImageIO.decodePhoto([UInt8](try Data(contentsOf: scratch.url.appendingPathComponent("icc.cutout.png"))))
        let profile = try ImageIO.decodePhoto(try Fixtures.bytes("jpeg/icc_srgb.jpg")).color.iCCP
        #expect(profile != nil && written.color.iCCP == profile)
    }

    @Test func standardInputToStandardOutput() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["-"], in: scratch.url, input: try SamplePhotos.astronaut())
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("<stdin> -> -"))
        #expect(try SamplePhotos.decode(result.standardOutput).height == 256)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["person.png"])
        let garbage = try LiftBinary.run(["-"], in: scratch.url, input: Array("not an image".utf8))
        #expect(garbage.status == 1)
        #expect(garbage.standardError.hasPrefix("lift: <stdin>: not a PNG, JPEG, WebP or GIF image"))
        #expect(garbage.standardOutput.isEmpty)
    }

    @Test func backgroundsCropMarginSquareAndMaxSize() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        #expect(try LiftBinary.run(["person.png", "-o", "white.png", "--background", "white"], in: scratch.url).status == 0)
        #expect(try SamplePhotos.decodeFile(scratch.path("white.png")).isOpaque)
        for background in ["#336699", "#33669980", "blur", "dim:0.5"] {
            let result = try LiftBinary.run(["person.png", "-o", "bg.png", "--force", "--background", background], in: scratch.url)
            #expect(result.status == 0, "--background \(background): \(result.standardError)")
        }
        #expect(try LiftBinary.run(["person.png", "-o", "square.png", "--crop", "--margin", "10%", "--square"], in: scratch.url).status == 0)
        let square = try SamplePhotos.decodeFile(scratch.path("square.png"))
        #expect(square.width == square.height)
        #expect(try LiftBinary.run(["person.png", "-o", "tight.png", "--crop"], in: scratch.url).status == 0)
        let tight = try SamplePhotos.decodeFile(scratch.path("tight.png"))
        #expect(tight.width < 256 || tight.height < 256)
        #expect(try LiftBinary.run(["person.png", "-o", "small.png", "--max-size", "64"], in: scratch.url).status == 0)
        let small = try SamplePhotos.decodeFile(scratch.path("small.png"))
        #expect(max(small.width, small.height) == 64)
    }

    @Test func maskAndLabelMapArePhotoSizedGreyImages() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png", "--mask", "m.png", "--labels", "l.png"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        let mask = try SamplePhotos.decodeFile(scratch.path("m.png"))
        let labels = try SamplePhotos.decodeFile(scratch.path("l.png"))
        #expect(mask.width == 256 && mask.height == 256 && labels.width == 256)
        #expect(mask.pixels.contains(255) && mask.pixels.contains(0))
        #expect(labels.pixels.contains(1), "subject 1 is labelled 1")
    }

    @Test func instancesAndPointSelection() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let json = try LiftBinary.run(["person.png", "--json", "-", "-o", "all.png", "--instances", "largest"], in: scratch.url)
        let image = try #require((try report(json)["images"] as? [[String: Any]])?.first)
        let instances = try #require(image["instances"] as? [[String: Any]])
        let box = try #require(instances.first?["bbox"] as? [Int])
        #expect(instances.first?["kept"] as? Bool == true)
        #expect(instances.dropFirst().allSatisfy { $0["kept"] as? Bool == false })

        let centre = "\(box[0] + box[2] / 2),\(box[1] + box[3] / 2)"
        let atCentre = try LiftBinary.run(["person.png", "-o", "at.png", "--at", centre, "--crop"], in: scratch.url)
        #expect(atCentre.status == 0, "--at \(centre): \(atCentre.standardError)")
        let missing = try LiftBinary.run(["person.png", "-o", "none.png", "--instances", "99"], in: scratch.url)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("lift: person.png: no subject 99: the photo has \(instances.count) subject"))
        #expect(!scratch.exists("none.png"))
        // Numbers beyond Int's range fail the image with a sentence, not a trap.
        let far = try LiftBinary.run(["person.png", "-o", "far.png", "--at", "1e19,5"], in: scratch.url)
        #expect(far.status == 1)
        #expect(far.standardError.contains("lift: person.png: 1e+19,5 is outside the photo, which is 256x256 pixels"), "\(far.standardError)")
        let wide = try LiftBinary.run(["person.png", "-o", "wide.png", "--crop", "--margin", "1e30%"], in: scratch.url)
        #expect(wide.status == 1)
        #expect(wide.standardError.contains("output canvas"), "\(wide.standardError)")
        #expect(!scratch.exists("far.png") && !scratch.exists("wide.png"))
    }

    @Test func eachSubjectIsWrittenToItsOwnNumberedFiles() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.twoAstronauts(), to: "two.png")
        let result = try LiftBinary.run(["two.png", "--each", "--crop", "--mask", "masks/", "--model", "person", "--json", "-", "-q"],
                                        in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        let image = try #require((try report(result)["images"] as? [[String: Any]])?.first)
        #expect(image["output"] == nil, "each subject names its own file")
        let instances = try #require(image["instances"] as? [[String: Any]])
        #expect(instances.count == 2, "one astronaut on each half")
        var written = ["two.png"]
        var maskPixels: [[UInt8]] = []
        for (index, instance) in instances.enumerated() {
            let number = index + 1
            #expect(instance["number"] as? Int == number && instance["kept"] as? Bool == true)
            #expect(instance["output"] as? String == "two.\(number).cutout.png")
            #expect(instance["mask"] as? String == "masks/two.\(number).mask.png")
            let cutout = try SamplePhotos.decodeFile(scratch.path("two.\(number).cutout.png"))
            let box = try #require(instance["bbox"] as? [Int])
            #expect(instance["outputWidth"] as? Int == cutout.width && instance["outputHeight"] as? Int == cutout.height)
            #expect(cutout.width >= box[2] && cutout.width < 256, "cropped to one astronaut, not both")
            let mask = try SamplePhotos.decodeFile(scratch.path("masks/two.\(number).mask.png"))
            #expect(mask.width == 512 && mask.height == 256, "masks stay photo-sized")
            maskPixels.append(mask.pixels)
            written.append("two.\(number).cutout.png")
        }
        #expect(maskPixels.count == 2 && maskPixels[0] != maskPixels[1], "each mask holds only its own subject")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == (written + ["masks"]).sorted())

        let again = try LiftBinary.run(["two.png", "--each", "--model", "person"], in: scratch.url)
        #expect(again.status == 1)
        #expect(again.standardError.contains("lift: two.png: two.1.cutout.png exists (use --force to overwrite, or --skip-existing)"))
        let resumed = try LiftBinary.run(["two.png", "--each", "--model", "person", "--skip-existing"], in: scratch.url)
        #expect(resumed.status == 0 && resumed.standardError.contains("two.png: skipped, two.1.cutout.png exists"))
    }

    @Test func eachSubjectWithNoSubjectFailsAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.flatGrey(), to: "flat.png")
        let result = try LiftBinary.run(["flat.png", "--each", "--model", "person", "-o", "out/"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.standardError.contains("lift: flat.png: no subject found, so --each wrote no file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["flat.png"])
    }

    @Test(arguments: [["--quality", "fast"], ["--quality", "accurate"], ["--no-refine"], ["--threshold", "0.3"], ["--threads", "1"],
                        ["--png-level", "0"], ["--png-level", "9"], ["--png-level", "fast"]])
    func modelAndMaskOptionsRun(options: [String]) throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png", "-q"] + options, in: scratch.url)
        #expect(result.status == 0, "\(options): \(result.standardError)")
        #expect(result.standardError.isEmpty)
        #expect(scratch.exists("person.cutout.png"))
    }

    @Test func wideModelVariantAndPhotosWithoutAPerson() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronautWide(), to: "wide.png")
        try scratch.write(try SamplePhotos.pattern(), to: "pattern.png")
        let result = try LiftBinary.run(["wide.png", "pattern.png", "--model", "person", "--json", "-", "-q"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        let images = try #require(try report(result)["images"] as? [[String: Any]])
        #expect(images.first?["model"] as? String == "person-landscape")
        #expect(images.last?["model"] as? String == "person")
    }

    @Test func missingWeightsFailTheRunWithWhereItLooked() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png"], in: scratch.url, environment: ["LIFT_WEIGHTS": scratch.path("no-weights")])
        #expect(result.status == 1)
        #expect(result.standardError.contains("LIFT_WEIGHTS"))
        #expect(!scratch.exists("person.cutout.png"))
    }

    @Test func aSignalWhileAnOutputIsWrittenLeavesNoTemporaryFile() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        // A ~60 MB uncompressed canvas (near the 16 Mi-pixel bound a small photo's canvas has), so the
        // temporary file exists long enough to be seen.
        let process = Process()
        process.executableURL = LiftBinary.url
        process.arguments = ["person.png", "-o", "big.png", "--model", "person", "--crop", "--margin", "1800", "--png-level", "0", "-q"]
        process.currentDirectoryURL = scratch.url
        process.standardError = FileHandle.nullDevice
        try process.run()
        let isTemporary = { (name: String) in name.hasPrefix(".big.png.lift.tmp-") }
        var seen = false
        while process.isRunning, !seen {
            seen = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).contains(where: isTemporary)
            if !seen { usleep(1000) }
        }
        if seen { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        try #require(seen, "lift ended (status \(process.terminationStatus)) before its temporary file was seen")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        // The main thread may finish the write and rename before the handler runs (a fast disk):
        // then big.png is there, complete. A half-written file under either name is the failure.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(left == ["person.png"] || left == ["big.png", "person.png"], "\(left)")
        if left.contains("big.png") {
            let handle = try FileHandle(forReadingFrom: scratch.url.appendingPathComponent("big.png"))
            defer { try? handle.close() }
            try handle.seek(toOffset: try handle.seekToEnd() - 12)
            #expect([UInt8](try handle.readToEnd() ?? Data()) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], "ends with IEND")
        }
    }
}
