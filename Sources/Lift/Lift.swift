// The Lift umbrella module: the public API for subject lifting, re-exporting the image types.
@_exported import LiftImage
@_exported import LiftMask
@_exported import LiftModel
import LiftTensor

/// Lift's version, printed by `lift --version`.
public enum LiftVersion {
    /// Semantic version of this build.
    public static let string = "2.7.0"
}

/// What this build's kernels were compiled for (`.baseline`: the x86-64 baseline of a build without
/// CPU flags, slower; `SubjectLifter.slowBuildNote` says how to build fast).
public typealias KernelTarget = LiftTensor.KernelTarget
