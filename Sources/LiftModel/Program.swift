import LiftTensor

/// A graph ready to run: every node bound to a LiftTensor kernel, convolution weights packed once.
struct Program {
    /// One node: its kernel, the values it reads, the value it writes.
    struct Step {
        var name: String
        var kernel: Kernel
        var inputs: [Int]
        var output: Int
        /// For a conv: how many leading inputs form its input channels side by side (> 1 after a
        /// concat was fused into it).
        var concatenated = 1
        /// For a conv: whether the input after the concatenated ones is a residual added to its
        /// output (an `add` fused into it).
        var addsResidual = false
    }

    /// A node's kernel: packed convolutions, or the parameters of a stateless kernel.
    enum Kernel {
        case conv(Conv2D)
        case convTranspose(ConvTranspose2D)
        case pool(Pool2D)
        case globalAvgPool
        case resize(ResizeSpec)
        case concat
        case slice(start: Int, end: Int)
        case binary(BinaryOp, Activation)
        case unary(UnaryOp)
        case pad(Padding, value: Float)
    }

    /// The graph input (value 0).
    private(set) var input: GraphInput
    /// Value names by id.
    let valueNames: [String]
    /// Graph outputs, by value id.
    let outputs: [Int]
    /// Steps in execution order.
    let steps: [Step]
    /// Whether each step (by index) is needed for the first output: what `Model.run` executes, so a
    /// model with instance heads runs them only when every output is asked for (`Model.runAll`).
    let neededForFirstOutput: [Bool]

    /// Fuses standalone activations into their producers, packs every convolution's weights, then
    /// fuses concats and residual adds into the Winograd convolutions next to them.
    /// - Throws: `GraphError.weightsTooLarge` before packing a convolution that would take the packed
    ///   weights past `limits.maxPackedWeightElements`.
    init(graph: Graph, limits: WeightLimits) throws {
        var graph = graph
        graph.fuseActivations()
        input = graph.input
        valueNames = graph.valueNames
        outputs = graph.outputs
        var packed = 0
        let unfused = try graph.nodes.map { node in
            packed += Self.packedElementCount(of: node.operation)
            guard packed <= limits.maxPackedWeightElements else {
                throw GraphError.weightsTooLarge(node: node.name, elements: packed, limit: limits.maxPackedWeightElements)
            }
            return Step(name: node.name, kernel: Self.kernel(for: node.operation), inputs: node.inputs, output: node.output)
        }
        steps = Self.fusingConvInputs(unfused, outputs: graph.outputs, valueCount: graph.valueNames.count)
        neededForFirstOutput = Self.steps(of: steps, neededFor: graph.outputs[0])
    }

    /// For each of `steps`, whether `value` depends on its output (walked back from the step that
    /// writes `value` through the steps that write each input).
    private static func steps(of steps: [Step], neededFor value: Int) -> [Bool] {
        var writer: [Int: Int] = [:]
        for (index, step) in steps.enumerated() { writer[step.output] = index }
        var needed = [Bool](repeating: false, count: steps.count)
        var pending = [value]
        while let next = pending.popLast() {
            guard let index = writer[next], !needed[index] else { continue }
            needed[index] = true
            pending += steps[index].inputs
        }
        return needed
    }

    /// This program with its input's height and width left open, for a graph whose steps all follow
    /// the input's size (resizes by a factor or to another tensor's size); nil when a step resizes to
    /// a constant size, which ties the graph to its declared input. A program already open is itself.
    func openingInputSize() -> Program? {
        if input.height == nil && input.width == nil { return self }
        let tied = steps.contains { step in
            if case .resize(let spec) = step.kernel, case .size = spec.target { return true }
            return false
        }
        guard !tied else { return nil }
        var opened = self
        opened.input.height = nil
        opened.input.width = nil
        return opened
    }

    /// Floats `kernel(for:)` packs for `operation` (0 for ops without weights). Cannot overflow: the
    /// weights are a tensor of the file (≤ 2³¹ elements), padded at most 16 × 4-fold.
    private static func packedElementCount(of operation: Operation) -> Int {
        switch operation {
        case .conv(let spec):
            return Conv2D.packedElementCount(inputChannels: spec.inputChannels, outputChannels: spec.outputChannels,
                                             parameters: spec.parameters)
        case .convTranspose(let spec):
            return ConvTranspose2D.packedElementCount(inputChannels: spec.inputChannels, outputChannels: spec.outputChannels,
                                                      kernelHeight: spec.kernel.h, kernelWidth: spec.kernel.w)
        default:
            return 0
        }
    }

    private static func kernel(for operation: Operation) -> Kernel {
        switch operation {
        case .conv(let spec):
            return .conv(Conv2D(weights: spec.weights, bias: spec.bias, inputChannels: spec.inputChannels,
                                outputChannels: spec.outputChannels, parameters: spec.parameters))
        case .convTranspose(let spec):
            return .convTranspose(ConvTranspose2D(weights: spec.weights, bias: spec.bias, inputChannels: spec.inputChannels,
                                                  outputChannels: spec.outputChannels, kernelHeight: spec.kernel.h,
                                                  kernelWidth: spec.kernel.w, strideY: spec.stride.y, strideX: spec.stride.x,
                                                  cropping: spec.cropping, activation: spec.activation))
        case .pool(let pool): return .pool(pool)
        case .globalAvgPool: return .globalAvgPool
        case .resize(let spec): return .resize(spec)
        case .concat: return .concat
        case .slice(let start, let end): return .slice(start: start, end: end)
        case .binary(let op, let activation): return .binary(op, activation)
        case .unary(let op): return .unary(op)
        case .pad(let padding, let value): return .pad(padding, value: value)
        }
    }
}
