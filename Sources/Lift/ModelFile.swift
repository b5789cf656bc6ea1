import Foundation
import LiftModel

/// A model's weight file, found by `ModelCatalog` and loaded (checked against its `SHA256SUMS`
/// entry, or imported from ONNX), with the recipe it carries; not yet prepared for any pass.
struct ModelFile: Sendable {
    let name: ModelName
    let url: URL
    let model: Model
    /// The file's `lift.recipe`; nil when it has none (ONNX files never do).
    let recipe: Recipe?

    /// Finds and loads `name`'s file.
    /// - Throws: `LiftError.weightsNotFound` naming the directories searched; `.modelLoadFailed` for a
    ///   file that does not load, is not the one recorded, or carries a recipe that does not decode (or,
    ///   for `.subject`, none).
    init(_ name: ModelName, environment: [String: String]) throws(LiftError) {
        do {
            url = try ModelCatalog.url(for: name, environment: environment)
        } catch {
            switch error {
            case .weightsNotFound(_, let searched), .modelNotFound(_, let searched): throw .weightsNotFound(model: name, searched: searched)
            }
        }
        do {
            if url.pathExtension.lowercased() == "onnx" {
                model = try ONNXConversion(contentsOf: url).model()
            } else {
                model = try Model(contentsOf: url, expectedSHA256: try WeightsManifest.recordedDigest(for: url))
            }
            // The shipped subject model's levels exist only in its file (`RecipeError.missing`).
            recipe = try Recipe.from(metadata: model.metadata, required: name == .subject)
        } catch {
            throw .modelLoadFailed(model: name, path: url.path, underlying: error)
        }
        self.name = name
    }
}
