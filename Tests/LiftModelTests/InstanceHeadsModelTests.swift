import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// `Tests/Fixtures/instances/heads.json`: the outputs, their shapes and tolerances, written by
/// `Tools/fixtures/make_instance_heads_fixture.py` with the model and PyTorch's outputs.
private struct HeadsFixture: Decodable {
    let outputs: [String]
    let shapes: [String: [Int]]
    let tolerance_max_abs: [String: Float]

    static func load() throws -> HeadsFixture {
        try JSONDecoder().decode(HeadsFixture.self, from: Data(Fixtures.bytes("instances/heads.json")))
    }

    func shape(_ name: String) throws -> TensorShape {
        let s = try #require(shapes[name])
        return TensorShape(n: s[0], h: s[1], w: s[2], c: s[3])
    }
}

/// A model exported with its instance heads has four graph outputs; `runAll` returns each
/// as PyTorch computes it, on 1 and 2 threads.
@Test(arguments: [1, 2])
func instanceHeadsOutputsMatchPyTorch(threads: Int) throws {
    let fixture = try HeadsFixture.load()
    let model = try Model(contentsOf: Fixtures.url("instances/heads.safetensors"))
    #expect(model.outputNames == ["mask", "centre", "offset", "boundary"])
    #expect(model.outputNames == fixture.outputs)
    let input = try fixtureTensor("instances/heads.input.f32", try fixture.shape("input"))
    let expectedShapes = try fixture.outputs.map { try fixture.shape($0) }
    #expect(try model.outputShapes(forInput: input.shape) == expectedShapes)
    let outputs = try model.runAll(input, threads: threads)
    try #require(outputs.count == fixture.outputs.count)
    for (name, output) in zip(fixture.outputs, outputs) {
        #expect(output.shape == (try fixture.shape(name)), "\(name)")
        let delta = maxAbsDifference(output.toArray(), try Fixtures.float32s("instances/heads.\(name).f32"))
        #expect(delta <= (fixture.tolerance_max_abs[name] ?? 0), "\(name): max |Δ| \(delta)")
    }
}

/// `run` still returns the first output, the same values as `runAll`'s first; a second `runAll` at
/// the same size allocates no buffers and returns the same values.
@Test func runAllAgreesWithRunAndReusesItsPlan() throws {
    let fixture = try HeadsFixture.load()
    let model = try Model(contentsOf: Fixtures.url("instances/heads.safetensors"))
    let input = try fixtureTensor("instances/heads.input.f32", try fixture.shape("input"))
    let first = try model.runAll(input, threads: 1)
    let allocated = model.allocatedTensorCount
    let mask = try model.run(input, threads: 1)
    let second = try model.runAll(input, threads: 1)
    #expect(model.allocatedTensorCount == allocated)
    #expect(mask.toArray() == first[0].toArray())
    for (a, b) in zip(first, second) { #expect(a.toArray() == b.toArray()) }
    #expect(try model.outputShape(forInput: input.shape) == first[0].shape)
}

/// `run` (and `profile`, which times what `run` runs) skips the steps only the instance heads need,
/// and its mask is `runAll`'s bit for bit even when `runAll` ran before it in the same buffers.
@Test func runSkipsTheInstanceHeads() throws {
    let fixture = try HeadsFixture.load()
    let model = try Model(contentsOf: Fixtures.url("instances/heads.safetensors"))
    let input = try fixtureTensor("instances/heads.input.f32", try fixture.shape("input"))
    let ran = try model.profile(input, threads: 1).map(\.name)
    #expect(!ran.isEmpty && !ran.contains { $0.contains("instance") }, "\(ran)")
    #expect(ran.contains("interpolate"))
    let all = try model.runAll(input, threads: 2)
    #expect(try model.run(input, threads: 2).toArray() == all[0].toArray())
}

/// The same weights with the heads in a file of their own (`export_subject.py --instance-heads`):
/// the mask graph gives `instance_features` and names the heads file in its metadata; the heads
/// graph, run on those features, gives the inline model's cues bit for bit (so PyTorch's too).
@Test func headsInTheirOwnFileGiveTheInlineCues() throws {
    let fixture = try HeadsFixture.load()
    let inline = try Model(contentsOf: Fixtures.url("instances/heads.safetensors"))
    let mask = try Model(contentsOf: Fixtures.url("instances/heads-split.safetensors"))
    #expect(mask.outputNames == ["mask", "instance_features"])
    let headsFile = try #require(mask.metadata["lift.instance-heads"])
    #expect(headsFile == "heads-split-instances.safetensors")
    let heads = try Model(contentsOf: Fixtures.url("instances/" + headsFile))
    #expect(heads.inputShape.name == "instance_features" && heads.outputNames == ["centre", "offset", "boundary"])
    let input = try fixtureTensor("instances/heads.input.f32", try fixture.shape("input"))
    let all = try inline.runAll(input, threads: 2)
    let split = try mask.runAll(input, threads: 2)
    #expect(split[0].toArray() == all[0].toArray())
    #expect(try mask.run(input, threads: 1).toArray() == all[0].toArray())
    let cues = try heads.runAll(split[1], threads: 2)
    for (k, name) in heads.outputNames.enumerated() {
        #expect(cues[k].shape == all[k + 1].shape && cues[k].toArray() == all[k + 1].toArray(), "\(name)")
    }
}
