// The Lift umbrella module: the public API for subject lifting, re-exporting the image types.
@_exported import LiftImage
@_exported import LiftMask
@_exported import LiftModel

/// Lift's version, printed by `lift --version`.
public enum LiftVersion {
    /// Semantic version of this build.
    public static let string = "2.7.0"
}
