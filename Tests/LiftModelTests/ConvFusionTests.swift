import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// A small graph: two direct convs `a`, `b` of the input (8 → 16), `cat` = concat(a, b), a Winograd
/// conv `c` (32 → 16, 3×3) of `cat`, and `out` = c + `residual` (`a` itself, or its global average
/// pool, broadcast over H and W). `extraOutputs` also exposes `cat` and `c`, which stops the fusions.
private func fusionGraph(residual: String, extraOutputs: Bool) throws -> [UInt8] {
    var phase: Float = 0
    func values(_ count: Int, scale: Float) -> [Float] {
        phase += 1
        return wave(count, scale: scale, phase: phase)
    }
    let tensors: [(String, [Int], [Float])] = [
        ("a.weight", [16, 3, 3, 8], values(16 * 9 * 8, scale: 0.12)), ("a.bias", [16], values(16, scale: 0.5)),
        ("b.weight", [16, 3, 3, 8], values(16 * 9 * 8, scale: 0.12)), ("b.bias", [16], values(16, scale: 0.5)),
        ("c.weight", [16, 3, 3, 32], values(16 * 9 * 32, scale: 0.06)), ("c.bias", [16], values(16, scale: 0.5)),
    ]
    func conv(_ name: String, _ input: String, activation: String) -> [String: Any] {
        ["op": "conv2d", "name": name, "inputs": [input], "outputs": [name],
         "weights": ["weight": "\(name).weight", "bias": "\(name).bias"],
         "attrs": ["padding": [1, 1, 1, 1], "activation": activation]]
    }
    var nodes: [[String: Any]] = [conv("a", "x", activation: "relu"), conv("b", "x", activation: "none"),
                                  ["op": "global_avg_pool", "name": "pooled", "inputs": ["a"], "outputs": ["pooled"]],
                                  ["op": "concat", "name": "cat", "inputs": ["a", "b"], "outputs": ["cat"]],
                                  conv("c", "cat", activation: "relu"),
                                  ["op": "add", "name": "out", "inputs": ["c", residual], "outputs": ["out"]]]
    if residual == "a" { nodes.remove(at: 2) }
    let graph: [String: Any] = ["format": "lift.graph/1", "inputs": [["name": "x", "shape": [1, -1, -1, 8]]],
                                "outputs": extraOutputs ? ["out", "cat", "c"] : ["out"], "nodes": nodes]
    var header: [String: Any] = [:], data: [UInt8] = []
    for (name, shape, floats) in tensors {
        header[name] = SafeTensorsBuilder.entry(shape: shape, begin: data.count, end: data.count + 4 * floats.count)
        data += SafeTensorsBuilder.f32(floats)
    }
    let document = try JSONSerialization.data(withJSONObject: graph, options: [.sortedKeys])
    header["__metadata__"] = ["lift.graph": String(decoding: document, as: UTF8.self)]
    return try SafeTensorsBuilder.file(header: header, data: data)
}

/// `count` deterministic values in ±scale.
private func wave(_ count: Int, scale: Float, phase: Float) -> [Float] {
    (0 ..< count).map { scale * sin(Float($0) * 0.737 + phase * 1.3) }
}

@Test(arguments: ["a", "pooled"])
func concatAndResidualAddFuseIntoTheWinogradConvWithIdenticalResults(residual: String) throws {
    let fused = try Model(bytes: try fusionGraph(residual: residual, extraOutputs: false))
    let unfused = try Model(bytes: try fusionGraph(residual: residual, extraOutputs: true))
    // Fused: a, b, (pooled,) c with the concat and the add inside it.
    #expect(fused.operationCount == unfused.operationCount - 2)
    let input = Tensor(shape: TensorShape(n: 1, h: 10, w: 13, c: 8), values: wave(10 * 13 * 8, scale: 1, phase: 0.3))
    for threads in [1, 2] {
        let expected = try unfused.run(input, threads: threads)
        let output = try fused.run(input, threads: threads)
        #expect(output.shape == expected.shape)
        #expect(output.toArray().map(\.bitPattern) == expected.toArray().map(\.bitPattern))
    }
}
