// Placeholder until the executor lands (issue 8); SwiftPM needs one source file per target.
import LiftTensor
