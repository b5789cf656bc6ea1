import Foundation
import Lift
import Testing
import TestSupport

/// Batches end to end: failures mixed in, unwritable outputs, resuming, overwriting, recursion.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, "\(SamplePhotos.noWeights)"))
struct BatchTests {
    /// `shots/` with two good photos, a truncated PNG, random bytes named `.jpg`, an empty file, and
    /// `shots/more/` with one more good photo.
    private func scratchWithBatch() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory()
        let photo = try SamplePhotos.astronaut()
        try scratch.write(photo, to: "shots/a.png")
        try scratch.write(try SamplePhotos.pattern(), to: "shots/b.png")
        try scratch.write(Array(photo.prefix(photo.count / 2)), to: "shots/truncated.png")
        var generator = SystemRandomNumberGenerator()
        try scratch.write((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }, to: "shots/noise.jpg")
        try scratch.write([], to: "shots/empty.png")
        try scratch.write(photo, to: "shots/more/c.png")
        return scratch
    }

    /// Files in `directory` (relative to the scratch root), sorted.
    private func listing(_ scratch: ScratchDirectory, _ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path(directory)).sorted()
    }

    @Test func corruptFilesFailOneByOneWhileTheBatchGoesOn() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["shots", "-o", "out", "--json", "report.json"], in: scratch.url)
        #expect(result.status == 1)
        let errors = result.standardError.split(separator: "\n").filter { $0.hasPrefix("lift: ") }
        #expect(errors.count == 3, "\(result.standardError)")
        for name in ["empty.png", "noise.jpg", "truncated.png"] {
            #expect(errors.contains { $0.hasPrefix("lift: shots/\(name): ") }, "no error line for \(name)")
        }
        #expect(result.standardError.contains("2 written, 3 failed"))
        #expect(try listing(scratch, "out") == ["a.cutout.png", "b.cutout.png"])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json")))) as? [String: Any]
        let images = try #require(report?["images"] as? [[String: Any]])
        #expect(images.map { $0["status"] as? String } == ["ok", "ok", "failed", "failed", "failed"])
        #expect(images.compactMap { $0["error"] as? String }.count == 3)
    }

    @Test func recursionKeepsTheTreeInTheOutputDirectory() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        for name in ["truncated.png", "noise.jpg", "empty.png"] { try FileManager.default.removeItem(atPath: scratch.path("shots/\(name)")) }
        let result = try LiftBinary.run(["-r", "shots", "-o", "out", "-q"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try listing(scratch, "out") == ["a.cutout.png", "b.cutout.png", "more"])
        #expect(try listing(scratch, "out/more") == ["c.cutout.png"])
    }

    @Test func unwritableOutputFailsEachImageAndLeavesNoTemporaryFiles() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        try scratch.write([1], to: "blocker")
        // A directory below a regular file cannot be created, whoever runs the test (even root).
        let result = try LiftBinary.run(["shots/a.png", "shots/b.png", "-o", "blocker/out"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.standardError.contains("lift: shots/a.png: blocker/out/a.cutout.png: cannot write"), "\(result.standardError)")
        #expect(result.standardError.contains("lift: shots/b.png:"))
        if geteuid() != 0 {
            try FileManager.default.createDirectory(atPath: scratch.path("readonly"), withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: scratch.path("readonly"))
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path("readonly")) }
            let readonly = try LiftBinary.run(["shots/a.png", "-o", "readonly/"], in: scratch.url)
            #expect(readonly.status == 1)
            #expect(readonly.standardError.contains("ermission denied"), "\(readonly.standardError)")
            #expect(try listing(scratch, "readonly").isEmpty)
        }
        #expect(!(try listing(scratch, "shots")).contains { $0.contains(".tmp-") })
    }

    @Test func skipExistingResumesAndForceOverwrites() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        #expect(try LiftBinary.run(["shots/a.png", "-o", "out/"], in: scratch.url).status == 0)
        let written = try FileManager.default.attributesOfItem(atPath: scratch.path("out/a.cutout.png"))[.modificationDate] as? Date

        let again = try LiftBinary.run(["shots/a.png", "shots/b.png", "-o", "out"], in: scratch.url)
        #expect(again.status == 1)
        #expect(again.standardError.contains("lift: shots/a.png: out/a.cutout.png exists (use --force to overwrite, or --skip-existing)"))
        #expect(scratch.exists("out/b.cutout.png"), "the batch goes on after the existing output")

        try FileManager.default.removeItem(atPath: scratch.path("out/b.cutout.png"))
        let resumed = try LiftBinary.run(["shots/a.png", "shots/b.png", "-o", "out", "--skip-existing"], in: scratch.url)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("shots/a.png: skipped, out/a.cutout.png exists"))
        #expect(resumed.standardError.contains("1 written, 1 skipped"))
        #expect(try FileManager.default.attributesOfItem(atPath: scratch.path("out/a.cutout.png"))[.modificationDate] as? Date == written)

        try scratch.write([0], to: "out/a.cutout.png")
        #expect(try LiftBinary.run(["shots/a.png", "-o", "out", "--force"], in: scratch.url).status == 0)
        #expect(try SamplePhotos.decodeFile(scratch.path("out/a.cutout.png")).width == 256)
    }

    @Test func inputsAreNeverOverwritten() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path("shots/a.png")))
        let result = try LiftBinary.run(["shots/a.png", "-o", "shots/a.png", "--force"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.standardError.contains("refusing to write shots/a.png: it is an input"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("shots/a.png"))) == before)
    }

    @Test func missingInputIsReportedAndTheRestIsDone() throws {
        let scratch = try scratchWithBatch()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["nope.png", "shots/a.png"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.standardError.contains("lift: nope.png: no such file or directory"))
        #expect(scratch.exists("shots/a.cutout.png"))
    }
}
