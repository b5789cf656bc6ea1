import Foundation
import LiftTensor
import LiftMask

/// Finds the subjects of photos: loads a segmentation model once, then turns each photo into an
/// `Analysis` (soft mask, subjects, cut-outs), the way VisionKit's `ImageAnalyzer` does.
///
/// ```swift
/// let lifter = try SubjectLifter(model: .person)
/// let analysis = try lifter.analyze(try ImageFiles.load("portrait.jpg"))
/// let cutout = try analysis.image(for: analysis.subjects, croppedToExtent: true, background: .white)
/// try ImageFiles.savePNG(cutout, to: "portrait.cutout.png")
/// ```
/// A lifter is a value that shares its loaded networks; it may be used from several threads (runs of
/// one network are serialised by the executor).
///
/// Speed depends on how Lift was built: built as the root package (`swift build -c release` in a
/// checkout, or as a path or branch dependency) it compiles its kernels for the machine's CPU; as a
/// package depended on by version it cannot (SwiftPM refuses the flags there), and without flags
/// of the consumer's own the kernels target the x86-64 baseline (`KernelTarget.baseline`: no fused
/// multiply-add, 16 registers of 4 floats), which is slower (about 1.7× on the astronaut on an
/// AVX2 machine, docs/library.md). Such a consumer builds with
/// `swift build -c release -Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLIFT_FMA` (and
/// `-Xswiftc -DLIFT_AVX512` on an AVX-512 CPU); `slowBuildNote` says so at run time, and `lift`
/// prints it once on standard error.
public struct SubjectLifter: Sendable {
    /// The model asked for (`.person` also runs its landscape variant on wide photos).
    public let model: ModelName
    /// The quality level it was made with.
    public let quality: Quality
    /// Worker threads for preprocessing, the model and the mask.
    public let threads: Int
    /// How probability maps become subjects; set from the recipe's level (refinement and its ε),
    /// adjustable (threshold, refinement…). Its `grouping` starts nil: the grouping the model's
    /// instance heads carry (`instanceGrouping()`).
    public var analysisOptions: Analysis.Options
    /// What the model's quality levels run: the model file's `lift.recipe`, or `Recipe.generic` for a
    /// file without one.
    public let recipe: Recipe

    /// The second network whose map this level combines with the model's before refinement (the
    /// recipe's `Recipe.Partner`, when its weights are found; absent, the model runs alone), else nil.
    public let partner: ModelName?

    /// The loaded networks: the model's variants, each with its input spec.
    private let networks: [ModelName: Network]
    /// The partner's network (its passes at this level) and how its map joins the model's.
    private let partnerNetwork: (network: Network, combination: MapCombination)?

    /// Loads `model`'s weights (found by `ModelCatalog`: `LIFT_WEIGHTS`, `Weights/` beside the
    /// executable or in the source checkout) and, where the recipe's level names one, its partner's.
    /// - Parameters:
    ///   - model: `.subject`, `.person` or `.personLandscape`, a rembg model or a file; `nil` picks
    ///     `.subject` when its weights exist, else `.person` (see `defaultModel`).
    ///   - quality: the recipe's level to run (passes, partner, edge refinement).
    ///   - threads: worker threads; `nil` uses every active core.
    ///   - environment: the process environment, read for `LIFT_WEIGHTS`.
    /// - Throws: `LiftError.weightsNotFound` naming every directory searched, `.modelLoadFailed` (also
    ///   for a recipe that does not decode, `RecipeError`), `.unsupportedInputSpec`.
    public init(model: ModelName? = nil, quality: Quality = .balanced, threads: Int? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(LiftError) {
        let model = if let model { model } else { try Self.defaultModel(environment: environment) }
        self.model = model
        self.quality = quality
        self.threads = max(1, threads ?? Parallel.defaultThreads)
        let threads = self.threads
        let file = try ModelFile(model, environment: environment)
        recipe = file.recipe ?? .generic
        let level = recipe[quality]
        var networks: [ModelName: Network] = [model: try Network(file, passes: level.passes, threads: threads)]
        // The landscape variant is optional: absent, wide photos use the square model; present but
        // broken, it is an error like any model file's.
        if model == .person, (try? ModelCatalog.url(for: .personLandscape, environment: environment)) != nil {
            networks[.personLandscape] = try Network(try ModelFile(.personLandscape, environment: environment), passes: level.passes,
                                                     threads: threads)
        }
        self.networks = networks
        // A partner runs when its weights are found (absent: the model alone; present but broken: an error).
        if let partner = level.partner, (try? ModelCatalog.url(for: partner.model, environment: environment)) != nil {
            self.partner = partner.model
            partnerNetwork = (try Network(try ModelFile(partner.model, environment: environment), passes: partner.passes,
                                          scalesFixedSize: true, threads: threads), partner.combination)
        } else {
            partner = nil
            partnerNetwork = nil
        }
        analysisOptions = Analysis.Options(refine: level.refineEpsilon != nil,
                                           refineEpsilon: level.refineEpsilon ?? Analysis.Options().refineEpsilon, threads: self.threads)
    }

    /// How to build Lift fast, when this build's kernels target the x86-64 baseline
    /// (`KernelTarget.current == .baseline`: built without CPU flags, as a package depending on Lift
    /// by version is unless it passes its own), else nil.
    public static var slowBuildNote: String? {
        guard KernelTarget.current == .baseline else { return nil }
        return "this build of Lift targets the baseline x86-64 CPU (SSE2, no fused multiply-add), so its kernels run slower "
            + "than in a build for this CPU: build Lift itself with `swift build -c release` (it sets the CPU "
            + "flags), or, for a package that depends on it by version, `swift build -c release -Xswiftc -target-cpu -Xswiftc "
            + "native -Xswiftc -DLIFT_FMA` (add `-Xswiftc -DLIFT_AVX512` on an AVX-512 CPU; docs/library.md)"
    }

    /// `.subject` when its weight file can be found (even one that will not load: that is then an
    /// error, not a silent switch to another model), else `.person`.
    /// - Throws: `LiftError.weightsNotFound` when neither can be found.
    public static func defaultModel(environment: [String: String] = ProcessInfo.processInfo.environment) throws(LiftError) -> ModelName {
        if (try? ModelCatalog.url(for: .subject, environment: environment)) != nil { return .subject }
        do {
            _ = try ModelCatalog.url(for: .person, environment: environment)
            return .person
        } catch {
            throw .weightsNotFound(model: .subject, searched: ModelCatalog.searchDirectories(environment: environment).map(\.path))
        }
    }

    /// Analyses `image`: subjects, soft mask, and everything `Analysis` makes from them.
    /// - Throws: `LiftError.inferenceFailed`, `.analysisFailed`, or `.unsupportedInputSpec` when the
    ///   model's output is not a one-channel map.
    public func analyze(_ image: RGBAImage) throws(LiftError) -> Analysis {
        var timings = StageTimings()
        return try analyze(image, timings: &timings)
    }

    /// `analyze(_:)`, recording the time spent in preprocessing, the model and the mask in `timings`.
    /// With `analysisOptions.instances == .model` the model's instance heads run too and regroup the
    /// subjects; a model without them throws `LiftError.noInstanceCues` (never a silent fallback).
    public func analyze(_ image: RGBAImage, timings: inout StageTimings) throws(LiftError) -> Analysis {
        var clock = Stopwatch()
        let wantsCues = analysisOptions.instances == .model
        let (probability, cues) = try maps(for: image, cues: wantsCues, timings: &timings)
        var options = analysisOptions
        if wantsCues, options.grouping == nil {
            options.grouping = try instanceGrouping(width: image.width, height: image.height)
        }
        _ = clock.lap()
        do {
            let analysis = try Analysis(photo: image, probability: probability, instanceCues: cues, placement: .stretched,
                                        options: options)
            timings.mask = clock.lap()
            return analysis
        } catch {
            throw .analysisFailed(underlying: error)
        }
    }

    /// The model's foreground probability for `image` (0…1) at the model's resolution, covering the
    /// whole photo (`MapPlacement.stretched`).
    public func probabilityMap(for image: RGBAImage) throws(LiftError) -> FloatMap {
        var timings = StageTimings()
        return try probabilityMap(for: image, timings: &timings)
    }

    /// `probabilityMap(for:)`, recording preprocessing and inference times in `timings`.
    public func probabilityMap(for image: RGBAImage, timings: inout StageTimings) throws(LiftError) -> FloatMap {
        try maps(for: image, cues: false, timings: &timings).probability
    }

    /// The model's instance cues for `image` (its instance heads' maps over the model frame of
    /// `probabilityMap(for:)`, the passes at that size averaged as the maps are), or nil when the model has no
    /// instance heads (`hasInstanceCues`).
    public func instanceCues(for image: RGBAImage) throws(LiftError) -> InstanceCues? {
        var timings = StageTimings()
        guard hasInstanceCues(width: image.width, height: image.height) else { return nil }
        return try maps(for: image, cues: true, timings: &timings).cues
    }

    /// Whether the model that runs on a `width × height` photo has instance heads, so that
    /// `InstanceSource.model` can be used (a subject model exported with them).
    public func hasInstanceCues(width: Int, height: Int) -> Bool {
        networks[modelVariant(width: width, height: height)]?.hasCues ?? false
    }

    /// Whether the model (its main variant) has instance heads.
    public var hasInstanceCues: Bool { networks[model]?.hasCues ?? false }

    /// The grouping of instance cues tuned for the instance heads of the model that runs on a
    /// `width × height` photo (their recipe's `Recipe.grouping`; loads heads kept in a file of their
    /// own), else `InstanceGrouping.Parameters()`: what `InstanceSource.model` uses while
    /// `analysisOptions.grouping` is nil.
    /// - Throws: `LiftError.modelLoadFailed` for a heads file that does not load.
    public func instanceGrouping(width: Int, height: Int) throws(LiftError) -> InstanceGrouping.Parameters {
        try networks[modelVariant(width: width, height: height)]?.grouping() ?? InstanceGrouping.Parameters()
    }

    /// The probability map and, when `cues` is set, the instance cues (throws `.noInstanceCues` when
    /// the model has none).
    private func maps(for image: RGBAImage, cues: Bool,
                      timings: inout StageTimings) throws(LiftError) -> (probability: FloatMap, cues: InstanceCues?) {
        let variant = modelVariant(width: image.width, height: image.height)
        guard let network = networks[variant] else { preconditionFailure("SubjectLifter holds no network for \(variant.rawValue)") }
        if cues, !network.hasCues { throw .noInstanceCues(model: variant) }
        let (map, instanceCues) = try network.run(image, threads: threads, cues: cues, timings: &timings)
        guard let (partnerNetwork, combination) = partnerNetwork else { return (map, instanceCues) }
        var other = try partnerNetwork.run(image, threads: threads, cues: false, timings: &timings).map
        do {
            if other.width != map.width || other.height != map.height {
                other = try MaskResize.bilinear(other, width: map.width, height: map.height, threads: threads)
            }
        } catch {
            throw .inferenceFailed(model: partnerNetwork.name, underlying: error)
        }
        return (combination.combine(map, other), instanceCues)
    }

    /// What ran on a `width × height` photo, for reports: the model variant, and the partner
    /// (`subject+u2netp`).
    public func modelDescription(width: Int, height: Int) -> String {
        modelVariant(width: width, height: height).rawValue + (partner.map { "+" + $0.rawValue } ?? "")
    }

    /// The model variant that runs on a `width × height` photo: `.personLandscape` for wide photos
    /// when `model` is `.person` and the landscape weights were found, else `model`.
    public func modelVariant(width: Int, height: Int) -> ModelName {
        let variant = ModelCatalog.variant(of: model, width: width, height: height)
        return networks[variant] == nil ? model : variant
    }
}
