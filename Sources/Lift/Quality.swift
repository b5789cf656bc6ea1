/// How much work `SubjectLifter` spends per photo, like Vision's person-segmentation quality levels.
/// What each level runs is the model's recipe (`Recipe`, from the weight file's `lift.recipe`;
/// `Recipe.generic` for a file without one):
///
/// - `fast`: few passes at a small input, typically without edge refinement.
/// - `balanced` (default): more passes (e.g. the photo and its mirror image), a partner network's
///   map combined with the model's where the recipe names one and its weights are found, edges
///   refined with the photo as guide.
/// - `accurate`: the most passes (e.g. also at a larger input), a refinement that follows weaker
///   photo edges.
///
/// The shipped subject model's recipe: `docs/models/subject.md`.
public enum Quality: String, CaseIterable, Sendable, Codable {
    case fast, balanced, accurate
}

/// One run of the model over the whole photo.
public struct ModelPass: Hashable, Sendable {
    /// Factor on the model's native input side (models of open size only; fixed-size models ignore
    /// it unless opened to any size, as a partner is), the result rounded to a multiple of 32.
    public var scale: Double
    /// Run on the photo mirrored left–right, and mirror the map back.
    public var mirrored: Bool

    /// A pass at `scale`, mirrored or not.
    public init(scale: Double, mirrored: Bool) {
        self.scale = scale
        self.mirrored = mirrored
    }
}
