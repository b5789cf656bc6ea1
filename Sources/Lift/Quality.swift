/// How much work `SubjectLifter` spends per photo, like Vision's person-segmentation quality levels.
///
/// - `fast`: the model at its smallest input, the probability map upsampled without edge refinement.
/// - `balanced` (default): the model at its native input, edges refined with the photo as guide.
/// - `accurate`: a larger model input where the model allows it, and a finer edge refinement.
public enum Quality: String, CaseIterable, Sendable, Codable {
    case fast, balanced, accurate

    /// Whether the mask is refined with a guided filter on the full-resolution photo.
    public var refinesEdges: Bool { self != .fast }

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
