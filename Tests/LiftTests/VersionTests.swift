import Lift
import Testing

@Test func versionIsSemantic() {
    #expect(LiftVersion.string.split(separator: ".").count == 3)
}
