import Foundation

/// An `.onnx` file turned into a Lift model file (`lift.graph/1` `.safetensors`): the imported
/// graph, its weights, the input spec of its rembg preset, and a provenance line. `lift import`
/// writes the bytes; `--model FILE.onnx` loads them without writing.
public struct ONNXConversion: Sendable {
    /// The imported graph.
    public let imported: ONNXImporter.Result
    /// The input spec written as `lift.input`.
    public let spec: InputSpec
    /// The preset the spec comes from.
    public let preset: RembgPreset
    /// Whether the preset was chosen by the file's name (rather than given, or the default).
    public let presetRecognised: Bool

    /// Reads and imports the file at `url`.
    /// - Parameters:
    ///   - preset: the pre- and post-processing; nil picks rembg's for the file's name, else `u2net`'s.
    ///   - output: the ONNX output to compute (default: the first, which is what rembg uses).
    /// - Throws: `ONNXError` for a file that cannot be read or imported, `InputSpecError` when the
    ///   graph's input cannot take a photo.
    public init(contentsOf url: URL, preset: RembgPreset? = nil, output: String? = nil, limits: WeightLimits = .default) throws {
        let model = try ONNXModel(contentsOf: url, limits: limits)
        let stem = url.deletingPathExtension().lastPathComponent
        try self.init(model: model, preset: preset ?? RembgPreset.forModel(stem), output: output)
    }

    /// Imports `model` (see `init(contentsOf:preset:output:limits:)`).
    public init(model: ONNXModel, preset: RembgPreset?, output: String? = nil) throws {
        imported = try ONNXImporter.importGraph(model, output: output)
        presetRecognised = preset != nil
        self.preset = preset ?? RembgPreset.all[0]
        spec = try self.preset.inputSpec(input: imported.inputName, output: imported.outputName,
                                         height: imported.inputHeight, width: imported.inputWidth)
    }

    /// Parameters in the imported graph.
    public var parameterCount: Int { imported.tensors.reduce(0) { $0 + $1.values.count } }

    /// The `.safetensors` bytes: weights in `precision`, `lift.graph`, `lift.input` and
    /// `lift.provenance` (`provenance`, free text) in the metadata.
    public func fileBytes(precision: SafeTensorsWriter.Precision, provenance: String) throws -> [UInt8] {
        try SafeTensorsWriter.bytes(tensors: imported.tensors,
                                    metadata: ["lift.graph": imported.graph, "lift.input": spec.json, "lift.provenance": provenance],
                                    precision: precision)
    }

    /// Throws unless `model` (this conversion's, loaded) gives a mask for the spec's input size, as
    /// every later run needs (`Model.maskOutputProblem`).
    public func checkMaskOutput(of model: Model) throws(ONNXError) {
        if let problem = model.maskOutputProblem(height: spec.height, width: spec.width) {
            throw .unsupportedGraph(reason: problem + " (choose another output with --output-name)")
        }
    }

    /// The model, ready to run, with Float32 weights (nothing is written).
    public func model(limits: WeightLimits = .default) throws -> Model {
        try Model(bytes: try fileBytes(precision: .f32, provenance: "imported from ONNX at load time"), limits: limits)
    }
}
