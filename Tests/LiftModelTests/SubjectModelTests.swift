import Foundation
import LiftModel
import LiftTensor
import TestSupport
import Testing

/// One `Tests/Fixtures/subject/fixtures.json` case: a model input and PyTorch's probability map,
/// both written by `Tools/conversion/export_subject.py` together with `Weights/subject.safetensors`.
struct SubjectCase: Decodable, CustomStringConvertible, Sendable {
    let name: String
    let input: [Int]
    let output: [Int]
    /// With a model exported with its instance heads: each further output's NHWC shape, by name
    /// (`NAME.centre.f32`, … beside the case).
    let instance_outputs: [String: [Int]]?

    var description: String { name }

    private struct File: Decodable {
        let cases: [SubjectCase]
        let tolerance_max_abs: Float
    }

    static func all() throws -> [SubjectCase] {
        try JSONDecoder().decode(File.self, from: Data(Fixtures.bytes("subject/fixtures.json"))).cases
    }

    static func tolerance() throws -> Float {
        try JSONDecoder().decode(File.self, from: Data(Fixtures.bytes("subject/fixtures.json"))).tolerance_max_abs
    }
}

@Suite("Subject model: the shipped weights in parity with PyTorch")
struct SubjectModelTests {
    @Test("The probability map matches PyTorch within 1e-4 at any input size", arguments: try SubjectCase.all())
    func matchesPyTorch(_ fixture: SubjectCase) throws {
        #expect(try SubjectCase.tolerance() <= 1e-4)
        let url = try ModelCatalog.url(for: .subject)
        let model = try Model(contentsOf: url)
        try #require(fixture.input.count == 4 && fixture.output.count == 4)
        let shape = TensorShape(n: fixture.input[0], h: fixture.input[1], w: fixture.input[2], c: fixture.input[3])
        let input = Tensor(shape: shape, values: try Fixtures.float32s("subject/\(fixture.name).input.f32"))
        let expected = try Fixtures.float32s("subject/\(fixture.name).output.f32")
        for threads in [1, 2] {
            let output = try model.run(input, threads: threads)
            #expect(output.shape == TensorShape(n: fixture.output[0], h: fixture.output[1], w: fixture.output[2], c: fixture.output[3]))
            let actual = output.toArray()
            try #require(actual.count == expected.count)
            let maxDelta = maxAbsDifference(actual, expected)
            print("subject parity \(fixture.name) (\(threads) threads): max |Δ| = \(maxDelta)")
            #expect(maxDelta <= 1e-4, "\(fixture): max |Δ| \(maxDelta) on \(threads) threads")
        }
        // Instance heads, when the shipped model has them (in a file of their own that the model's
        // metadata names, run on its instance_features; or inline): every output, offsets (input
        // pixels, tens of them) within 32 times the tolerance.
        guard let heads = fixture.instance_outputs else { return }
        var outputs = try model.runAll(input, threads: 2), names = model.outputNames
        if let file = model.metadata["lift.instance-heads"] {
            let features = try #require(model.outputNames.firstIndex(of: "instance_features"))
            let headsModel = try Model(contentsOf: url.deletingLastPathComponent().appendingPathComponent(file))
            (outputs, names) = (try headsModel.runAll(outputs[features], threads: 2), headsModel.outputNames)
        }
        for (name, shape) in heads {
            let index = try #require(names.firstIndex(of: name), "the model has no output \(name)")
            #expect(outputs[index].shape == TensorShape(n: shape[0], h: shape[1], w: shape[2], c: shape[3]))
            let delta = maxAbsDifference(outputs[index].toArray(), try Fixtures.float32s("subject/\(fixture.name).\(name).f32"))
            print("subject parity \(fixture.name) \(name): max |Δ| = \(delta)")
            #expect(delta <= (name == "offset" ? 32e-4 : 1e-4), "\(fixture) \(name): max |Δ| \(delta)")
        }
    }
}
