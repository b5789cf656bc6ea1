import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// The tiny fixture with its graph document (and optionally its header) edited.
func editedTinyModel(graph editGraph: (inout [String: Any]) -> Void = { _ in },
                     header editHeader: (inout [String: Any]) -> Void = { _ in }) throws -> [UInt8] {
    var (header, data) = try SafeTensorsBuilder.parts(ofFixture: "graphs/tiny.safetensors")
    var metadata = try #require(header["__metadata__"] as? [String: String])
    let text = try #require(metadata["lift.graph"])
    var graph = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    editGraph(&graph)
    metadata["lift.graph"] = String(decoding: try JSONSerialization.data(withJSONObject: graph, options: [.sortedKeys]), as: UTF8.self)
    header["__metadata__"] = metadata
    editHeader(&header)
    return try SafeTensorsBuilder.file(header: header, data: data)
}

/// Applies `edit` to node number `index` of a graph document.
func editNode(_ index: Int, _ edit: @escaping @Sendable (inout [String: Any]) -> Void) -> @Sendable (inout [String: Any]) -> Void {
    { graph in
        var nodes = graph["nodes"] as? [[String: Any]] ?? []
        edit(&nodes[index])
        graph["nodes"] = nodes
    }
}

/// One broken graph and the error loading it must give.
struct BrokenGraph: CustomTestStringConvertible, Sendable {
    let name: String
    let graph: @Sendable (inout [String: Any]) -> Void
    let expected: GraphError
    var testDescription: String { name }
}

// Node 0 is conv1 (3→5, 3×3), node 1 its ReLU, node 17 the concat "cat".
let brokenGraphs: [BrokenGraph] = [
    BrokenGraph(name: "unknown op", graph: editNode(1) { $0["op"] = "gelu" }, expected: .unknownOp(node: "relu", op: "gelu")),
    // A misspelt field would otherwise be skipped: here the conv would lose its padding and activation.
    BrokenGraph(name: "misspelt node field", graph: editNode(0) { $0["attr"] = $0["attrs"]; $0["attrs"] = nil },
                expected: .invalidDocument(key: "lift.graph", reason: "node \"conv1\" has the unknown key \"attr\" (known: attrs, inputs, name, op, outputs, weights)")),
    BrokenGraph(name: "unknown graph key", graph: { $0["node"] = [Any]() },
                expected: .invalidDocument(key: "lift.graph", reason: "the graph has the unknown key \"node\" (known: format, inputs, nodes, outputs)")),
    BrokenGraph(name: "weight tensor not in the file", graph: editNode(0) { $0["weights"] = ["weight": "nope"] },
                expected: .missingWeight(node: "conv1", role: "weight", tensor: "nope")),
    BrokenGraph(name: "no weight role", graph: editNode(0) { $0["weights"] = [String: String]() },
                expected: .missingWeight(node: "conv1", role: "weight", tensor: nil)),
    BrokenGraph(name: "weight role the op does not take", graph: editNode(1) { $0["weights"] = ["weight": "conv1.weight"] },
                expected: .unknownWeightRole(node: "relu", role: "weight")),
    BrokenGraph(name: "bias of the wrong shape", graph: editNode(0) { $0["weights"] = ["weight": "conv1.weight", "bias": "fuse.bias"] },
                expected: .weightShapeMismatch(node: "conv1", tensor: "fuse.bias", expected: "[5]", actual: [2])),
    BrokenGraph(name: "weights for other input channels", graph: editNode(0) { $0["weights"] = ["weight": "fuse.weight"] },
                expected: .shapeMismatch(node: "conv1", reason: "input has 3 channels, the weights take 17")),
    BrokenGraph(name: "value read before it is produced", graph: editNode(1) { $0["inputs"] = ["pool"] },
                expected: .undefinedValue(node: "relu", value: "pool")),
    BrokenGraph(name: "value produced twice", graph: editNode(1) { $0["outputs"] = ["conv1"] },
                expected: .duplicateValue(node: "relu", value: "conv1")),
    BrokenGraph(name: "unknown attribute", graph: editNode(0) { $0["attrs"] = ["strides": [1, 1]] },
                expected: .invalidAttribute(node: "conv1", attribute: "strides", value: "[1,1]", reason: "not an attribute of this op")),
    BrokenGraph(name: "unknown activation", graph: editNode(0) { $0["attrs"] = ["activation": "gelu", "padding": [1, 1, 1, 1]] },
                expected: .invalidAttribute(node: "conv1", attribute: "activation", value: "\"gelu\"",
                                            reason: "expected none, relu, relu6, hardswish or sigmoid")),
    BrokenGraph(name: "zero stride", graph: editNode(0) { $0["attrs"] = ["stride": [0, 1]] },
                expected: .invalidAttribute(node: "conv1", attribute: "stride", value: "[0,1]", reason: "each must be between 1 and 65536")),
    BrokenGraph(name: "concat of different sizes", graph: editNode(17) { $0["inputs"] = ["relu", "pool"] },
                expected: .shapeMismatch(node: "cat", reason: "concatenated inputs differ in batch, height or width: [1, 9, 11, 5], [1, 5, 6, 5]")),
    BrokenGraph(name: "slice past the channels", graph: editNode(1) { $0["op"] = "slice"; $0["attrs"] = ["start": 2, "end": 9] },
                expected: .shapeMismatch(node: "relu", reason: "channels 2 ..< 9 of [1, 9, 11, 5]: the input has 5")),
    BrokenGraph(name: "empty slice", graph: editNode(1) { $0["op"] = "slice"; $0["attrs"] = ["start": 3, "end": 3] },
                expected: .invalidAttribute(node: "relu", attribute: "end", value: "3", reason: "expected an integer ≥ 4")),
    BrokenGraph(name: "slice without its end", graph: editNode(1) { $0["op"] = "slice"; $0["attrs"] = ["start": 1] },
                expected: .invalidNode(node: "relu", reason: "slice takes the channels start ..< end: end is missing")),
    BrokenGraph(name: "wrong input count", graph: editNode(1) { $0["inputs"] = ["conv1", "conv1"] },
                expected: .invalidNode(node: "relu", reason: "relu takes 1 inputs, got 2")),
    BrokenGraph(name: "output nothing produces", graph: { $0["outputs"] = ["zzz"] }, expected: .undefinedOutput(value: "zzz")),
    BrokenGraph(name: "other format", graph: { $0["format"] = "lift.graph/2" }, expected: .unsupportedFormat("lift.graph/2")),
    BrokenGraph(name: "batch of two", graph: { $0["inputs"] = [["name": "image", "shape": [2, 9, 11, 3]]] },
                expected: .invalidInput(name: "image", reason: "batch must be 1, got 2")),
]

@Test(arguments: brokenGraphs)
func brokenGraphsThrowTheirTypedError(_ broken: BrokenGraph) throws {
    let bytes = try editedTinyModel(graph: broken.graph)
    #expect(throws: broken.expected) { try Model(bytes: bytes) }
    #expect(!broken.expected.description.isEmpty)
}

@Test func aFileWithoutAGraphIsNotAModel() throws {
    let bytes = try editedTinyModel(header: { header in header["__metadata__"] = ["lift.input": "{}"] })
    #expect(throws: GraphError.missingMetadata(key: "lift.graph")) { try Model(bytes: bytes) }
}

@Test func aWeightStoredAsIntegersIsATypedError() throws {
    let bytes = try editedTinyModel(header: { header in
        var entry = header["conv1.weight"] as? [String: Any] ?? [:]
        entry["dtype"] = "I32"
        header["conv1.weight"] = entry
    })
    #expect(throws: SafeTensorsError.unsupportedDType(tensor: "conv1.weight", dtype: "I32")) { try Model(bytes: bytes) }
}

@Test func nonFiniteWeightsAreRefused() throws {
    for (bits, index) in [(UInt32(0x7FC0_0000), 0), (0x7F80_0000, 7)] {  // NaN at element 0, +∞ at element 7
        var (header, data) = try SafeTensorsBuilder.parts(ofFixture: "graphs/tiny.safetensors")
        let start = try #require((header["conv1.weight"] as? [String: Any])?["data_offsets"] as? [Int])[0] + 4 * index
        withUnsafeBytes(of: bits.littleEndian) { data.replaceSubrange(start ..< start + 4, with: $0) }
        #expect(throws: GraphError.nonFiniteWeight(tensor: "conv1.weight", index: index)) {
            try Model(bytes: try SafeTensorsBuilder.file(header: header, data: data))
        }
    }
}

@Test func packedWeightsAndPlannedBuffersHaveBudgets() throws {
    let bytes = try Fixtures.bytes("graphs/tiny.safetensors")
    // conv1 (3→5, 3×3) packs for the few-output kernel: 5·9·16 weights, 5 biases, a 16-float zero row.
    #expect(throws: GraphError.weightsTooLarge(node: "conv1", elements: 741, limit: 100)) {
        try Model(bytes: bytes, limits: WeightLimits(maxPackedWeightElements: 100))
    }
    let model = try Model(bytes: bytes, limits: WeightLimits(maxPlannedElements: 1000))
    let input = Tensor(shape: TensorShape(n: 1, h: 9, w: 11, c: 3))
    do {
        _ = try model.run(input)
        Issue.record("a run past the planned-buffer budget did not throw")
    } catch let GraphError.activationsTooLarge(shape, elements, limit) {
        #expect(shape == "[1, 9, 11, 3]" && elements > 1000 && limit == 1000)
    }
    _ = try Model(bytes: bytes).run(input)
}

@Test func theGraphNodeLimitIsChecked() throws {
    let bytes = try Fixtures.bytes("graphs/tiny.safetensors")
    #expect(throws: GraphError.tooManyNodes(count: 28, limit: 10)) { try Model(bytes: bytes, limits: WeightLimits(maxNodes: 10)) }
    #expect(throws: GraphError.activationTooLarge(node: "conv1", shape: "[1, 9, 11, 5]", limit: 100)) {
        try Model(bytes: bytes, limits: WeightLimits(maxActivationElements: 100))
    }
}
