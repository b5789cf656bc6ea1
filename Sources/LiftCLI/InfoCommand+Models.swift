import Lift

extension InfoCommand {
    /// An ONNX model's header, interface and contents (`ONNXModel`: the encoding and every tensor are checked).
    static func onnxLines(_ bytes: [UInt8]) throws -> [String] {
        let model = try ONNXModel(bytes: bytes)
        let graph = model.graph
        let constants = Set(graph.initializers.map(\.name))
        func describe(_ value: ONNXValueInfo) -> String {
            let type = value.elementType.map { ONNXTensor.typeNames[$0] ?? "type \($0)" } ?? "?"
            return "\(value.name) \(type) [\((value.shape ?? []).map(\.description).joined(separator: ", "))]"
        }
        var operators: [String: Int] = [:]
        for node in graph.nodes { operators[node.domain.isEmpty ? node.opType : "\(node.domain).\(node.opType)", default: 0] += 1 }
        let parameters = graph.initializers.reduce(0) { $0 + $1.elementCount }
        let opsets = model.opsets.sorted { $0.key < $1.key }.map { "\($0.key.isEmpty ? "ai.onnx" : $0.key) \($0.value)" }
        return [
            "format: ONNX",
            "IR version: \(model.irVersion)",
            "operator sets: \(opsets.joined(separator: ", "))",
            "producer: \(model.producer.isEmpty ? "unknown" : model.producer)",
            "inputs: " + graph.inputs.filter { !constants.contains($0.name) }.map(describe).joined(separator: "; "),
            "outputs: " + graph.outputs.map(describe).joined(separator: "; "),
            "nodes: \(graph.nodes.count) (" + operators.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")",
            "parameters: \(parameters) in \(graph.initializers.count) tensors",
        ]
    }
}
