import Foundation
import Lift
import LiftCLI
import Testing

/// What a command run sent to its streams.
private final class Streams: @unchecked Sendable {
    var output: [UInt8] = []
    var error = ""
    var processorsMade = 0
}

private struct WeightsMissing: Error, CustomStringConvertible {
    var description: String { "no weights for the subject model" }
}

/// An environment over an in-memory tree whose processor reports one subject per image, or fails to load.
private func environment(_ streams: Streams, files: [String], stdinIsTerminal: Bool = false, stdoutIsTerminal: Bool = false,
                         processorFails: Bool = false) -> CommandEnvironment {
    CommandEnvironment(
        writeStandardOutput: { streams.output += $0 },
        writeStandardError: { streams.error += $0 },
        standardInputIsTerminal: stdinIsTerminal, standardOutputIsTerminal: stdoutIsTerminal, standardErrorIsTerminal: false, terminalWidth: 80,
        fileSystem: InMemoryFileSystem(files: files),
        makeProcessor: { _, _ in
            streams.processorsMade += 1
            if processorFails { throw WeightsMissing() }
            return { job in
                var report = ImageReport(input: job.input.displayName, status: .ok)
                report.output = job.output == .standardOutput ? "-" : "written"
                return report
            }
        })
}

@Test func helpAndVersionGoToStandardOutput() {
    let streams = Streams()
    #expect(LiftCommand.run(["--help"], environment: environment(streams, files: [])) == 0)
    #expect(String(decoding: streams.output, as: UTF8.self) == HelpText.full)
    streams.output = []
    #expect(LiftCommand.run(["-V"], environment: environment(streams, files: [])) == 0)
    #expect(String(decoding: streams.output, as: UTF8.self) == "lift \(LiftVersion.string)\n")
    #expect(streams.error.isEmpty)
}

@Test func usageErrorsExitTwoBeforeLoadingTheModel() {
    let streams = Streams()
    #expect(LiftCommand.run(["a.png", "--bogus"], environment: environment(streams, files: ["a.png"])) == 2)
    #expect(streams.error == "lift: unknown option '--bogus'\n\(HelpText.hint)\n")
    #expect(streams.processorsMade == 0)
}

@Test func refusesToWriteAPNGToATerminal() {
    let streams = Streams()
    #expect(LiftCommand.run(["a.png", "-o", "-"], environment: environment(streams, files: ["a.png"], stdoutIsTerminal: true)) == 2)
    #expect(streams.error.hasPrefix("lift: refusing to write a PNG to the terminal"))
}

@Test func refusesToReadAnImageFromATerminal() {
    let streams = Streams()
    #expect(LiftCommand.run(["-", "-o", "x.png"], environment: environment(streams, files: [], stdinIsTerminal: true)) == 2)
    #expect(streams.error.hasPrefix("lift: '-' reads an image from standard input, which is the terminal"))
    #expect(streams.processorsMade == 0)
}

@Test func theModelIsLoadedOnceForTheWholeBatch() {
    let streams = Streams()
    #expect(LiftCommand.run(["a.png", "b.png", "c.png", "-q"], environment: environment(streams, files: ["a.png", "b.png", "c.png"])) == 0)
    #expect(streams.processorsMade == 1)
}

@Test func aModelThatCannotLoadFailsTheRunWithItsReason() {
    let streams = Streams()
    #expect(LiftCommand.run(["a.png"], environment: environment(streams, files: ["a.png"], processorFails: true)) == 1)
    #expect(streams.error == "lift: no weights for the subject model\n")
}

@Test func nothingToProcessLoadsNoModel() {
    let streams = Streams()
    #expect(LiftCommand.run(["missing.png"], environment: environment(streams, files: [])) == 1)
    #expect(streams.processorsMade == 0)
    #expect(streams.error == "lift: missing.png: no such file or directory\n")
}

@Test func jsonReportOnStandardOutput() throws {
    let streams = Streams()
    // A missing second input named like no image Lift writes (one that is, `nope.png`, reads as a
    // forgotten -o and is a usage error).
    #expect(LiftCommand.run(["a.png", "nope.gif", "--json", "-", "-q"], environment: environment(streams, files: ["a.png"])) == 1)
    let report = try JSONDecoder().decode(BatchReport.self, from: Data(streams.output))
    #expect(report.images.map(\.input) == ["a.png", "nope.gif"])
    #expect(report.images.map(\.status) == [.ok, .failed])
    #expect(report.summary.failed == 1 && report.summary.succeeded == 1)
}
