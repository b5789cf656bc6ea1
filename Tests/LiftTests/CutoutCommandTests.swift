import Lift
import LiftCLI
import LiftPipeline
import Testing

/// The options of a command line that must parse into a run.
private func options(_ arguments: [String]) throws -> CutoutOptions {
    guard case .run(let options) = try CutoutCommand.parse(arguments) else {
        Issue.record("expected a run for \(arguments)")
        return CutoutOptions(inputs: [])
    }
    return options
}

@Test func defaultsForASingleInput() throws {
    let parsed = try options(["photo.jpg"])
    #expect(parsed == CutoutOptions(inputs: ["photo.jpg"]))
    #expect(parsed.request == CutoutRequest())
    #expect(parsed.request.quality == .balanced)
    #expect(parsed.request.background == .transparent)
    #expect(parsed.request.instances == .all)
    #expect(parsed.request.model == nil)
}

@Test func helpAndVersionWinOverEverythingElse() throws {
    #expect(try CutoutCommand.parse(["--help"]) == .help)
    #expect(try CutoutCommand.parse(["-h", "--model", "nope"]) == .help)
    #expect(try CutoutCommand.parse(["--version"]) == .version)
    #expect(try CutoutCommand.parse(["-V"]) == .version)
}

@Test func everyOptionFamilyParses() throws {
    let parsed = try options([
        "a.jpg", "dir", "-r", "-o", "out/", "--skip-existing", "-m", "person", "--quality=accurate",
        "--background", "#10203040", "--crop", "--margin", "5%", "--square", "--max-size", "1024",
        "--instances", "1,3", "--each", "--mask", "m/", "--labels", "l/", "--json", "-", "--threshold", "0.4",
        "--no-refine", "-j", "2", "-q",
    ])
    var expected = CutoutOptions(inputs: ["a.jpg", "dir"])
    expected.recursive = true
    expected.output = .path("out/")
    expected.skipExisting = true
    expected.request.model = .person
    expected.request.quality = .accurate
    expected.request.background = .color(RGBAColor(r: 0x10, g: 0x20, b: 0x30, a: 0x40))
    expected.request.crop = CropOption(margin: .percent(5), square: true)
    expected.request.maxSize = 1024
    expected.request.instances = .numbers([1, 3])
    expected.eachSubject = true
    expected.maskOutput = "m/"
    expected.labelsOutput = "l/"
    expected.jsonReport = .standardOutput
    expected.request.threshold = 0.4
    expected.request.refine = false
    expected.threads = 2
    expected.quiet = true
    #expect(parsed == expected)
}

@Test(arguments: [
    ("transparent", Background.transparent),
    ("white", .white),
    ("#FF8000", .color(RGBAColor(r: 255, g: 128, b: 0))),
    ("blur", .blurred(radius: nil)),
    ("dim", .dimmed(brightness: 0.35)),
])
func backgrounds(text: String, expected: Background) throws {
    #expect(try options(["a.jpg", "--background", text]).request.background == expected)
}

@Test func marginsPointsAndInstances() throws {
    #expect(try options(["a.jpg", "--crop", "--margin", "24"]).request.crop == CropOption(margin: .pixels(24)))
    #expect(try options(["a.jpg", "--crop"]).request.crop == CropOption())
    #expect(try options(["a.jpg", "--at", "120,80"]).request.point == PixelPoint(x: 120, y: 80))
    #expect(try options(["a.jpg", "--instances", "largest"]).request.instances == .largest)
    #expect(try options(["a.jpg", "--instances", "2, 2,1"]).request.instances == .numbers([2, 1]))
}

@Test(arguments: [
    (["--model", "", "a"], UsageError.invalidValue(option: "--model", value: "", expected: "person, person-landscape, subject, u2netp, a rembg model name or a model file")),
    (["--quality", "best", "a"], .invalidValue(option: "--quality", value: "best", expected: "fast, balanced, accurate")),
    (["--threads", "0", "a"], .invalidValue(option: "--threads", value: "0", expected: "a positive whole number")),
    (["--max-size", "big", "a"], .invalidValue(option: "--max-size", value: "big", expected: "a positive whole number")),
    (["--threshold", "1.5", "a"], .invalidValue(option: "--threshold", value: "1.5", expected: "a number from 0 to 1")),
    (["--at", "3", "a"], .invalidValue(option: "--at", value: "3", expected: "a pixel position X,Y such as 120,80")),
    // A negative number is the option's value (and wrong for --at), not a missing value.
    (["--at", "-5,3", "a"], .invalidValue(option: "--at", value: "-5,3", expected: "a pixel position X,Y such as 120,80")),
    (["-b", "dim:", "a"], .invalidValue(option: "--background", value: "dim:",
                                         expected: "dim, or dim:LEVEL with LEVEL from 0 (black) to 1 (the photo unchanged)")),
    (["-b", "dim:2", "a"], .invalidValue(option: "--background", value: "dim:2",
                                          expected: "dim, or dim:LEVEL with LEVEL from 0 (black) to 1 (the photo unchanged)")),
    (["-b", "blur:0", "a"], .invalidValue(option: "--background", value: "blur:0",
                                           expected: "blur, or blur:RADIUS with RADIUS a whole number of pixels from 1 to 10000")),
    (["-b", "plaid", "a"], .invalidValue(option: "--background", value: "plaid",
                                          expected: "transparent, a colour name (\(CutoutOption.cssBasicColorNames)), #RRGGBB, #RRGGBBAA, blur[:RADIUS] or dim[:LEVEL]")),
    (["--instances", "0", "a"], .invalidValue(option: "--instances", value: "0", expected: "all, largest, or subject numbers from 1 such as 1,3")),
    (["--crop", "--margin", "-3", "a"], .invalidValue(option: "--margin", value: "-3", expected: "a number of pixels (24) or a percentage (10%)")),
    (["--crop", "--margin=ten%", "a"], .invalidValue(option: "--margin", value: "ten%", expected: "a number of pixels (24) or a percentage (10%)")),
    (["--margin", "3", "a"], .requiresOption("--margin", requires: "--crop")),
    (["--square", "a"], .requiresOption("--square", requires: "--crop")),
    (["--force", "--skip-existing", "a"], .conflictingOptions("--force", "--skip-existing", reason: "one overwrites existing outputs, the other keeps them")),
    (["--at", "1,2", "--instances", "all", "a"], .conflictingOptions("--at", "--instances", reason: "both choose which subjects to keep")),
    (["-o", "-", "--json", "-", "a"], .conflictingOptions("--output -", "--json -", reason: "only one of them can use standard output")),
    (["--mask", "-", "a"], .invalidValue(option: "--mask", value: "-", expected: "a file or directory path (only the cut-out or the JSON report can go to standard output)")),
    (["-m", "person", "-m", "subject", "a"], .repeatedOption("--model")),
    ([String](), .missingInput),
    (["-q"], .missingInput),
    (["-", "-"], .invalidOutput("standard input ('-') can be read only once")),
    (["-o", "-", "a", "b"], .invalidOutput("'-o -' writes one image to standard output, but 2 inputs were given")),
    (["-", "a"], .invalidOutput("with '-' among several inputs, name an output directory with -o")),
    (["--each", "-o", "-", "a"], .invalidOutput("--each writes a file per subject, which standard output cannot take; name a file or directory with -o")),
    (["--each", "-"], .invalidOutput("--each writes a file per subject, which standard output cannot take; name a file or directory with -o")),
])
func invalidCommandLines(arguments: [String], expected: UsageError) {
    #expect(throws: expected) { try CutoutCommand.parse(arguments) }
}

@Test func badBackgroundNamesTheAcceptedForms() {
    #expect(throws: UsageError.self) { try CutoutCommand.parse(["a", "--background", "plaid"]) }
    #expect(throws: UsageError.self) { try CutoutCommand.parse(["a", "--background", "#12345"]) }
}

@Test func helpListsEveryOptionExactlyOnce() {
    let listed = HelpText.optionGroups.flatMap(\.options)
    #expect(listed.count == Set(listed).count)
    #expect(Set(listed) == Set(CutoutCommand.optionSpecs.map(\.long)))
    for name in listed { #expect(HelpText.full.contains("--\(name)")) }
}

@Test func theFormatComesFromTheOutputsExtensionOrFormat() throws {
    #expect(try options(["a.jpg", "-o", "cut.WEBP"]).request.outputs.format == .webp)
    #expect(try options(["a.jpg", "--format", "webp"]).request.outputs.format == .webp)
    #expect(try options(["a.jpg", "-o", "c.jpeg", "-b", "white"]).request.outputs.format == .jpeg)
    #expect(try options(["a.jpg", "-o", "c.jpg", "--format", "jpeg", "-b", "black", "--output-quality", "75"]).request.outputs.jpegQuality == 75)
    let masked = try options(["a.jpg", "--mask", "m.jpg", "--output-quality", "60"]).request.outputs
    #expect(masked.format == .png && masked.maskFormat == .jpeg && masked.jpegQuality == 60)
    #expect(throws: UsageError.conflictingOptions("--output c.webp", "--format png", reason: "the file's extension says webp")) {
        try CutoutCommand.parse(["a.jpg", "-o", "c.webp", "--format", "png"])
    }
    #expect(throws: UsageError.invalidValue(option: "--format", value: "gif", expected: OutputFormat.names)) {
        try CutoutCommand.parse(["a.jpg", "--format", "gif"])
    }
    #expect(throws: UsageError.invalidValue(option: "--output-quality", value: "0", expected: "a whole number from 1 to 100")) {
        try CutoutCommand.parse(["a.jpg", "--output-quality", "0"])
    }
}

@Test func aTransparentJPEGIsAUsageErrorThatSaysToChooseABackground() throws {
    for arguments in [["a.jpg", "-o", "c.jpg"], ["a.jpg", "--format", "jpeg", "-b", "#ffffff80"]] {
        #expect {
            try CutoutCommand.parse(arguments)
        } throws: { error in
            "\(error)".contains("a JPEG cannot be transparent: choose a background for the cut-out (-b white")
        }
    }
    #expect {
        try CutoutCommand.parse(["a.jpg", "-o", "c.png", "--output-quality", "80"])
    } throws: { error in
        "\(error)" == "'--output-quality' sets a JPEG's quality, but no JPEG is written (PNG and WebP are lossless)"
    }
}
