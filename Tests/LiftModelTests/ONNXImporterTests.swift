import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// The ONNX importer against onnxruntime on the committed fixtures (`Tests/Fixtures/onnx/`, written
/// by `Tools/fixtures/make_onnx_fixtures.py`): the outputs of the imported graphs, the error that
/// lists unsupported operators, and the model file `lift import` writes.
@Suite struct ONNXImporterTests {
    /// A fixture's JSON document.
    private static func document(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: Fixtures.url("onnx/\(name)"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// NCHW values as an NHWC tensor.
    private static func nhwc(_ values: [Double], shape: [Int]) -> Tensor {
        let (c, h, w) = (shape[1], shape[2], shape[3])
        var result = [Float](repeating: 0, count: values.count)
        for k in 0 ..< c { for y in 0 ..< h { for x in 0 ..< w { result[(y * w + x) * c + k] = Float(values[(k * h + y) * w + x]) } } }
        return Tensor(shape: TensorShape(n: 1, h: h, w: w, c: c), values: result)
    }

    /// The largest |Lift − reference| over an NHWC output and an NCHW reference.
    private static func maxDifference(_ output: Tensor, _ reference: [Double]) -> Double {
        let expected = nhwc(reference, shape: [1, output.shape.c, output.shape.h, output.shape.w]).toArray()
        return zip(output.toArray(), expected).map { Double(abs($0 - $1)) }.max() ?? .infinity
    }

    @Test func tinyGraphMatchesOnnxRuntime() throws {
        let model = try ONNXModel(contentsOf: Fixtures.url("onnx/tiny.onnx"))
        let imported = try ONNXImporter.importGraph(model)
        #expect(imported.foldedBatchNormalizations == 1)
        #expect(imported.inputHeight == 8 && imported.inputWidth == 8)
        let reference = try #require(try Self.document("tiny.json")["reference"] as? [String: [Double]])
        let lift = try ONNXConversion(model: model, preset: nil).model()
        let output = try lift.run(Self.nhwc(try #require(reference["input_nchw"]), shape: [1, 3, 8, 8]))
        #expect(output.shape == TensorShape(n: 1, h: 8, w: 8, c: 8))
        #expect(Self.maxDifference(output, try #require(reference["output_nchw"])) <= 1e-5)
    }

    @Test func pytorchExportWithShapeChainsMatchesOnnxRuntime() throws {
        let model = try ONNXModel(contentsOf: Fixtures.url("onnx/exported.onnx"))
        #expect(model.graph.nodes.contains { $0.opType == "Shape" } && model.graph.nodes.contains { $0.opType == "Resize" })
        let fixture = try Self.document("exported.json")
        let input = Self.nhwc(try #require(fixture["input_nchw"] as? [Double]), shape: [1, 3, 21, 19])
        let lift = try ONNXConversion(model: model, preset: nil).model()
        let output = try lift.run(input)
        #expect(output.shape == TensorShape(n: 1, h: 21, w: 19, c: 1))
        #expect(Self.maxDifference(output, try #require(fixture["output_nchw"] as? [Double])) <= 1e-5)
        // Only what the chosen output needs is kept: the second output's sigmoid is dropped.
        let first = try ONNXImporter.importGraph(model), second = try ONNXImporter.importGraph(model, output: "d1")
        #expect(first.outputName == "d0" && second.outputName == "d1")
        #expect(second.nodeCount < first.nodeCount)
        #expect(!first.graph.contains("Shape") && first.graph.contains("\"resize_bilinear\""))
    }

    @Test func unsupportedOperatorsAreAllListedWithTheirNodes() throws {
        let model = try ONNXModel(contentsOf: Fixtures.url("onnx/unsupported.onnx"))
        #expect(throws: ONNXError.unsupportedOperators(["Softmax (node softmax_a, node softmax_b)", "Erf (node erf)"])) {
            try ONNXImporter.importGraph(model)
        }
    }

    @Test func anOutputThatIsNotInTheGraphIsNamed() throws {
        let model = try ONNXModel(contentsOf: Fixtures.url("onnx/exported.onnx"))
        do {
            _ = try ONNXImporter.importGraph(model, output: "d9")
            Issue.record("importing a missing output did not fail")
        } catch {
            #expect(error.description.contains("no output named d9") && error.description.contains("d0, d1"))
        }
    }

    @Test func anOutputThatCannotBeAMaskIsRefusedAtLoad() throws {
        let tiny = try ONNXConversion(contentsOf: Fixtures.url("onnx/tiny.onnx"))
        #expect(throws: ONNXError.unsupportedGraph(reason: "its output \(tiny.imported.outputName) has 8 channels (shape \(TensorShape(n: 1, h: 8, w: 8, c: 8))) "
                                                   + "for a 8×8 input; a mask has one (choose another output with --output-name)")) {
            try tiny.checkMaskOutput(of: try tiny.model())
        }
        let exported = try ONNXConversion(contentsOf: Fixtures.url("onnx/exported.onnx"))
        try exported.checkMaskOutput(of: try exported.model())
    }

    @Test func writtenFileLoadsAndRunsLikeTheImport() throws {
        let conversion = try ONNXConversion(contentsOf: Fixtures.url("onnx/exported.onnx"), preset: RembgPreset.named("isnet"))
        #expect(conversion.spec.scaling == .maximum && conversion.spec.outputNormalization == .minmax)
        #expect(conversion.spec.height == 21 && conversion.spec.width == 19 && conversion.spec.std == [1, 1, 1])
        let input = Tensor(shape: TensorShape(n: 1, h: 21, w: 19, c: 3), values: (0 ..< 21 * 19 * 3).map { Float(sin(Double($0))) })
        let expected = try conversion.model().run(input).toArray()
        for precision in [SafeTensorsWriter.Precision.f32, .f16] {
            let bytes = try conversion.fileBytes(precision: precision, provenance: "test")
            let model = try Model(bytes: bytes)
            #expect(try InputSpec(json: try #require(model.metadata["lift.input"])) == conversion.spec)
            #expect(model.metadata["lift.provenance"] == "test")
            let got = try model.run(input).toArray()
            let difference = zip(got, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(difference <= (precision == .f32 ? 0 : 2e-2), "\(precision)")
        }
    }

    /// Inputs the fuzzer found (`Benchmarks/fuzz.sh`, kept in `Tests/Fixtures/fuzz/fuzz-onnx/`): each
    /// reads, then fails to import or load with a typed error, never a crash.
    @Test func fuzzFindingsFailWithAnError() throws {
        let folder = Fixtures.url("fuzz/fuzz-onnx")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            guard let model = try? ONNXModel(bytes: bytes) else { continue }
            #expect(throws: (any Error).self, "\(name)") { try ONNXConversion(model: model, preset: nil).model() }
        }
    }

    @Test func presetsFollowRembgsModelNames() {
        #expect(RembgPreset.forModel("u2netp")?.name == "u2net" && RembgPreset.forModel("silueta")?.size == 320)
        #expect(RembgPreset.forModel("isnet-general-use")?.size == 1024 && RembgPreset.forModel("isnet-anime")?.std == [1, 1, 1])
        #expect(RembgPreset.forModel("my-model") == nil)
    }
}
