import LiftTensor

extension Program {
    /// The shape of every value (by id) for a graph input of `inputShape`, checking every step.
    /// Values no step writes (replaced by activation fusion) get an empty shape.
    /// - Throws: `GraphError.inputShapeMismatch` when the input does not fit the declaration,
    ///   `.shapeMismatch` naming the first node whose inputs do not fit, `.activationTooLarge`.
    func inferShapes(input inputShape: TensorShape, limits: WeightLimits) throws -> [TensorShape] {
        guard inputShape.n == 1, inputShape.c == input.channels,
              input.height.map({ $0 == inputShape.h }) ?? true, input.width.map({ $0 == inputShape.w }) ?? true,
              inputShape.h >= 1, inputShape.w >= 1
        else {
            throw GraphError.inputShapeMismatch(expected: declaredInputDescription, actual: inputShape.description)
        }
        var shapes = [TensorShape](repeating: TensorShape(n: 0, h: 0, w: 0, c: 0), count: valueNames.count)
        shapes[0] = inputShape
        for step in steps {
            let shape = try step.outputShape(inputs: step.inputs.map { shapes[$0] })
            guard let count = shape.checkedCount, count <= limits.maxActivationElements else {
                throw GraphError.activationTooLarge(node: step.name, shape: shape.description, limit: limits.maxActivationElements)
            }
            shapes[step.output] = shape
        }
        return shapes
    }

    /// `[1, H, W, C]` with `-1` for a size the graph leaves open.
    var declaredInputDescription: String {
        "[1, \(input.height ?? -1), \(input.width ?? -1), \(input.channels)]"
    }
}

extension Program.Step {
    /// This step's output shape for inputs of `inputs` shapes; throws `GraphError.shapeMismatch`.
    func outputShape(inputs: [TensorShape]) throws -> TensorShape {
        let x = inputs[0]
        func fail(_ reason: String) -> GraphError { .shapeMismatch(node: name, reason: reason) }
        switch kernel {
        case .conv(let conv):
            let sources = Array(inputs.prefix(concatenated))
            guard let x = Concat.outputShape(for: sources) else {
                throw fail("concatenated inputs differ in batch, height or width: \(sources.map(\.description).joined(separator: ", "))")
            }
            guard x.c == conv.inputChannels else { throw fail("input has \(x.c) channels, the weights take \(conv.inputChannels)") }
            guard let shape = conv.outputShape(for: x) else { throw fail("input \(x) is smaller than the dilated kernel after padding") }
            if addsResidual {
                let residual = inputs[concatenated]
                guard BinaryOp.canBroadcast(shape, residual) else {
                    throw fail("add of the convolution's output \(shape) and \(residual): shapes must be equal or the second [N or 1, 1, 1, C]")
                }
            }
            return shape
        case .convTranspose(let conv):
            guard x.c == conv.inputChannels else { throw fail("input has \(x.c) channels, the weights take \(conv.inputChannels)") }
            guard let shape = conv.outputShape(for: x) else { throw fail("the cropping leaves no output for input \(x)") }
            return shape
        case .pool(let pool):
            guard let shape = pool.outputShape(for: x) else { throw fail("input \(x) is smaller than the pooling window after padding") }
            return shape
        case .globalAvgPool:
            return GlobalAveragePool.outputShape(for: x)
        case .resize(let spec):
            switch spec.target {
            case .size(let h, let w):
                return TensorShape(n: x.n, h: h, w: w, c: x.c)
            case .scale(let sh, let sw):
                let h = (Double(x.h) * sh).rounded(.down), w = (Double(x.w) * sw).rounded(.down)
                guard h >= 1, w >= 1, h <= 16_777_216, w <= 16_777_216 else { throw fail("scaling \(x) gives an empty or huge output") }
                return TensorShape(n: x.n, h: Int(h), w: Int(w), c: x.c)
            case .like:
                return TensorShape(n: x.n, h: inputs[1].h, w: inputs[1].w, c: x.c)
            }
        case .concat:
            guard let shape = Concat.outputShape(for: inputs) else {
                throw fail("concatenated inputs differ in batch, height or width: \(inputs.map(\.description).joined(separator: ", "))")
            }
            return shape
        case .slice(let start, let end):
            guard let shape = ChannelSlice.outputShape(for: x, start: start, end: end) else {
                throw fail("channels \(start) ..< \(end) of \(x): the input has \(x.c)")
            }
            return shape
        case .binary(let op, _):
            let y = inputs[1]
            if BinaryOp.canBroadcast(x, y) { return x }
            if op != .sub && BinaryOp.canBroadcast(y, x) { return y }
            throw fail("\(op.rawValue) of \(x) and \(y): shapes must be equal or the second [N or 1, 1, 1, C]")
        case .unary:
            return x
        case .pad(let padding, _):
            return Pad.outputShape(for: x, padding: padding)
        }
    }
}
