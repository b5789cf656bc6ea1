/// Why an `.onnx` file could not be read or imported. Offsets are from the start of the file; names
/// are the tensor's or node's own, so the sentence says where to look.
public enum ONNXError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read from disk.
    case unreadable(path: String, reason: String)
    /// The protobuf encoding is broken at `offset` (a truncated file, a length past the end…).
    case malformed(offset: Int, reason: String)
    /// A count or size is over its `WeightLimits` field (`what` names it).
    case limitExceeded(what: String, limit: Int)
    /// A tensor's type, shape and data do not agree, or its data lives outside the file.
    case invalidTensor(name: String, reason: String)
    /// The file has no graph.
    case missingGraph
    /// The file names no operator set (`opset_import`, required since IR version 3).
    case missingOperatorSet
    /// Operators the importer does not map onto Lift's graph, each with the nodes that use it
    /// (`"Gemm (node fc1, node fc2)"`), all of them, in the order first met.
    case unsupportedOperators([String])
    /// A node of a supported operator uses it in a way Lift cannot run (a constant operand where a
    /// tensor is needed, padding modes, coordinate modes…).
    case unsupportedNode(node: String, op: String, reason: String)
    /// The graph as a whole does not fit (inputs, outputs, operator-set version).
    case unsupportedGraph(reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read the ONNX file \(path): \(reason)"
        case let .malformed(offset, reason): "the ONNX file is malformed at byte \(offset): \(reason)"
        case let .limitExceeded(what, limit): "the ONNX file has more \(what) than the limit of \(limit)"
        case let .invalidTensor(name, reason): "ONNX tensor \"\(name)\": \(reason)"
        case .missingGraph: "the ONNX file holds no graph"
        case .missingOperatorSet: "the ONNX file names no operator set (opset_import), so its operators cannot be read"
        case .unsupportedOperators(let list):
            "the ONNX graph uses operators Lift cannot run: " + list.joined(separator: "; ")
                + ". Lift runs the operators of the U²-Net and ISNet families (see Sources/LiftModel/ONNX/README.md)"
        case let .unsupportedNode(node, op, reason): "ONNX node \(node) (\(op)): \(reason)"
        case .unsupportedGraph(let reason): "the ONNX graph cannot be imported: \(reason)"
        }
    }
}
