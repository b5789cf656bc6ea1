import Foundation
import LiftImage
import LiftModel
import LiftTensor
import TestSupport
import Testing

/// One `Tests/Fixtures/person/cases.json` entry: a model input (8-bit RGB) and TFLite's output map.
struct PersonCase: Decodable, CustomStringConvertible, Sendable {
    let name: String
    let model: String
    let height: Int
    let width: Int

    var description: String { "\(name) (\(model))" }

    static func all() throws -> [PersonCase] {
        try JSONDecoder().decode([PersonCase].self, from: Data(Fixtures.bytes("person/cases.json")))
    }
}

@Suite("Person model: MediaPipe Selfie Segmentation in parity with TFLite")
struct PersonModelTests {
    /// Largest accepted |Lift − TFLite| on the probability map.
    static let tolerance: Float = 1e-4

    @Test("The probability map matches TFLite (XNNPACK) within 1e-4", arguments: try PersonCase.all())
    func matchesTFLite(_ fixture: PersonCase) throws {
        let name = try #require(ModelName(rawValue: fixture.model))
        let model = try Model(contentsOf: try ModelCatalog.url(for: name))
        let spec = try InputSpec(json: try #require(model.metadata["lift.input"]))
        #expect(spec.height == fixture.height && spec.width == fixture.width)
        #expect(model.inputShape.height == spec.height && model.inputShape.width == spec.width)

        let input = Tensor(n: 1, h: spec.height, w: spec.width, c: 3)
        Preprocess(spec: spec).normalize(rgb: try Fixtures.bytes("person/\(fixture.name).rgb"), into: input.buffer)
        let expected = try Fixtures.float32s("person/\(fixture.name).mask.f32")
        for threads in [1, 2] {
            let output = try model.run(input, threads: threads)
            #expect(output.shape == TensorShape(n: 1, h: spec.height, w: spec.width, c: 1))
            let actual = output.toArray()
            try #require(actual.count == expected.count)
            let maxDelta = maxAbsDifference(actual, expected)
            print("person parity \(fixture.name) (\(fixture.model), \(threads) threads): max |Δ| = \(maxDelta)")
            #expect(maxDelta <= PersonModelTests.tolerance, "\(fixture): max |Δ| \(maxDelta) on \(threads) threads")
        }
    }

    @Test("A photo at the model's size passes through Preprocess unchanged, then matches TFLite")
    func preprocessAtModelSizeIsIdentity() throws {
        let fixture = try #require(try PersonCase.all().first { $0.model == ModelName.person.rawValue })
        let model = try Model(contentsOf: try ModelCatalog.url(for: .person))
        let preprocess = Preprocess(spec: try InputSpec(json: try #require(model.metadata["lift.input"])))
        let rgb = try Fixtures.bytes("person/\(fixture.name).rgb")
        let image = Fixtures.opaqueImage(rgb: rgb, width: fixture.width, height: fixture.height)
        #expect(try preprocess.resampled(image) == rgb)

        let input = Tensor(n: 1, h: fixture.height, w: fixture.width, c: 3)
        try preprocess.write(image, into: input.buffer)
        let actual = try model.run(input).toArray()
        let expected = try Fixtures.float32s("person/\(fixture.name).mask.f32")
        let maxDelta = maxAbsDifference(actual, expected)
        #expect(maxDelta <= PersonModelTests.tolerance)
    }
}
