import Foundation
import LiftModel

/// A subject model's instance heads kept in a weights file of their own (GRAPH-FORMAT.md, "Instance
/// heads in their own file"): the mask graph's output `instance_features` is the heads graph's
/// input. Loaded (read, checked against `SHA256SUMS`, packed) the first time cues are asked for, so
/// a run that never asks pays nothing for them; thread-safe.
final class InstanceHeadsFile: @unchecked Sendable {
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
    private var loaded: (models: [Model], outputs: CueOutputs)?

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

    /// The heads (one copy per mask-model copy) and where their cues are among their outputs,
    /// loaded on the first call.
    /// - Throws: `LiftError.modelLoadFailed` for a file that is missing, does not load or is not the
    ///   one recorded in `SHA256SUMS`, `.unsupportedInputSpec` for a graph without `centre` and `offset` outputs.
    func heads() throws(LiftError) -> (models: [Model], outputs: CueOutputs) {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let first: Model
        do {
            first = try Model(contentsOf: url, expectedSHA256: try WeightsManifest.recordedDigest(for: url))
        } catch {
            throw .modelLoadFailed(model: model, path: url.path, underlying: error)
        }
        guard first.inputShape.name == Self.featuresOutput, let outputs = CueOutputs(outputNames: first.outputNames, after: 0) else {
            throw .unsupportedInputSpec(model: model, reason: "\(url.lastPathComponent) is not instance heads: it reads "
                + "\(first.inputShape.name) and gives \(first.outputNames.joined(separator: ", "))")
        }
        let made = (models: [first] + (1 ..< copies).map { _ in first.replica() }, outputs: outputs)
        loaded = made
        return made
    }
}
