// Placeholder until the mask stage lands (issue 3); SwiftPM needs one source file per target.
import LiftImage
