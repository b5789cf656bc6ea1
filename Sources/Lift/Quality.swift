/// How much work `SubjectLifter` spends per photo, like Vision's person-segmentation quality levels.
///
/// - `fast`: one model pass at a smaller input where the model allows it, the map upsampled without
///   edge refinement.
/// - `balanced` (default): the model at its native input on the photo and on its mirror image,
///   the two maps averaged; for the subject model, U²-Net-small's map (one pass at 192², 0.6 of its
///   320²) combined with it when `Weights/u2netp.safetensors` is there (`MapCombination`); edges
///   refined with the photo as guide.
/// - `accurate`: `balanced` plus the same two passes at 1.25× the native input (where the model
///   allows it), all four maps averaged; for the subject model, U²-Net-small's map (photo and
///   mirror image at 320²) combined with it when `Weights/u2netp.safetensors` is there (`MapCombination`);
///   an edge refinement that follows weaker photo edges.
///
/// Fixed-size models (the person model is 256×256, U²-Net-small 320×320) run at their size, each
/// distinct pass (plain or mirrored) once; U²-Net-small beside the subject model runs at the sizes
/// of `partnerPasses`.
public enum Quality: String, CaseIterable, Sendable, Codable {
    case fast, balanced, accurate

    /// Whether the mask is refined with a guided filter on the full-resolution photo.
    public var refinesEdges: Bool { self != .fast }

    /// Guided-filter regularisation for `Analysis.Options.refineEpsilon` (smaller follows weaker edges).
    /// `balanced`: 1e-2, the lowest outline error of 1e-4, 1e-3 and 1e-2 on `Benchmarks/edges.py`'s
    /// composites of both validation sets; `accurate`: 1e-3, which follows weaker photo edges (hair)
    /// that the composites' binary outlines cannot reward, for 0.3 levels more outline error there.
    public var refineEpsilon: Float { self == .accurate ? 1e-3 : 1e-2 }

    /// The model passes whose probability maps are averaged (at the first pass's resolution).
    /// Test-time augmentation, measured on the 500 DUTS-TE validation pairs with the subject model:
    /// the mirrored pass and the 1.25× passes each raise max-F (`docs/models/subject.md`).
    public var passes: [ModelPass] {
        switch self {
        case .fast: [ModelPass(scale: 0.75, mirrored: false)]
        case .balanced: [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true)]
        case .accurate: [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true),
                         ModelPass(scale: 1.25, mirrored: false), ModelPass(scale: 1.25, mirrored: true)]
        }
    }

    /// U²-Net-small's passes when it runs beside the subject model (`SubjectLifter.partner`): none at
    /// `fast`; one plain pass at 0.6 of its 320² input (192², a third of the time) at `balanced`, which
    /// keeps a 1 MP cut-out within 1.5× of the subject model's alone (1.37×; 256² would take 1.57×,
    /// `docs/decisions/0002-u2net-small-joins-balanced.md`); the photo and its mirror image at 320² at `accurate`.
    var partnerPasses: [ModelPass] {
        switch self {
        case .fast: []
        case .balanced: [ModelPass(scale: 0.6, mirrored: false)]
        case .accurate: [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true)]
        }
    }

    /// How the partner's map joins the subject model's (`MapCombination`).
    var partnerCombination: MapCombination {
        switch self {
        case .fast, .accurate: .even
        case .balanced: .balanced
        }
    }
}

/// One run of the model over the whole photo.
public struct ModelPass: Hashable, Sendable {
    /// Factor on the model's native input side (models of open size only; fixed-size models ignore
    /// it), the result rounded to a multiple of 32.
    public var scale: Double
    /// Run on the photo mirrored left–right, and mirror the map back.
    public var mirrored: Bool

    /// A pass at `scale`, mirrored or not.
    public init(scale: Double, mirrored: Bool) {
        self.scale = scale
        self.mirrored = mirrored
    }
}
