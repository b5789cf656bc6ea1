import LiftCLI
import LiftPipeline
import Testing

/// A parser with one of each kind of option, independent of `lift`'s own table.
private let parser = ArgumentParser(options: [
    OptionSpec("output", short: "o", value: "PATH", help: "output"),
    OptionSpec("recursive", short: "r", help: "recurse"),
    OptionSpec("force", short: "f", help: "force"),
    OptionSpec("threshold", value: "T", help: "threshold"),
    OptionSpec("background", value: "BG", help: "background"),
])

@Test func longOptionWithSeparateAndInlineValue() throws {
    #expect(try parser.parse(["--output", "a.png", "x.jpg"]).values["output"] == ["a.png"])
    #expect(try parser.parse(["--output=a.png", "x.jpg"]).values["output"] == ["a.png"])
    #expect(try parser.parse(["--output=", "x.jpg"]).values["output"] == [""])
    #expect(try parser.parse(["--output=a=b.png"]).values["output"] == ["a=b.png"])
}

@Test func shortOptionsAttachedClusteredAndSeparate() throws {
    #expect(try parser.parse(["-o", "a.png"]).values["output"] == ["a.png"])
    #expect(try parser.parse(["-oa.png"]).values["output"] == ["a.png"])
    #expect(try parser.parse(["-o=a.png"]).values["output"] == ["a.png"])
    let clustered = try parser.parse(["-rfo", "out", "in"])
    #expect(clustered.flags == ["recursive", "force"])
    #expect(clustered.values["output"] == ["out"])
    #expect(clustered.positionals == ["in"])
}

@Test func dashIsAPositionalAndAValue() throws {
    let parsed = try parser.parse(["-", "-o", "-"])
    #expect(parsed.positionals == ["-"])
    #expect(parsed.values["output"] == ["-"])
}

@Test func doubleDashEndsOptions() throws {
    let parsed = try parser.parse(["-r", "--", "--force", "-o", "-"])
    #expect(parsed.flags == ["recursive"])
    #expect(parsed.positionals == ["--force", "-o", "-"])
}

@Test func positionalsKeepTheirOrderAroundOptions() throws {
    #expect(try parser.parse(["a", "-r", "b", "--force", "c"]).positionals == ["a", "b", "c"])
}

@Test func negativeNumbersAreValuesNotOptions() throws {
    #expect(try parser.parse(["--threshold", "-0.5"]).values["threshold"] == ["-0.5"])
}

@Test(arguments: [
    (["--outptu", "x"], UsageError.unknownOption("--outptu", suggestion: "--output")),
    (["--back=white"], .unknownOption("--back", suggestion: "--background")),
    (["--zzzzzz"], .unknownOption("--zzzzzz", suggestion: nil)),
    (["-x"], .unknownOption("-x", suggestion: nil)),
    (["-rx"], .unknownOption("-x", suggestion: nil)),
    (["--output"], .missingValue(option: "--output")),
    (["-o"], .missingValue(option: "-o")),
    (["--output", "--force"], .missingValue(option: "--output")),
    (["-o", "-r", "x"], .missingValue(option: "-o")),
    (["--force=yes"], .unexpectedValue(option: "--force")),
])
func malformedCommandLinesAreUsageErrors(arguments: [String], expected: UsageError) {
    #expect(throws: expected) { try parser.parse(arguments) }
}

@Test func repeatedSingleValueOptionIsReportedWhenRead() throws {
    let parsed = try parser.parse(["-o", "a", "--output", "b"])
    #expect(throws: UsageError.repeatedOption("--output")) { try parsed.value("output") }
}

@Test func usageErrorsReadAsSentences() {
    #expect(UsageError.unknownOption("--outptu", suggestion: "--output").description
        == "unknown option '--outptu'; did you mean '--output'?")
    #expect(UsageError.missingValue(option: "-o").description == "option '-o' needs a value")
}
