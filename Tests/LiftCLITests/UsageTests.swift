import Foundation
import Testing
import TestSupport

/// Command lines that never reach the model: help, version and usage errors (exit 2).
@Suite struct UsageTests {
    @Test func versionPrintsTheVersion() throws {
        let result = try LiftBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.outputText.hasPrefix("lift "))
        #expect(result.outputText.split(separator: " ").last?.split(separator: ".").count == 3)
    }

    /// `--help` matches `Tests/LiftCLITests/Snapshots/help.txt`; `RECORD_SNAPSHOTS=1` rewrites it.
    @Test func helpMatchesItsSnapshot() throws {
        let result = try LiftBinary.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let snapshot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Snapshots/help.txt")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
            try FileManager.default.createDirectory(at: snapshot.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(result.standardOutput).write(to: snapshot)
        }
        let recorded = try String(contentsOf: snapshot, encoding: .utf8)
        #expect(result.outputText == recorded, "help changed; re-record with RECORD_SNAPSHOTS=1 swift test --filter helpMatchesItsSnapshot")
    }

    @Test(arguments: [
        (["--frobnicate", "a.jpg"], "unknown option '--frobnicate'"),
        (["--backgroud", "white", "a.jpg"], "did you mean '--background'?"),
        (["a.jpg", "--force", "--skip-existing"], "'--force' and '--skip-existing' cannot be used together"),
        (["a.jpg", "-o"], "option '-o' needs a value"),
        (["a.jpg", "--model", "cat"], "invalid value 'cat' for '--model'"),
        (["a.jpg", "--png-level", "10"], "invalid value '10' for '--png-level'"),
        ([], "no input given"),
    ])
    func usageErrorsExitTwoWithAHint(arguments: [String], message: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write([1, 2, 3], to: "a.jpg")
        let result = try LiftBinary.run(arguments, in: scratch.url)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "stderr was: \(result.standardError)")
        #expect(result.standardError.contains("lift --help"))
        #expect(result.standardOutput.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["a.jpg"])
    }

    @Test func severalImagesToOneFileIsAUsageError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write([1], to: "a.jpg")
        try scratch.write([1], to: "b.jpg")
        try scratch.write([1], to: "out.png")
        let result = try LiftBinary.run(["a.jpg", "b.jpg", "-o", "out.png"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.standardError.contains("give a directory"))
    }
}
