/// How much work `SubjectLifter` spends per photo, like Vision's person-segmentation quality levels.
///
/// - `fast`: a smaller model input where the model allows it, the map upsampled without edge refinement.
/// - `balanced` (default): the model at its native input, edges refined with the photo as guide.
/// - `accurate`: a larger model input where the model allows it, and an edge refinement that follows
///   weaker photo edges (a smaller guided-filter epsilon).
///
/// Fixed-size models (the person model is 256×256) run at their size at every level.
public enum Quality: String, CaseIterable, Sendable, Codable {
    case fast, balanced, accurate

    /// Whether the mask is refined with a guided filter on the full-resolution photo.
    public var refinesEdges: Bool { self != .fast }

    /// Guided-filter regularisation for `Analysis.Options.refineEpsilon` (smaller follows weaker edges).
    public var refineEpsilon: Float { self == .accurate ? 1e-4 : 1e-3 }

    /// Scale applied to the model's native input side for models that accept other sizes
    /// (fully convolutional ones); fixed-size models ignore it. 1 = native.
    public var inputScale: Double {
        switch self {
        case .fast: 0.75
        case .balanced: 1
        case .accurate: 1.5
        }
    }
}
