import LiftMask

/// What a model's quality levels run, as its weight file says (`lift.recipe` in the file's
/// metadata, `Sources/LiftModel/GRAPH-FORMAT.md`, "Recipe"): per level the model passes averaged,
/// the guided-filter refinement, and the partner network whose map joins the model's; and, for a
/// model with instance heads, the thresholds that group their cues into subjects. The numbers are
/// tuned by training and travel with the weights, so a model trained again changes its file, not
/// Lift; Lift holds the mechanisms (passes, averaging, `MapCombination`, `InstanceGrouping`).
///
/// A model file without a recipe (the person model, U²-Net-small, ONNX imports, rembg's models)
/// runs `Recipe.generic`. Decoded with `init(json:)`, which checks every value against the limits
/// below.
public struct Recipe: Sendable, Equatable {
    /// Most passes of one network at one level (each may keep a copy of the network in memory).
    public static let maximumPasses = 8
    /// The range of `ModelPass.scale`: a pass runs the model at its input side × scale.
    public static let scaleRange: ClosedRange<Double> = 0.125 ... 4

    /// One quality level: what runs and how its maps become the probability map.
    public struct Level: Sendable, Equatable {
        /// The model's passes, their maps averaged at the first pass's resolution (1…`maximumPasses`).
        public var passes: [ModelPass]
        /// The guided filter's regularisation for the edge refinement (`Analysis.Options.refineEpsilon`,
        /// colour variance units, 0 < ε ≤ 1); nil: the map upsampled without refinement.
        public var refineEpsilon: Float?
        /// The second network whose map is combined with the model's before refinement, when its
        /// weights are found (absent: the model alone); nil: none.
        public var partner: Partner?

        /// A level from its parts (checked by `Recipe.init(levels:grouping:)`).
        public init(passes: [ModelPass], refineEpsilon: Float?, partner: Partner? = nil) {
            self.passes = passes
            self.refineEpsilon = refineEpsilon
            self.partner = partner
        }
    }

    /// A network run beside the model at one level, its averaged map combined with the model's.
    public struct Partner: Sendable, Equatable {
        /// A shipped model (found by `ModelCatalog` like the model itself).
        public var model: ModelName
        /// Its passes (1…`maximumPasses`); a fixed-size network is opened to the scaled sizes.
        public var passes: [ModelPass]
        /// How its map joins the model's.
        public var combination: MapCombination

        /// A partner from its parts (checked by `Recipe.init(levels:grouping:)`).
        public init(model: ModelName, passes: [ModelPass], combination: MapCombination) {
            self.model = model
            self.passes = passes
            self.combination = combination
        }
    }

    /// The `fast` level.
    public let fast: Level
    /// The `balanced` level.
    public let balanced: Level
    /// The `accurate` level.
    public let accurate: Level
    /// The instance grouping tuned for the model's instance heads; nil: the file carries none
    /// (`InstanceGrouping.Parameters()`'s defaults apply).
    public let grouping: InstanceGrouping.Parameters?

    /// The level `quality` runs.
    public subscript(quality: Quality) -> Level {
        switch quality {
        case .fast: fast
        case .balanced: balanced
        case .accurate: accurate
        }
    }

    /// A recipe from its parts, checked as a decoded one is.
    /// - Throws: `RecipeError.outOfRange` naming the first value outside its limits (its JSON path).
    public init(fast: Level, balanced: Level, accurate: Level, grouping: InstanceGrouping.Parameters? = nil) throws(RecipeError) {
        self.fast = fast
        self.balanced = balanced
        self.accurate = accurate
        self.grouping = grouping
        try validate()
    }

    /// What a model without a recipe runs (the levels of every model before recipes, and today of
    /// the person model, U²-Net-small and imported models): `fast` one pass at 0.75 of the input
    /// side, unrefined; `balanced` the photo and its mirror image at the model's input, refined with
    /// ε 1e-2; `accurate` those two plus the same at 1.25×, refined with ε 1e-3 (follows weaker
    /// photo edges); no partner, `InstanceGrouping.Parameters()`'s grouping. Fixed-size models run
    /// each distinct pass (plain or mirrored) once at their size.
    public static let generic = Recipe(
        checked: Level(passes: [ModelPass(scale: 0.75, mirrored: false)], refineEpsilon: nil),
        Level(passes: [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true)], refineEpsilon: 1e-2),
        Level(passes: [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true),
                       ModelPass(scale: 1.25, mirrored: false), ModelPass(scale: 1.25, mirrored: true)], refineEpsilon: 1e-3))

    /// A recipe known to be valid (`generic`).
    private init(checked fast: Level, _ balanced: Level, _ accurate: Level) {
        self.fast = fast
        self.balanced = balanced
        self.accurate = accurate
        grouping = nil
    }

    /// Throws `RecipeError.outOfRange` for the first value outside its limits.
    func validate() throws(RecipeError) {
        for quality in Quality.allCases {
            let level = self[quality], path = "levels.\(quality.rawValue)"
            try Self.validate(level.passes, path: path + ".passes")
            if let epsilon = level.refineEpsilon, !(epsilon > 0 && epsilon <= 1) {
                throw .outOfRange(path: path + ".refine_epsilon", value: "\(epsilon)", expected: "0 < ε ≤ 1")
            }
            if let partner = level.partner {
                try Self.validate(partner.passes, path: path + ".partner.passes")
                let combination = partner.combination, at = path + ".partner.combination"
                if !(combination.subjectWeight >= 0 && combination.subjectWeight <= 1) {
                    throw .outOfRange(path: at + ".subject_weight", value: "\(combination.subjectWeight)", expected: "0…1")
                }
                if !(combination.gain >= 1 && combination.gain <= MapCombination.maximumGain) {
                    throw .outOfRange(path: at + ".gain", value: "\(combination.gain)", expected: "1…\(Int(MapCombination.maximumGain))")
                }
            }
        }
        do {
            try grouping?.validate()
        } catch let MaskError.invalidParameter(name, value, expected) {
            throw .outOfRange(path: "grouping." + Self.snakeCase(name), value: value, expected: expected)
        } catch {
            throw .outOfRange(path: "grouping", value: "", expected: "\(error)")
        }
    }

    /// Throws unless `passes` holds 1…`maximumPasses` passes with scales in `scaleRange`.
    private static func validate(_ passes: [ModelPass], path: String) throws(RecipeError) {
        guard (1 ... maximumPasses).contains(passes.count) else {
            throw .outOfRange(path: path, value: "\(passes.count) passes", expected: "1…\(maximumPasses)")
        }
        for (k, pass) in passes.enumerated() where !scaleRange.contains(pass.scale) {
            throw .outOfRange(path: "\(path)[\(k)].scale", value: "\(pass.scale)",
                              expected: "\(scaleRange.lowerBound)…\(scaleRange.upperBound)")
        }
    }

    /// `centreThreshold` → `centre_threshold`, `splitCheck.bias` → `split_check.bias`: a parameter's
    /// Swift name as its recipe key.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { text, character in
            if character.isUppercase { text += "_" + character.lowercased() } else { text.append(character) }
        }
    }
}
