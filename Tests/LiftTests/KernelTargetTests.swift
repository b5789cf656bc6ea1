import Lift
import Testing

/// What the kernels of this build target, as a library sees it through `Lift`, and the note a build
/// for the x86-64 baseline gives: none where the kernels target the CPU, the way to build fast where not.
@Suite struct KernelTargetTests {
    @Test func theSlowBuildNoteIsGivenExactlyForTheBaseline() throws {
        guard KernelTarget.current == .baseline else {
            #expect(SubjectLifter.slowBuildNote == nil)
            return
        }
        let note = try #require(SubjectLifter.slowBuildNote)
        #expect(!note.contains("\n"), "one line")
        #expect(note.contains("swift build -c release -Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLIFT_FMA"))
    }
}
