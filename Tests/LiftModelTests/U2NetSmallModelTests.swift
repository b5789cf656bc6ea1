import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// The shipped `Weights/u2netp.safetensors` (rembg's `u2netp.onnx` through `lift import --f16`)
/// against onnxruntime running the original ONNX graph with the same float16-rounded weights
/// (`Tests/Fixtures/onnx/u2netp.json`, written by `Tools/conversion/import_u2netp.py`).
@Suite struct U2NetSmallModelTests {
    @Test func shippedFileMatchesOnnxRuntimeOnTheOriginalGraph() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Weights/u2netp.safetensors")
        let model = try Model(contentsOf: url, expectedSHA256: try WeightsManifest.recordedDigest(for: url))
        let spec = try InputSpec(json: try #require(model.metadata["lift.input"]))
        #expect(spec.height == 320 && spec.width == 320 && spec.scaling == .maximum && spec.outputNormalization == .minmax)
        #expect(spec.mean == [0.485, 0.456, 0.406] && spec.std == [0.229, 0.224, 0.225] && spec.output == model.outputNames.first)

        // The fixture's input: x[i] = sin(0.37 i) · 2 over NCHW, here laid out NHWC.
        let (h, w) = (320, 320)
        var values = [Float](repeating: 0, count: h * w * 3)
        for c in 0 ..< 3 { for y in 0 ..< h { for x in 0 ..< w {
            values[(y * w + x) * 3 + c] = Float(sin(Double((c * h + y) * w + x) * 0.37) * 2)
        } } }
        let output = try model.run(Tensor(shape: TensorShape(n: 1, h: h, w: w, c: 3), values: values)).toArray()
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.url("onnx/u2netp.json"))) as? [String: Any])
        let step = try #require(fixture["step"] as? Int), expected = try #require(fixture["output"] as? [Double])
        var worst = 0.0, index = 0
        for y in stride(from: 0, to: h, by: step) {
            for x in stride(from: 0, to: w, by: step) {
                worst = max(worst, abs(Double(output[y * w + x]) - expected[index]))
                index += 1
            }
        }
        #expect(index == expected.count)
        #expect(worst <= 1e-4, "max |Δ| \(worst) against onnxruntime")
    }
}
