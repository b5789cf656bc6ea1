import Foundation
import Lift
import Synchronization
import Testing
import TestSupport

/// Regressions of the hardening issue, run as a user runs `lift`: pipes and devices, memory budgets,
/// racing writers, files a killed run left, damaged weights, sub-command consistency, label maps.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, "\(SamplePhotos.noWeights)"))
struct HardeningTests {
    // MARK: Pipes and devices

    @Test func aNamedPipeAmongTheInputsIsRefusedAtOnceAndTheBatchGoesOn() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "d/a.png")
        #expect(mkfifo(scratch.path("d/b.png"), 0o644) == 0)
        let batch = try LiftBinary.run(["d", "-o", "out", "-m", "person"], in: scratch.url, timeout: 60)
        #expect(batch.status == 1, "\(batch.standardError)")
        #expect(batch.standardError.contains("lift: d/b.png: cannot read: it is a named pipe (FIFO), not a regular file"),
                "\(batch.standardError)")
        #expect(scratch.exists("out/a.cutout.png"))
        for arguments in [["info", "d/b.png"], ["convert", "d/b.png", "c.png"], ["d/b.png", "-m", "person"]] {
            let named = try LiftBinary.run(arguments, in: scratch.url, timeout: 60)
            #expect(named.status == 1, "\(arguments)")
            #expect(named.standardError.contains("it is a named pipe (FIFO), not a regular file"), "\(arguments): \(named.standardError)")
        }
    }

    @Test func devicesAreNotReadAndStandardInputStopsAtItsFirstBytes() throws {
        let device = try LiftBinary.run(["/dev/zero", "-o", "-"], standardOutputPath: "/dev/null", timeout: 60)
        #expect(device.status == 1)
        #expect(device.standardError.contains("/dev/zero: cannot read: it is a character device, not a regular file"))
        // An endless stream that is not an image is refused after its first read, not after 1 GiB.
        let endless = try LiftBinary.run(["-"], standardInputPath: "/dev/zero", standardOutputPath: "/dev/null", timeout: 60)
        #expect(endless.status == 1)
        #expect(endless.standardError.contains("<stdin>: not a PNG, JPEG, WebP or GIF image"), "\(endless.standardError)")
        let info = try LiftBinary.run(["info", "-"], standardInputPath: "/dev/zero", timeout: 60)
        #expect(info.status == 1)
    }

    @Test func weightFilesThatArePipesDevicesOrLinkLoopsAreErrorsNotFallbacks() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        try scratch.write(try Fixtures.bytes(shipped("person.safetensors"), absolute: true), to: "w/person.safetensors")
        let weights = scratch.path("w/subject.safetensors")
        let makers: [(String, () -> Int32)] = [
            ("a named pipe (FIFO)", { mkfifo(weights, 0o644) }),
            ("a character device", { symlink("/dev/zero", weights) }),
            ("Too many levels of symbolic links", { symlink(weights, weights) }),
        ]
        for (reason, make) in makers {
            unlink(weights)
            #expect(make() == 0)
            let run = try LiftBinary.run(["a.png", "-o", "out.png"], in: scratch.url,
                                         environment: ["LIFT_WEIGHTS": scratch.path("w")], timeout: 60)
            #expect(run.status == 1, "\(reason): the person model must not be used instead")
            #expect(run.standardError.contains("cannot load the subject model") && run.standardError.contains(reason),
                    "\(run.standardError)")
            #expect(!scratch.exists("out.png"))
        }
    }

    // MARK: Memory

    /// An IHDR for a `width × height` RGB PNG followed by a few bytes of image data: enough for the
    /// size check, which comes before anything is inflated or allocated.
    private func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        PNGBytes.signature + PNGBytes.ihdr(width: width, height: height, colorType: 2)
            + PNGBytes.chunk("IDAT", PNGBytes.storedZlib([0])) + PNGBytes.chunk("IEND", [])
    }

    /// The path of a file in the checkout's `Weights/`.
    private func shipped(_ name: String) -> String { Fixtures.repositoryRoot.appendingPathComponent("Weights/\(name)").path }

    @Test func aPhotoOverTheMemoryBudgetIsRefusedFromItsHeader() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(pngHeader(width: 14000, height: 14000), to: "big.png")
        // Under `ulimit -v` (2 GB) the default budget follows the limit: a sentence, never SIGABRT.
        let limited = try LiftBinary.run(["-c", "ulimit -v 2000000 && exec \"$0\" big.png -o out.png", LiftBinary.url.path],
                                         in: scratch.url, timeout: 60, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(limited.status == 1, "\(limited.standardError)")
        #expect(limited.standardError.contains("big.png: cannot decode: a 14000×14000 image needs about 2.7 GB to cut out, more than the memory budget of"),
                "\(limited.standardError)")
        // Describing the file allocates no pixels: `info` still works there.
        let described = try LiftBinary.run(["-c", "ulimit -v 2000000 && exec \"$0\" info big.png", LiftBinary.url.path],
                                           in: scratch.url, timeout: 60, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(described.status == 0 && described.outputText.contains("size: 14000x14000"), "\(described.standardError)")
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        let small = try LiftBinary.run(["a.png", "-o", "o.png", "--max-memory", "100MB", "-m", "person"], in: scratch.url)
        #expect(small.status == 1)
        #expect(small.standardError.contains("a 256×256 image needs about 336 MB to cut out, more than the memory budget of 100 MB"))
        let pixels = try LiftBinary.run(["a.png", "-o", "o.png", "--max-pixels", "60000", "-m", "person"], in: scratch.url)
        #expect(pixels.status == 1 && pixels.standardError.contains("over the limit of 60000"), "\(pixels.standardError)")
        #expect(try LiftBinary.run(["a.png", "-o", "o.png", "--max-memory", "lots"], in: scratch.url).status == 2)
        let converted = try LiftBinary.run(["convert", "big.png", "c.png", "--max-memory", "1GB"], in: scratch.url)
        #expect(converted.status == 1 && converted.standardError.contains("more than the memory budget of 1.0 GB"))
        #expect(!scratch.exists("o.png") && !scratch.exists("c.png") && !scratch.exists("out.png"))
    }

    // MARK: Writers racing for one name

    @Test func ofTwoRunsWritingOneNewFileExactlyOneWins() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        try scratch.write(try SamplePhotos.pattern(), to: "b.png")
        for arguments in [["convert", "a.png", "c.png"], ["a.png", "-o", "c.png", "-m", "person"]] {
            for _ in 0 ..< 3 {
                unlink(scratch.path("c.png"))
                let second = arguments.map { $0 == "a.png" ? "b.png" : $0 }
                let results = Mutex<[LiftBinary.Result]>([])
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    let result = try? LiftBinary.run(index == 0 ? arguments : second, in: scratch.url)
                    results.withLock { $0.append(result!) }
                }
                let statuses = results.withLock { $0.map(\.status) }.sorted()
                #expect(statuses == [0, 1], "\(arguments): \(results.withLock { $0.map(\.standardError) })")
                #expect(results.withLock { $0.contains { $0.standardError.contains("c.png") && $0.standardError.contains("exist") } })
                #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["a.png", "b.png", "c.png"])
            }
        }
    }

    // MARK: Temporary files a killed run left

    @Test func temporaryFilesOfAKilledRunAreRemovedByTheNextRunThere() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        try scratch.write([UInt8](repeating: 7, count: 1000), to: "out/.a.cutout.png.tmp-1a2b3c4d")
        // One still being written (its writer holds the lock) is left alone.
        try scratch.write([UInt8](repeating: 7, count: 1000), to: "out/.b.cutout.png.tmp-99")
        let live = open(scratch.path("out/.b.cutout.png.tmp-99"), O_RDONLY)
        defer { close(live) }
        #expect(flock(live, LOCK_EX | LOCK_NB) == 0)
        try scratch.write([UInt8](repeating: 7, count: 10), to: "out/.notes.tmp-12345678")  // not Lift's naming
        for name in [".a.cutout.png.tmp-1a2b3c4d", ".b.cutout.png.tmp-99", ".notes.tmp-12345678"] { try age(scratch.path("out/" + name)) }
        let run = try LiftBinary.run(["a.png", "-o", "out/", "-m", "person"], in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("lift: removed out/.a.cutout.png.tmp-1a2b3c4d, a temporary file left by an interrupted run"),
                "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
            == [".b.cutout.png.tmp-99", ".notes.tmp-12345678", "a.cutout.png"])

        // A resumed batch that writes nothing still cleans the directories it would write to.
        try scratch.write([1], to: "out/.a.cutout.png.lift.tmp-5")
        try age(scratch.path("out/.a.cutout.png.lift.tmp-5"))
        let resumed = try LiftBinary.run(["a.png", "-o", "out/", "-m", "person", "--skip-existing"], in: scratch.url)
        #expect(resumed.status == 0)
        #expect(resumed.standardError.contains("removed out/.a.cutout.png.lift.tmp-5"), "\(resumed.standardError)")
        #expect(!scratch.exists("out/.a.cutout.png.lift.tmp-5"))
    }

    /// Makes the file at `path` look a minute old, as a killed run's leftover is by the next run.
    private func age(_ path: String) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
    }

    // MARK: Weights

    @Test func aShippedWeightFileThatWasChangedIsAnError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        for name in ["person.safetensors", "SHA256SUMS"] {
            try scratch.write(try Fixtures.bytes(shipped(name), absolute: true), to: "w/\(name)")
        }
        // Relabel the first F16 tensor as BF16: the file still parses, and used to run with garbage out.
        var bytes = try Fixtures.bytes(shipped("subject.safetensors"), absolute: true)
        let headerLength = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        let header = String(decoding: bytes[8 ..< 8 + headerLength], as: UTF8.self)
        let relabelled = Array(header.replacingOccurrences(of: "\"F16\"", with: "\"BF16\"").prefix(headerLength).utf8)
        bytes.replaceSubrange(8 ..< 8 + headerLength, with: relabelled)
        try scratch.write(bytes, to: "w/subject.safetensors")
        let run = try LiftBinary.run(["a.png", "-o", "out.png"], in: scratch.url, environment: ["LIFT_WEIGHTS": scratch.path("w")])
        let recorded = try #require(try WeightsManifest.recordedDigest(for: URL(fileURLWithPath: shipped("subject.safetensors"))))
        #expect(run.status == 1)
        #expect(run.standardError.contains("not the \(recorded) recorded in SHA256SUMS"), "\(run.standardError)")
        #expect(!scratch.exists("out.png"))
    }

    // MARK: Sub-commands

    @Test func everySubcommandHasHelpTakesDashDashAndReportsWriteErrors() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "-a.png")
        for command in ["convert", "info"] {
            let help = try LiftBinary.run([command, "--help"])
            #expect(help.status == 0 && help.outputText.hasPrefix("USAGE\n  lift \(command) "), "\(help.outputText)")
            #expect(try LiftBinary.run([command, "-h"], standardOutputPath: "/dev/full").status == 1)
        }
        let convertHelp = try LiftBinary.run(["convert", "--help"]).outputText
        for option in ["--fast", "--level N", "--keep-layout", "--force", "--max-memory SIZE"] { #expect(convertHelp.contains(option)) }
        #expect(try LiftBinary.run(["--help"], standardOutputPath: "/dev/full").status == 1)
        #expect(try LiftBinary.run(["--version"], standardOutputPath: "/dev/full").status == 1)
        #expect(try LiftBinary.run(["convert", "--", "-a.png", "b.png"], in: scratch.url).status == 0)
        #expect(try LiftBinary.run(["info", "--", "-a.png"], in: scratch.url).outputText.hasPrefix("format: PNG"))
        // An existing output is a failed input (1) for convert as for a cut-out, not a usage error.
        let exists = try LiftBinary.run(["convert", "--", "-a.png", "b.png"], in: scratch.url)
        #expect(exists.status == 1 && exists.standardError.contains("b.png exists (use --force to replace it)"))
        let cutoutExists = try LiftBinary.run(["--", "-a.png", "-o", "b.png", "-m", "person"], in: scratch.url)
        #expect(cutoutExists.status == 1)
    }

    @Test func anImageNamedOutputForSeveralInputsIsRefusedNotMadeADirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        try scratch.write(try SamplePhotos.pattern(), to: "b.png")
        let run = try LiftBinary.run(["a.png", "b.png", "-o", "single.png"], in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("-o single.png names an image file, but the inputs hold 2 images"))
        #expect(!scratch.exists("single.png"))
        // A device is no output file either (renaming over it would replace it), except /dev/null,
        // which discards the image without anything being written.
        let device = try LiftBinary.run(["a.png", "-o", "/dev/zero"], in: scratch.url)
        #expect(device.status == 2 && device.standardError.contains("-o /dev/zero is a character device"))
        let discarded = try LiftBinary.run(["a.png", "-o", "/dev/null", "--mask", "/dev/null", "-m", "person"], in: scratch.url)
        #expect(discarded.status == 0 && discarded.standardError.contains("-> /dev/null"), "\(discarded.standardError)")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)
        #expect(try LiftBinary.run(["a.png", "b.png", "-o", "outs", "-m", "person", "-q"], in: scratch.url).status == 0)
    }

    @Test func anOutputNamedForAnotherFormatIsRefusedOrWrittenInThatFormat() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        for (arguments, saying) in [(["-o", "white.gif", "-b", "white"], "lift writes PNG, WebP or JPEG"), (["--mask", "a.mask.bmp"], "lift writes PNG, WebP or JPEG"),
                                    (["--labels", "a.labels.webp"], "the label map is a PNG")] {
            let run = try LiftBinary.run(["a.png", "-m", "person"] + arguments, in: scratch.url)
            #expect(run.status == 2)
            #expect(run.standardError.contains("\(arguments[1]): \(saying)"), "\(run.standardError)")
            #expect(!scratch.exists(arguments[1]) && !scratch.exists("a.cutout.png"))
        }
        #expect(try LiftBinary.run(["a.png", "-m", "person", "-o", "white.PNG", "-q"], in: scratch.url).status == 0)
        #expect(scratch.exists("white.PNG"))
        #expect(try LiftBinary.run(["a.png", "-m", "person", "-o", "white.JPG", "-b", "white", "--mask", "a.mask.JPEG", "-q"], in: scratch.url).status == 0)
        let cutout = try ImageIO.readFile(scratch.path("white.JPG")), mask = try ImageIO.readFile(scratch.path("a.mask.JPEG"))
        #expect(ImageFormat.sniff(cutout) == .jpeg && ImageFormat.sniff(mask) == .jpeg)
    }

    // MARK: Label maps and masks are data

    @Test func labelMapsAndMasksAreGreyPNGsHoldingTheValues() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.twoAstronauts(), to: "two.png")
        let run = try LiftBinary.run(["two.png", "-m", "person", "--labels", "l.png", "--mask", "m.png", "--json", "-", "-q"],
                                     in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        for name in ["l.png", "m.png"] {
            let info = try PNGDecoder.readInfo(try Fixtures.bytes(scratch.path(name), absolute: true))
            #expect(info.header.colorType == .gray && info.header.bitDepth == 8, "\(name): raw grey samples, no palette")
        }
        let labels = try PNGDecoder.decodeGray(try Fixtures.bytes(scratch.path("l.png"), absolute: true)).image
        #expect(Set(labels.pixels) == [0, 1, 2], "the samples are the subject numbers")
        // Subject 1 is the larger; its pixels are labelled 1.
        let report = try JSONSerialization.jsonObject(with: Data(run.standardOutput)) as? [String: Any]
        let instances = try #require(((report?["images"] as? [[String: Any]])?.first?["instances"]) as? [[String: Any]])
        #expect(instances.map { $0["area"] as? Int } == [1, 2].map { n in labels.pixels.count { $0 == n } })
    }

    @Test func moreThan255SubjectsMakeA16BitLabelMap() throws {
        var pixels = [Int32](repeating: 0, count: 40 * 40)
        for n in 0 ..< 300 { pixels[(n / 20) * 2 * 40 + (n % 20) * 2] = Int32(n + 1) }
        let map = LabelMap(width: 40, height: 40, labels: pixels, count: 300)
        let png = try ImageFiles.encodeLabelsPNG(map)
        let decoded = try PNGDecoder.decode16(png)
        #expect(decoded.info.header.colorType == .gray && decoded.info.header.bitDepth == 16)
        #expect(stride(from: 0, to: decoded.image.pixels.count, by: 4).map { Int32(decoded.image.pixels[$0]) } == pixels)
    }
}
