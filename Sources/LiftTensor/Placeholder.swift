// Placeholder until the tensor runtime lands (issue 8); SwiftPM needs one source file per target.
