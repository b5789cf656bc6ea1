import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// The shipped `Weights/u2netp.safetensors` (rembg's `u2netp.onnx` through `lift import --f16`)
/// against onnxruntime running the original ONNX graph with the same float16-rounded weights
/// (`Tests/Fixtures/onnx/u2netp.json` at the declared 320², `u2netp-192.json` with the graph's input
/// resized to 192²; both written by `Tools/conversion/import_u2netp.py`).
@Suite struct U2NetSmallModelTests {
    @Test func shippedFileMatchesOnnxRuntimeOnTheOriginalGraph() throws {
        let model = try Self.shippedModel()
        let spec = try InputSpec(json: try #require(model.metadata["lift.input"]))
        #expect(spec.height == 320 && spec.width == 320 && spec.scaling == .maximum && spec.outputNormalization == .minmax)
        #expect(spec.mean == [0.485, 0.456, 0.406] && spec.std == [0.229, 0.224, 0.225] && spec.output == model.outputNames.first)
        #expect(model.inputShape.height == 320 && model.inputShape.width == 320)
        try Self.expectMatchesFixture(model, side: 320, fixture: "onnx/u2netp.json")
    }

    /// Every resize in the imported graph follows another tensor's size, so the graph opened to any
    /// input size (`Model.openedToAnyInputSize`, what `balanced` runs at 192²) computes what
    /// onnxruntime does on the same graph at that size; unopened, the declared 320² is enforced.
    @Test func openedToAnySizeItMatchesOnnxRuntimeAt192() throws {
        let model = try Self.shippedModel()
        #expect(throws: GraphError.self) { try model.run(Tensor(n: 1, h: 192, w: 192, c: 3)) }
        let opened = try #require(model.openedToAnyInputSize())
        #expect(opened.inputShape.height == nil && opened.inputShape.width == nil && opened.inputShape.channels == 3)
        try Self.expectMatchesFixture(opened, side: 192, fixture: "onnx/u2netp-192.json")
    }

    private static func shippedModel() throws -> Model {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Weights/u2netp.safetensors")
        return try Model(contentsOf: url, expectedSHA256: try WeightsManifest.recordedDigest(for: url))
    }

    /// Runs `model` on the fixture's input, x[i] = sin(0.37 i) · 2 over NCHW (laid out NHWC here),
    /// at `side` × `side`, and compares every `step`-th row and column with onnxruntime's output.
    private static func expectMatchesFixture(_ model: Model, side: Int, fixture name: String) throws {
        let (h, w) = (side, side)
        var values = [Float](repeating: 0, count: h * w * 3)
        for c in 0 ..< 3 { for y in 0 ..< h { for x in 0 ..< w {
            values[(y * w + x) * 3 + c] = Float(sin(Double((c * h + y) * w + x) * 0.37) * 2)
        } } }
        let output = try model.run(Tensor(shape: TensorShape(n: 1, h: h, w: w, c: 3), values: values)).toArray()
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.url(name))) as? [String: Any])
        let step = try #require(fixture["step"] as? Int), expected = try #require(fixture["output"] as? [Double])
        var worst = 0.0, index = 0
        for y in stride(from: 0, to: h, by: step) {
            for x in stride(from: 0, to: w, by: step) {
                worst = max(worst, abs(Double(output[y * w + x]) - expected[index]))
                index += 1
            }
        }
        #expect(index == expected.count)
        #expect(worst <= 1e-4, "max |Δ| \(worst) against onnxruntime at \(side)²")
    }
}
