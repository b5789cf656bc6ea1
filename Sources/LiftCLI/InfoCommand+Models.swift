import Foundation
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

    /// A Lift model file's (`lift import`'s, or a shipped model's) provenance, input, graph and
    /// tensors, from its safetensors header (every tensor's byte range is checked).
    static func safetensorsLines(_ bytes: [UInt8]) throws -> [String] {
        let file = try SafeTensors(bytes: bytes)
        func object(_ key: String) -> [String: Any]? {
            file.metadata[key].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        var lines = ["format: Lift model (safetensors)"]
        if let provenance = file.metadata["lift.provenance"] { lines.append("provenance: \(provenance)") }
        if let input = object("lift.input") {
            let size = [input["width"], input["height"]].compactMap { $0 as? Int }.map(String.init).joined(separator: "x")
            let details = ["layout", "color", "resize", "range"].compactMap { key in input[key].map { "\(key) \($0)" } }
            lines.append("input: \(size.isEmpty ? "any size" : size)" + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")"))
        }
        if let graph = object("lift.graph"), let nodes = graph["nodes"] as? [[String: Any]] {
            var operators: [String: Int] = [:]
            for node in nodes { operators[node["op"] as? String ?? "?", default: 0] += 1 }
            lines.append("graph: \(nodes.count) nodes (" + operators.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
        var types: [String: Int] = [:]
        for tensor in file.tensors.values { types[tensor.dtype.rawValue, default: 0] += 1 }
        let parameters = file.tensors.values.reduce(0) { $0 + $1.elementCount }
        lines.append("tensors: \(file.tensors.count) (" + types.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        lines.append("parameters: \(parameters)")
        let other = file.metadata.keys.filter { !["lift.provenance", "lift.input", "lift.graph"].contains($0) }.sorted()
        if !other.isEmpty { lines.append("metadata: " + other.joined(separator: ", ")) }
        return lines
    }

}
