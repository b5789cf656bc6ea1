import LiftTensor

/// A decoded, validated `lift.graph/1` graph: values numbered densely (the graph input is value 0),
/// nodes in execution order, each with a typed operation and its weights as Float32 arrays.
struct Graph {
    /// The one graph input (`inputs[0]` of the document).
    var input: GraphInput
    /// Value names by id.
    var valueNames: [String]
    /// Values returned by the graph, in the document's `outputs` order.
    var outputs: [Int]
    /// Nodes in a valid execution order.
    var nodes: [GraphNode]
}

/// The graph input: `[1, H, W, C]` with H and W nil when any size is accepted.
struct GraphInput {
    var name: String
    var height: Int?
    var width: Int?
    var channels: Int
}

/// One node: its operation, the values it reads and the one value it writes.
struct GraphNode {
    var name: String
    var operation: Operation
    var inputs: [Int]
    var output: Int
}

/// A node's operation with its decoded attributes and weights (before packing).
enum Operation {
    case conv(ConvolutionSpec)
    case convTranspose(TransposedConvolutionSpec)
    case pool(Pool2D)
    case globalAvgPool
    case resize(ResizeSpec)
    case concat
    /// Channels `start ..< end` of the input (`slice`).
    case slice(start: Int, end: Int)
    case binary(BinaryOp, Activation)
    case unary(UnaryOp)
    case pad(Padding, value: Float)

    /// The activation a node of this kind carries, or nil if it cannot carry one.
    var fusedActivation: Activation? {
        switch self {
        case .conv(let spec): return spec.parameters.activation
        case .convTranspose(let spec): return spec.activation
        case .binary(_, let activation): return activation
        case .resize(let spec): return spec.bilinear ? spec.activation : nil
        default: return nil
        }
    }

    /// This operation with `activation` fused into it; only for ops whose `fusedActivation` is non-nil.
    func fusing(_ activation: Activation) -> Operation {
        switch self {
        case .conv(var spec):
            spec.parameters.activation = activation
            return .conv(spec)
        case .convTranspose(var spec):
            spec.activation = activation
            return .convTranspose(spec)
        case .binary(let kind, _):
            return .binary(kind, activation)
        case .resize(var spec) where spec.bilinear:
            spec.activation = activation
            return .resize(spec)
        default:
            preconditionFailure("fusing an activation into an op that cannot carry one")
        }
    }
}

/// A convolution's weights (OHWI `[Cout, Kh, Kw, Cin/groups]`), bias and geometry.
struct ConvolutionSpec {
    var weights: [Float]
    var bias: [Float]?
    var inputChannels: Int
    var outputChannels: Int
    var parameters: Conv2DParameters
}

/// A transposed convolution's weights (`[Cout, Kh, Kw, Cin]`), bias, geometry and activation.
struct TransposedConvolutionSpec {
    var weights: [Float]
    var bias: [Float]?
    var inputChannels: Int
    var outputChannels: Int
    var kernel: (h: Int, w: Int)
    var stride: (y: Int, x: Int)
    var cropping: TransposedConvCropping
    var activation: Activation
}

/// How a resize op picks its output size and maps output to input coordinates.
struct ResizeSpec {
    enum Target {
        case size(h: Int, w: Int)
        case scale(h: Double, w: Double)
        /// The H and W of the node's second input.
        case like
    }
    var bilinear: Bool
    var target: Target
    var coordinates: ResizeCoordinates
    /// Applied to every output value (a standalone activation after a bilinear resize, fused).
    var activation = Activation.none
}
