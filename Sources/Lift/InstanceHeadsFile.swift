import Foundation
import LiftMask
import LiftModel

/// A subject model's instance heads kept in a weights file of their own (GRAPH-FORMAT.md, "Instance
/// heads in their own file"): the mask graph's output `instance_features` is the heads graph's
/// input. Loaded (read, checked against `SHA256SUMS`, packed) the first time cues are asked for, so
/// a run that never asks pays nothing for them; thread-safe. The file's `lift.recipe` carries the
/// grouping tuned for these heads (`Recipe.grouping`).
final class InstanceHeadsFile: @unchecked Sendable {
    /// The loaded heads: one copy per mask-model copy, where their cues are among their outputs, and
    /// the grouping their recipe gives (nil: none).
    struct Heads {
        let models: [Model]
        let outputs: CueOutputs
        let grouping: InstanceGrouping.Parameters?
    }

    /// The mask graph's output the heads read.
    static let featuresOutput = "instance_features"
    /// The mask file's metadata key naming the heads file (a file name in the same directory).
    static let metadataKey = "lift.instance-heads"

    /// The heads' weights file.
    let url: URL
    /// Where `instance_features` is among the mask graph's outputs.
    let featuresIndex: Int
    private let model: ModelName
    private let copies: Int
    private let lock = NSLock()
    private var loaded: Heads?

    /// The heads file that `mask`'s metadata names, nil when it names none. The file itself is not
    /// looked at until cues are asked for: a missing one is then a load error naming it, and runs that
    /// never ask do not need it.
    /// - Parameters:
    ///   - maskURL: the mask model's file; the heads file must lie beside it.
    ///   - copies: heads replicas to make on loading, one per copy of the mask model.
    /// - Throws: `LiftError.unsupportedInputSpec` when the metadata names something other than a file
    ///   name, or the mask graph has no `instance_features` output.
    init?(for mask: Model, at maskURL: URL, model: ModelName, copies: Int) throws(LiftError) {
        guard let file = mask.metadata[Self.metadataKey] else { return nil }
        guard !file.isEmpty, !file.contains("/"), !file.contains("\\"), file != ".", file != ".." else {
            throw .unsupportedInputSpec(model: model, reason: "\(Self.metadataKey) must name a file beside the model, not \"\(file)\"")
        }
        guard let index = mask.outputNames.firstIndex(of: Self.featuresOutput), index > 0 else {
            throw .unsupportedInputSpec(model: model, reason: "\(Self.metadataKey) names \(file), but the graph has no "
                + "\(Self.featuresOutput) output for it to read")
        }
        url = maskURL.deletingLastPathComponent().appendingPathComponent(file)
        featuresIndex = index
        self.model = model
        self.copies = max(1, copies)
    }

    /// The heads, loaded on the first call.
    /// - Throws: `LiftError.modelLoadFailed` for a file that is missing, does not load, is not the
    ///   one recorded in `SHA256SUMS` or carries a recipe that does not decode (or, for `.subject`, none), `.unsupportedInputSpec`
    ///   for a graph without `centre` and `offset` outputs.
    func heads() throws(LiftError) -> Heads {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let first: Model, recipe: Recipe?
        do {
            first = try Model(contentsOf: url, expectedSHA256: try WeightsManifest.recordedDigest(for: url))
            // The shipped subject model's heads carry the grouping tuned for them (`RecipeError.missing`).
            recipe = try Recipe.from(metadata: first.metadata, required: model == .subject)
        } catch {
            throw .modelLoadFailed(model: model, path: url.path, underlying: error)
        }
        guard first.inputShape.name == Self.featuresOutput, let outputs = CueOutputs(outputNames: first.outputNames, after: 0) else {
            throw .unsupportedInputSpec(model: model, reason: "\(url.lastPathComponent) is not instance heads: it reads "
                + "\(first.inputShape.name) and gives \(first.outputNames.joined(separator: ", "))")
        }
        let made = Heads(models: [first] + (1 ..< copies).map { _ in first.replica() }, outputs: outputs, grouping: recipe?.grouping)
        loaded = made
        return made
    }
}
