/// Why a `lift.graph/1` model could not be loaded or run: a malformed graph document, a node whose
/// op, attributes or weights are wrong, or shapes that do not fit. Each case names the node (or
/// value) and what was wrong; `description` is a sentence for people.
public enum GraphError: Error, Equatable, CustomStringConvertible {
    /// A required `__metadata__` entry (`lift.graph`) is absent.
    case missingMetadata(key: String)
    /// A metadata entry is not valid JSON or not of the expected structure.
    case invalidDocument(key: String, reason: String)
    /// The graph declares a format other than `lift.graph/1`.
    case unsupportedFormat(String)
    /// The graph has more nodes than `WeightLimits.maxNodes`.
    case tooManyNodes(count: Int, limit: Int)
    /// A node's op is not one of GRAPH-FORMAT.md's.
    case unknownOp(node: String, op: String)
    /// A node's field (`inputs`, `outputs`, `weights`, …) is missing or of the wrong type or count.
    case invalidNode(node: String, reason: String)
    /// An attribute is unknown to the op, of the wrong type, or has an unsupported value.
    case invalidAttribute(node: String, attribute: String, value: String, reason: String)
    /// A weight role the op needs is absent from the node, or names a tensor the file lacks.
    case missingWeight(node: String, role: String, tensor: String?)
    /// A weight role the op does not take.
    case unknownWeightRole(node: String, role: String)
    /// A weight tensor's shape does not fit the op.
    case weightShapeMismatch(node: String, tensor: String, expected: String, actual: [Int])
    /// A node reads a value no earlier node or graph input produces.
    case undefinedValue(node: String, value: String)
    /// A value is produced twice.
    case duplicateValue(node: String, value: String)
    /// A graph output names a value that nothing produces.
    case undefinedOutput(value: String)
    /// A graph input declaration is malformed (batch must be 1, channels ≥ 1, H and W ≥ 1 or -1).
    case invalidInput(name: String, reason: String)
    /// The tensor given to `run` does not have the shape the graph accepts.
    case inputShapeMismatch(expected: String, actual: String)
    /// Shape inference failed at a node: input shapes that do not fit the op.
    case shapeMismatch(node: String, reason: String)
    /// An intermediate tensor would exceed `WeightLimits.maxActivationElements`.
    case activationTooLarge(node: String, shape: String, limit: Int)
    /// The buffers of one run at `input` would exceed `WeightLimits.maxPlannedElements` together.
    case activationsTooLarge(input: String, elements: Int, limit: Int)
    /// Packing the convolutions up to `node` would exceed `WeightLimits.maxPackedWeightElements`.
    case weightsTooLarge(node: String, elements: Int, limit: Int)
    /// A weight tensor holds NaN or an infinity (its first at element `index`, in stored order).
    case nonFiniteWeight(tensor: String, index: Int)

    public var description: String {
        switch self {
        case .missingMetadata(let key):
            return "The model file has no \"\(key)\" metadata; it is not a lift.graph model."
        case .invalidDocument(let key, let reason):
            return "The model's \"\(key)\" metadata is invalid: \(reason)."
        case .unsupportedFormat(let format):
            return "The model graph has format \"\(format)\"; this version of Lift reads lift.graph/1."
        case .tooManyNodes(let count, let limit):
            return "The model graph has \(count) nodes, more than the limit of \(limit)."
        case .unknownOp(let node, let op):
            return "Node \"\(node)\" has the unknown op \"\(op)\"."
        case .invalidNode(let node, let reason):
            return "Node \"\(node)\" is invalid: \(reason)."
        case .invalidAttribute(let node, let attribute, let value, let reason):
            return "Node \"\(node)\" has an invalid attribute \"\(attribute)\" = \(value): \(reason)."
        case .missingWeight(let node, let role, let tensor):
            if let tensor { return "Node \"\(node)\" needs weight tensor \"\(tensor)\" (\(role)), which the file lacks." }
            return "Node \"\(node)\" needs a \"\(role)\" weight."
        case .unknownWeightRole(let node, let role):
            return "Node \"\(node)\" lists a \"\(role)\" weight, which its op does not take."
        case .weightShapeMismatch(let node, let tensor, let expected, let actual):
            return "Weight \"\(tensor)\" of node \"\(node)\" has shape \(actual); expected \(expected)."
        case .undefinedValue(let node, let value):
            return "Node \"\(node)\" reads \"\(value)\", which no earlier node or graph input produces."
        case .duplicateValue(let node, let value):
            return "Node \"\(node)\" produces \"\(value)\", which is already produced."
        case .undefinedOutput(let value):
            return "The graph output \"\(value)\" is produced by no node."
        case .invalidInput(let name, let reason):
            return "The graph input \"\(name)\" is invalid: \(reason)."
        case .inputShapeMismatch(let expected, let actual):
            return "The input has shape \(actual) but the model takes \(expected)."
        case .shapeMismatch(let node, let reason):
            return "Node \"\(node)\" cannot run on these shapes: \(reason)."
        case .activationTooLarge(let node, let shape, let limit):
            return "Node \"\(node)\" would produce a tensor of shape \(shape), more than \(limit) elements."
        case .activationsTooLarge(let input, let elements, let limit):
            return "Running the model on an input of shape \(input) needs \(elements) elements of buffers, more than the limit of \(limit)."
        case .weightsTooLarge(let node, let elements, let limit):
            return "The packed weights up to node \"\(node)\" take \(elements) elements, more than the limit of \(limit)."
        case .nonFiniteWeight(let tensor, let index):
            return "Weight tensor \"\(tensor)\" holds NaN or infinity (element \(index)); a model's weights must be finite numbers."
        }
    }
}
