import Foundation
import Lift
import Testing
import TestSupport

/// `lift` says once on standard error when its kernels target the x86-64 baseline (a build without
/// CPU flags), and says nothing of the kind otherwise or with `--quiet`.
@Suite struct SlowBuildNoteTests {
    @Test func theCutoutCommandPrintsTheNoteExactlyForABaselineBuild() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        let run = try LiftBinary.run(["a.png", "-m", "person", "-o", "out.png"], in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        let notes = run.standardError.components(separatedBy: "lift: note: this build of Lift targets the baseline").count - 1
        #expect(notes == (KernelTarget.current == .baseline ? 1 : 0), "\(run.standardError)")
        let quiet = try LiftBinary.run(["a.png", "-m", "person", "-o", "quiet.png", "-q"], in: scratch.url)
        #expect(quiet.status == 0 && !quiet.standardError.contains("lift: note:"), "\(quiet.standardError)")
    }
}
