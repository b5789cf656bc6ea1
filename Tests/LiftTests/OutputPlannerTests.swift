import Foundation
import LiftCLI
import LiftPipeline
import Testing

/// A file tree in memory: paths of files and of directories, relative to a fake working directory.
struct InMemoryFileSystem: FileSystemView {
    var files: Set<String>
    var directories: Set<String>
    /// Symbolic links to directories: link path → target path.
    var links: [String: String] = [:]
    /// Names a directory listing shows that cannot be opened (Foundation's spelling of a name that is
    /// not UTF-8): directory path → names.
    var unopenable: [String: [String]] = [:]

    init(files: [String], directories: [String] = []) {
        self.files = Set(files)
        var all = Set(directories)
        for path in files + directories {
            var parts = path.split(separator: "/").dropLast()
            while !parts.isEmpty {
                all.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        self.directories = all
    }

    func kind(of path: String) -> FileKind {
        let path = canonicalPath(path)
        return files.contains(path) ? .file : directories.contains(path) || path.isEmpty ? .directory : .missing
    }

    func contentsOfDirectory(_ path: String) throws -> [String] {
        let canonical = canonicalPath(path), prefix = canonical.isEmpty ? "" : canonical + "/"
        let present = files.union(directories).union(links.keys)
            .filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }
        return (present + (unopenable[canonical] ?? [])).shuffled()  // order must not matter to the planner
    }

    /// Drops `./`, empty components and a trailing slash, and follows `links` component by component.
    func canonicalPath(_ path: String) -> String {
        var resolved = ""
        for part in path.split(separator: "/") where part != "." {
            resolved = resolved.isEmpty ? String(part) : resolved + "/" + part
            while let target = links[resolved] { resolved = target }
        }
        return resolved
    }
}

private let tree = InMemoryFileSystem(files: [
    "a.jpg", "b.png", "notes.txt", "shots/1.jpg", "shots/2.JPEG", "shots/2.cutout.png", "shots/.hidden.png",
    "shots/deep/3.png", "done/x.jpg", "done/x.cutout.png", "empty/readme.md", "out.png",
])

private func plan(_ arguments: [String], fileSystem: InMemoryFileSystem = tree) throws -> [PlanEntry] {
    guard case .run(let options) = try CutoutCommand.parse(arguments) else { throw UsageError.missingInput }
    return try OutputPlanner(fileSystem: fileSystem).plan(options)
}

@Test func defaultOutputIsBesideTheInput() throws {
    #expect(try plan(["a.jpg", "shots/1.jpg"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"))),
        .process(ImageJob(input: .file("shots/1.jpg"), output: .path("shots/1.cutout.png"))),
    ])
}

@Test func directoryInputTakesImagesButNotOutputsHiddenFilesOrSubdirectories() throws {
    #expect(try plan(["shots"]) == [
        .process(ImageJob(input: .file("shots/1.jpg"), output: .path("shots/1.cutout.png"))),
        .fail("shots/2.JPEG", .outputExists("shots/2.cutout.png")),
    ])
}

@Test func recursionKeepsSubdirectoriesInTheOutputDirectory() throws {
    #expect(try plan(["shots", "-r", "-o", "out"]) == [
        .process(ImageJob(input: .file("shots/1.jpg"), output: .path("out/1.cutout.png"))),
        .process(ImageJob(input: .file("shots/2.JPEG"), output: .path("out/2.cutout.png"))),
        .process(ImageJob(input: .file("shots/deep/3.png"), output: .path("out/deep/3.cutout.png"))),
    ])
}

@Test func oneInputToAFileOrADirectory() throws {
    #expect(try plan(["a.jpg", "-o", "result.png"]) == [.process(ImageJob(input: .file("a.jpg"), output: .path("result.png")))])
    #expect(try plan(["a.jpg", "-o", "new/"]) == [.process(ImageJob(input: .file("a.jpg"), output: .path("new/a.cutout.png")))])
    #expect(try plan(["a.jpg", "-o", "shots"]) == [.process(ImageJob(input: .file("a.jpg"), output: .path("shots/a.cutout.png")))])
    #expect(try plan(["a.jpg", "-o", "out.png", "--force"]) == [.process(ImageJob(input: .file("a.jpg"), output: .path("out.png")))])
}

@Test func severalInputsNeedADirectory() throws {
    #expect(try plan(["a.jpg", "b.png", "-o", "fresh"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("fresh/a.cutout.png"))),
        .process(ImageJob(input: .file("b.png"), output: .path("fresh/b.cutout.png"))),
    ])
    #expect(throws: UsageError.invalidOutput("-o out.png is a file, but the inputs hold 2 images; give a directory")) {
        try plan(["a.jpg", "b.png", "-o", "out.png"])
    }
    #expect(throws: UsageError.invalidOutput("-o - writes one image to standard output, but the inputs hold 2 images")) {
        try plan(["shots", "-o", "-"])
    }
}

@Test func standardInputAndOutput() throws {
    #expect(try plan(["-"]) == [.process(ImageJob(input: .standardInput, output: .standardOutput))])
    #expect(try plan(["a.jpg", "-o", "-"]) == [.process(ImageJob(input: .file("a.jpg"), output: .standardOutput))])
    #expect(try plan(["-", "-o", "x.png"]) == [.process(ImageJob(input: .standardInput, output: .path("x.png")))])
    #expect(try plan(["-", "a.jpg", "-o", "d"]) == [
        .process(ImageJob(input: .standardInput, output: .path("d/stdin.cutout.png"))),
        .process(ImageJob(input: .file("a.jpg"), output: .path("d/a.cutout.png"))),
    ])
}

@Test func inputsAreNeverOverwrittenEvenWithForce() throws {
    #expect(try plan(["b.png", "-o", "b.png", "--force"]) == [.fail("b.png", .wouldOverwriteInput(output: "b.png"))])
    #expect(try plan(["b.png", "--mask", "./b.png"]) == [.fail("b.png", .wouldOverwriteInput(output: "./b.png"))])
    #expect(try plan(["a.jpg", "-o", "a.jpg", "--force", "-b", "white"]) == [.fail("a.jpg", .wouldOverwriteInput(output: "a.jpg"))])
}

@Test func theCutoutsFormatNamesItsFiles() throws {
    #expect(try plan(["a.jpg", "shots/1.jpg", "--format", "webp"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.webp"))),
        .process(ImageJob(input: .file("shots/1.jpg"), output: .path("shots/1.cutout.webp"))),
    ])
    #expect(try plan(["a.jpg", "--format", "JPG", "-b", "white", "--mask", "m/"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.jpg"), mask: "m/a.mask.png")),
    ])
    #expect(throws: UsageError.invalidOutput("-o a.gif: lift writes PNG, WebP or JPEG; name the output .png, .webp or .jpg")) {
        try plan(["a.jpg", "-o", "a.gif"])
    }
    #expect(throws: UsageError.invalidOutput(
        "--labels l.webp: the label map is a PNG (its values are subject numbers, which a lossy format would change); name it .png")) {
        try plan(["a.jpg", "--labels", "l.webp"])
    }
}

@Test func aDirectoryOfLiftsOwnOutputsSaysWhyNothingWasTaken() throws {
    let outputs = InMemoryFileSystem(files: ["done/a.cutout.png", "done/a.mask.png", "done/notes.txt"])
    #expect(try plan(["done"], fileSystem: outputs) == [.fail("done", .onlyLiftOutputs(count: 2))])
    #expect(PlanFailure.onlyLiftOutputs(count: 2).description.hasPrefix("the directory holds only Lift's own outputs (2 files"))
    #expect(try plan(["empty"], fileSystem: InMemoryFileSystem(files: [], directories: ["empty"])) == [.fail("empty", .noImagesInDirectory)])
}

@Test func directoryScansTakeWebPAndGIFButNotLiftsOwnOutputs() throws {
    let photos = InMemoryFileSystem(files: ["in/a.webp", "in/b.GIF", "in/c.cutout.webp", "in/d.mask.jpg", "in/e.txt"])
    #expect(try plan(["in", "-o", "out/"], fileSystem: photos).count == 2)
    #expect(try plan(["in", "-o", "out/"], fileSystem: photos).allSatisfy {
        if case .process(let job) = $0 { job.input == .file("in/a.webp") || job.input == .file("in/b.GIF") } else { false }
    })
}

@Test func existingOutputsFailSkipOrGetOverwritten() throws {
    #expect(try plan(["done/x.jpg"]) == [.fail("done/x.jpg", .outputExists("done/x.cutout.png"))])
    #expect(try plan(["done/x.jpg", "--skip-existing"]) == [.skip(.file("done/x.jpg"), output: "done/x.cutout.png")])
    #expect(try plan(["done/x.jpg", "--force"]) == [.process(ImageJob(input: .file("done/x.jpg"), output: .path("done/x.cutout.png")))])
    // With an extra output still missing, --skip-existing redoes the image.
    #expect(try plan(["done/x.jpg", "--skip-existing", "--mask", "m.png"]) == [
        .process(ImageJob(input: .file("done/x.jpg"), output: .path("done/x.cutout.png"), mask: "m.png")),
    ])
}

@Test func eachSubjectNumbersTheFilesBeforeLiftsSuffixOrTheExtension() {
    #expect(ImageJob.subjectPath("photo.cutout.png", number: 3) == "photo.3.cutout.png")
    #expect(ImageJob.subjectPath("out/v1.2/photo.mask.png", number: 12) == "out/v1.2/photo.12.mask.png")
    #expect(ImageJob.subjectPath("SHOT.CUTOUT.PNG", number: 1) == "SHOT.1.CUTOUT.PNG")
    #expect(ImageJob.subjectPath("item.png", number: 2) == "item.2.png")
    #expect(ImageJob.subjectPath("dir.v1/item", number: 2) == "dir.v1/item.2")
}

@Test func eachSubjectChecksEveryNumberedFileOfAnOutput() throws {
    // Numbered files of p.jpg exist (2, not 1: any number counts); q.jpg has only lookalikes.
    let fileSystem = InMemoryFileSystem(files: ["p.jpg", "p.2.cutout.png", "q.jpg", "q.cutout.png", "q.x.cutout.png",
                                                "q.02.cutout.png", "q.1.2.cutout.png", "out/p.7.mask.png"])
    let p = ImageJob(input: .file("p.jpg"), output: .path("p.cutout.png"), eachSubject: true)
    let q = ImageJob(input: .file("q.jpg"), output: .path("q.cutout.png"), eachSubject: true)
    #expect(try plan(["p.jpg", "q.jpg", "--each"], fileSystem: fileSystem) == [.fail("p.jpg", .outputExists("p.2.cutout.png")), .process(q)])
    #expect(try plan(["p.jpg", "q.jpg", "--each", "--skip-existing"], fileSystem: fileSystem) == [
        .skip(.file("p.jpg"), output: "p.2.cutout.png"), .process(q),
    ])
    #expect(try plan(["p.jpg", "--each", "--force"], fileSystem: fileSystem) == [.process(p)])
    // A mask directory: its numbered masks count too, and one kind missing redoes the image.
    var masked = p
    masked.mask = "out/p.mask.png"
    #expect(try plan(["p.jpg", "--each", "--mask", "out"], fileSystem: fileSystem) == [.fail("p.jpg", .outputExists("p.2.cutout.png"))])
    #expect(try plan(["p.jpg", "--each", "--mask", "out", "--skip-existing"], fileSystem: fileSystem) == [
        .skip(.file("p.jpg"), output: "p.2.cutout.png"),
    ])
    #expect(try plan(["p.jpg", "--each", "--mask", "m/", "--skip-existing"], fileSystem: fileSystem) == [
        .process(ImageJob(input: .file("p.jpg"), output: .path("p.cutout.png"), mask: "m/p.mask.png", eachSubject: true)),
    ])
    #expect(masked.writtenPaths == ["p.cutout.png", "out/p.mask.png"])
}

@Test func eachSubjectNeverNumbersAFileOverAnInput() throws {
    let fileSystem = InMemoryFileSystem(files: ["p.jpg", "p.1.cutout.png"])
    #expect(try plan(["p.jpg", "./p.1.cutout.png", "--each", "--force"], fileSystem: fileSystem) == [
        .fail("p.jpg", .wouldOverwriteInput(output: "p.1.cutout.png")),
        .process(ImageJob(input: .file("./p.1.cutout.png"), output: .path("p.1.cutout.cutout.png"), eachSubject: true)),
    ])
}

@Test func twoKindsOfOutputCannotShareAFile() throws {
    #expect(throws: UsageError.invalidOutput("-o c.png and --mask ./c.png name the same file; give each output its own name")) {
        try plan(["a.jpg", "-o", "c.png", "--mask", "./c.png", "--force"])
    }
    #expect(throws: UsageError.invalidOutput("--mask m.png and --labels m.png name the same file; give each output its own name")) {
        try plan(["a.jpg", "--mask", "m.png", "--labels", "m.png"])
    }
    #expect(try plan(["a.jpg", "b.png", "-o", "d/", "--mask", "d/", "--labels", "d/"]).count == 2, "directories: names differ by suffix")
    // Derived names count too: the default cut-out beside the input, or one in an output directory.
    #expect(throws: UsageError.invalidOutput("-o a.cutout.png and --mask a.cutout.png name the same file; give each output its own name")) {
        try plan(["a.jpg", "--mask", "a.cutout.png"])
    }
    #expect(throws: UsageError.invalidOutput("-o out/a.cutout.png and --labels out/a.cutout.png name the same file; give each output its own name")) {
        try plan(["a.jpg", "-o", "out/", "--labels", "out/a.cutout.png"])
    }
    // Under --each: two numbered families alike, or a single file among the numbered ones.
    #expect(throws: UsageError.invalidOutput("-o a.cutout.png and --mask a.cutout.png name the same files (--each numbers them); give each output its own name")) {
        try plan(["a.jpg", "--each", "--mask", "a.cutout.png"])
    }
    #expect(throws: UsageError.invalidOutput("-o out.png and --labels out.2.png name the same files (--each numbers them); give each output its own name")) {
        try plan(["a.jpg", "--each", "-o", "out.png", "--labels", "out.2.png"])
    }
    #expect(try plan(["a.jpg", "--each", "-o", "out.png", "--labels", "out.02.png"]).count == 1, "numbers never start with 0")
    #expect(throws: UsageError.invalidOutput("-o a.cutout.png and --labels a.cutout.png name the same files (--each numbers them); give each output its own name")) {
        try plan(["a.jpg", "--each", "--labels", "a.cutout.png"])  // not written under --each, but read as the same
    }
}

@Test func theReportIsCheckedAgainstEveryNumberedFile() throws {
    func reportClashes(_ output: String, _ report: String) throws -> Bool {
        do {
            _ = try plan(["a.jpg", "--each", "-o", output, "--json", report])
            return false
        } catch UsageError.invalidOutput(let message) {
            return message == "--json \(report) is also an output for a.jpg"
        }
    }
    #expect(try reportClashes("d/a.cutout.png", "d/a.12.cutout.png"))
    #expect(try reportClashes("item.png", "./item.3.png"))
    #expect(try reportClashes("item", "item.3"))
    #expect(try reportClashes("v.3.png", "v.3.2.png"))
    #expect(try !reportClashes("a.b.png", "a.1.b.png"), "a.b.png numbers a.b.1.png")
    #expect(try !reportClashes("p.png", "p.07.png"), "numbers never start with 0")
    #expect(try !reportClashes("p.png", "q.1.png"))
}

@Test func collidingOutputsFailTheSecondInput() throws {
    let fileSystem = InMemoryFileSystem(files: ["p/cat.jpg", "p/cat.png"])
    #expect(try plan(["p"], fileSystem: fileSystem) == [
        .process(ImageJob(input: .file("p/cat.jpg"), output: .path("p/cat.cutout.png"))),
        .fail("p/cat.png", .outputCollision(output: "p/cat.cutout.png", otherInput: "p/cat.jpg")),
    ])
}

@Test func missingInputsAndEmptyDirectoriesAreFailuresNotUsageErrors() throws {
    #expect(try plan(["nope.jpg", "a.jpg"]) == [
        .fail("nope.jpg", .inputNotFound),
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"))),
    ])
    #expect(try plan(["empty"]) == [.fail("empty", .noImagesInDirectory)])
}

@Test func masksAndLabelsFollowTheOutputLayout() throws {
    #expect(try plan(["a.jpg", "--mask", "a-mask.png", "--labels", "a-labels.png"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"), mask: "a-mask.png", labels: "a-labels.png")),
    ])
    #expect(try plan(["a.jpg", "b.png", "--mask", "masks"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"), mask: "masks/a.mask.png")),
        .process(ImageJob(input: .file("b.png"), output: .path("b.cutout.png"), mask: "masks/b.mask.png")),
    ])
}

@Test func explicitFilesNeedNoImageExtension() throws {
    #expect(try plan(["notes.txt"]) == [.process(ImageJob(input: .file("notes.txt"), output: .path("notes.cutout.png")))])
}

@Test func planFailuresReadAsSentences() {
    #expect(PlanFailure.outputExists("a.cutout.png").description
        == "a.cutout.png exists (use --force to overwrite, or --skip-existing)")
    #expect(PlanFailure.wouldOverwriteInput(output: "a.jpg").description == "refusing to write a.jpg: it is an input")
}

@Test func theSameInputTwiceIsCutOutOnce() throws {
    #expect(try plan(["a.jpg", "./a.jpg", "a.jpg"]) == [
        .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"))),
        .duplicate("./a.jpg", of: "a.jpg"), .duplicate("a.jpg", of: "a.jpg"),
    ])
    #expect(try plan(["shots", "./shots/", "-o", "out"]) == plan(["shots", "-o", "out"]))
    #expect(try plan(["-r", "shots", "shots/deep", "-o", "out"]) == plan(["-r", "shots", "-o", "out"]))
    // The enclosing directory decides the layout whatever the order (out/deep/3.cutout.png).
    #expect(try plan(["-r", "shots/deep", "shots", "-o", "out"]) == plan(["-r", "shots", "-o", "out"]))
    // Without -r the sub-directory is an input of its own.
    #expect(try plan(["shots/deep", "shots", "-o", "out"]).count == 3)
    // Scans skip hidden directories, so one named inside another stays an input of its own.
    let hidden = InMemoryFileSystem(files: ["top/1.jpg", "top/.cache/4.png"])
    #expect(try plan(["-r", "top/.cache", "top", "-o", "out"], fileSystem: hidden) == [
        .process(ImageJob(input: .file("top/.cache/4.png"), output: .path("out/4.cutout.png"))),
        .process(ImageJob(input: .file("top/1.jpg"), output: .path("out/1.cutout.png"))),
    ])
    // Named on its own and again inside its directory.
    #expect(try plan(["shots/1.jpg", "shots", "-o", "out"]) == [
        .process(ImageJob(input: .file("shots/1.jpg"), output: .path("out/1.cutout.png"))),
        .duplicate("shots/1.jpg", of: "shots/1.jpg"),
        .process(ImageJob(input: .file("shots/2.JPEG"), output: .path("out/2.cutout.png"))),
    ])
    // The duplicate does not count as a second image for a single output file.
    #expect(try plan(["a.jpg", "./a.jpg", "-o", "one.png"]).count == 2)
}

@Test func recursionListsEachRealDirectoryOnceThroughLinks() throws {
    var fileSystem = InMemoryFileSystem(files: ["tree/a/x.png", "tree/a/b/y.jpg"])
    fileSystem.links = ["tree/a/b/loop": "tree/a", "tree/a/again": "tree", "tree/twin": "tree/a/b"]
    #expect(try plan(["-r", "tree", "-o", "out"], fileSystem: fileSystem) == [
        .process(ImageJob(input: .file("tree/a/b/y.jpg"), output: .path("out/a/b/y.cutout.png"))),
        .process(ImageJob(input: .file("tree/a/x.png"), output: .path("out/a/x.cutout.png"))),
    ])
}

@Test func anImageNameThatCannotBeOpenedIsReportedNotSkipped() throws {
    var fileSystem = InMemoryFileSystem(files: ["odd/ok.png"])
    fileSystem.unopenable = ["odd": ["bad\u{FFFD}\u{FFFD}.png", "notes\u{FFFD}.txt"]]
    #expect(try plan(["odd"], fileSystem: fileSystem) == [
        .fail("odd/bad\u{FFFD}\u{FFFD}.png", .nameNotUTF8),
        .process(ImageJob(input: .file("odd/ok.png"), output: .path("odd/ok.cutout.png"))),
    ])
    #expect(try plan(["x\u{FFFD}.jpg"]) == [.fail("x\u{FFFD}.jpg", .nameNotUTF8)])
    // Under -r such a name may be a directory: reported whatever its extension.
    #expect(try plan(["-r", "odd"], fileSystem: fileSystem) == [
        .fail("odd/bad\u{FFFD}\u{FFFD}.png", .nameNotUTF8),
        .fail("odd/notes\u{FFFD}.txt", .nameNotUTF8),
        .process(ImageJob(input: .file("odd/ok.png"), output: .path("odd/ok.cutout.png"))),
    ])
}

/// An output still to be written through a linked directory is the same file as through the real one.
@Test func localCanonicalPathsFollowLinksOfMissingFiles() throws {
    let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lift-canonical-\(UInt32.random(in: 0 ... .max))")
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: root.appendingPathComponent("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("lnk").path, withDestinationPath: "real")
    let files = LocalFileSystem()
    let viaLink = files.canonicalPath(root.appendingPathComponent("lnk/sub/q.cutout.png").path)
    #expect(viaLink == files.canonicalPath(root.appendingPathComponent("real/sub/q.cutout.png").path))
    #expect(viaLink.hasSuffix("/real/sub/q.cutout.png"))
    #expect(files.canonicalPath("/") == "/")
}

@Test func theJSONReportNeverReplacesAnInputAnOutputOrAFileUnasked() throws {
    #expect(throws: UsageError.invalidOutput("--json a.jpg is an input; Lift never overwrites an input")) {
        try plan(["a.jpg", "--json", "a.jpg"])
    }
    #expect(throws: UsageError.invalidOutput("--json a.cutout.png is also an output for a.jpg")) {
        try plan(["a.jpg", "--json", "a.cutout.png"])
    }
    #expect(throws: UsageError.invalidOutput("--json a.1.cutout.png is also an output for a.jpg")) {
        try plan(["a.jpg", "--each", "--json", "a.1.cutout.png"])
    }
    #expect(throws: UsageError.invalidOutput("--json shots is a directory; give the report a file name")) {
        try plan(["a.jpg", "--json", "shots"])
    }
    #expect(throws: UsageError.invalidOutput("--json notes.txt exists (use --force to overwrite it)")) {
        try plan(["a.jpg", "--json", "notes.txt"])
    }
    #expect(try plan(["a.jpg", "--json", "notes.txt", "--force"]).count == 1)
    // Standard input's cut-out goes to standard output by default: the report cannot go there too.
    #expect(throws: UsageError.conflictingOptions("--json -", "a cut-out to standard output",
                                                  reason: "only one of them can use standard output; name the cut-out with -o")) {
        try plan(["-", "--json", "-"])
    }
    #expect(try plan(["-", "--json", "-", "-o", "c.png"]).count == 1)
    #expect(try plan(["a.jpg", "--json", "report.json"]).count == 1)
}
