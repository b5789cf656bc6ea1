import LiftCLI
import Testing

/// A file tree in memory: paths of files and of directories, relative to a fake working directory.
struct InMemoryFileSystem: FileSystemView {
    var files: Set<String>
    var directories: Set<String>

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
        let prefix = canonicalPath(path) + "/"
        return (files.union(directories)).filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }
            .shuffled()  // order must not matter to the planner
    }

    /// Drops `./`, empty components and a trailing slash (no links in memory).
    func canonicalPath(_ path: String) -> String {
        path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
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
    #expect(try plan(["a.jpg", "-o", "a.jpg", "--force"]) == [.fail("a.jpg", .wouldOverwriteInput(output: "a.jpg"))])
    #expect(try plan(["a.jpg", "--mask", "./a.jpg"]) == [.fail("a.jpg", .wouldOverwriteInput(output: "./a.jpg"))])
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
