import Foundation
import LiftModel
import LiftTensor
import Synchronization
import Testing
import TestSupport

/// Loads a fixture input (NHWC raw Float32) as a tensor of `shape`.
func fixtureTensor(_ path: String, _ shape: TensorShape) throws -> Tensor {
    Tensor(shape: shape, values: try Fixtures.float32s(path))
}

@Test(arguments: [("tiny", "tiny"), ("tiny_f16", "tiny_f16")])
func tinyGraphMatchesPyTorch(model name: String, reference: String) throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/\(name).safetensors"))
    #expect(model.inputShape == Model.InputShape(name: "image", height: 9, width: 11, channels: 3))
    #expect(model.outputNames == ["mask"])
    let input = try fixtureTensor("graphs/tiny.input.f32", TensorShape(n: 1, h: 9, w: 11, c: 3))
    let expected = try Fixtures.float32s("graphs/\(reference).output.f32")
    let output = try model.run(input, threads: 1)
    #expect(output.shape == TensorShape(n: 1, h: 9, w: 11, c: 3))
    #expect(maxAbsDifference(output.toArray(), expected) <= 1e-5)
}

@Test func standaloneActivationsAreFusedIntoTheirProducers() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    let file = try SafeTensors(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    let nodes = try #require(file.metadata["lift.graph"]?.components(separatedBy: "\"op\":").count) - 1
    // conv1 → relu, excite → sigmoid, up → relu6 and the final sigmoid (into the bilinear resize
    // before it) fuse; hardswish (after pad) and hardsigmoid cannot.
    #expect(nodes == 28)
    #expect(model.operationCount == 24)
}

@Test func resultsDoNotDependOnTheThreadCount() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    let input = try fixtureTensor("graphs/u2net_small.input.f32", TensorShape(n: 1, h: 64, w: 64, c: 3))
    let one = try model.run(input, threads: 1).toArray()
    // Every kernel split even where its work is too small to be worth it, so the splits are exercised.
    let (two, three) = try WorkGate.$splitsAnyWork.withValue(true) {
        (try model.run(input, threads: 2).toArray(), try model.run(input, threads: 3).toArray())
    }
    #expect(one == two && one == three)
}

/// A replica shares the packed weights but not the buffers: it and the original, run at the same
/// time on two threads (at two input sizes, so their plans differ), give what each gives alone.
@Test func aReplicaRunsBesideItsOriginal() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    let replica = model.replica()
    #expect(replica.outputNames == model.outputNames && replica.inputShape == model.inputShape)
    let small = try fixtureTensor("graphs/u2net_small.input.f32", TensorShape(n: 1, h: 64, w: 64, c: 3))
    let large = Tensor(shape: TensorShape(n: 1, h: 96, w: 96, c: 3), values: (0 ..< 96 * 96 * 3).map { Float($0 % 251) / 251 })
    let alone = [try model.run(small, threads: 1).toArray(), try model.run(large, threads: 1).toArray()]
    let results = Mutex<[[Float]]>([[], []])
    let failures = Mutex(0)
    for _ in 0 ..< 3 {
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            do {
                let output = try (k == 0 ? model : replica).run(k == 0 ? small : large, threads: 1).toArray()
                results.withLock { $0[k] = output }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        results.withLock { #expect($0 == alone) }
    }
}

@Test func u2netSmallMatchesPyTorch() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    #expect(model.inputShape == Model.InputShape(name: "image", height: nil, width: nil, channels: 3))
    let input = try fixtureTensor("graphs/u2net_small.input.f32", TensorShape(n: 1, h: 64, w: 64, c: 3))
    let expected = try Fixtures.float32s("graphs/u2net_small.output.f32")
    let output = try model.run(input)
    #expect(output.shape == TensorShape(n: 1, h: 64, w: 64, c: 1))
    #expect(maxAbsDifference(output.toArray(), expected) <= 1e-4)
}

@Test func aSecondRunAtTheSameSizeAllocatesNoBuffers() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    let input = try fixtureTensor("graphs/u2net_small.input.f32", TensorShape(n: 1, h: 64, w: 64, c: 3))
    let output = Tensor(shape: try model.outputShape(forInput: input.shape))
    #expect(model.allocatedTensorCount == 0)
    try model.run(input, into: output)
    let first = model.allocatedTensorCount
    let planned = model.plannedElementCount
    #expect(first > 0)
    // Liveness sharing: far fewer buffers than the graph's ~250 values.
    #expect(first < 40)
    let reference = output.toArray()
    try model.run(input, into: output)
    #expect(model.allocatedTensorCount == first)
    #expect(output.toArray() == reference)
    // A smaller input fits in the buffers already there.
    let small = Tensor(shape: TensorShape(n: 1, h: 40, w: 24, c: 3))
    small.fill(0.5)
    #expect(try model.run(small).shape == TensorShape(n: 1, h: 40, w: 24, c: 1))
    #expect(model.allocatedTensorCount == first)
    #expect(model.plannedElementCount <= planned)
}

@Test func anInputOfTheWrongShapeIsATypedError() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    #expect(throws: GraphError.inputShapeMismatch(expected: "[1, 9, 11, 3]", actual: "[1, 9, 12, 3]")) {
        try model.run(Tensor(shape: TensorShape(n: 1, h: 9, w: 12, c: 3)))
    }
    let u2net = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    #expect(throws: GraphError.inputShapeMismatch(expected: "[1, -1, -1, 3]", actual: "[1, 8, 8, 4]")) {
        try u2net.run(Tensor(shape: TensorShape(n: 1, h: 8, w: 8, c: 4)))
    }
    let output = Tensor(shape: TensorShape(n: 1, h: 9, w: 11, c: 1))
    #expect(throws: GraphError.self) {
        try model.run(Tensor(shape: TensorShape(n: 1, h: 9, w: 11, c: 3)), into: output)
    }
}

@Test func convolutionFLOPsFollowTheExplicitFormula() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/u2net_small.safetensors"))
    // 39.51 GFLOP at 320×320 (Tools/fixtures/u2net_small.py prints the same from PyTorch's conv shapes).
    let flops = try model.convolutionFLOPs(forInput: TensorShape(n: 1, h: 320, w: 320, c: 3))
    #expect(abs(flops / 1e9 - 39.51) < 0.005)
}

/// `tiny` resizes to a constant 9 × 11 at its end, so it is tied to its declared input and cannot be
/// opened to any size (U²-Net-small, whose resizes all follow another tensor, can:
/// `U2NetSmallModelTests`).
@Test func aGraphThatResizesToAConstantSizeCannotBeOpened() throws {
    let model = try Model(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    #expect(model.openedToAnyInputSize() == nil)
}
