import LiftTensor

/// Decodes one node's op, attributes and weights into a typed `Operation`.
struct NodeDecoder {
    let node: String
    let op: String
    let inputCount: Int
    let roles: [String: String]
    var attributes: Attributes
    let weights: WeightTensors

    /// The typed operation; throws for unknown ops, attributes, weight roles and wrong shapes.
    mutating func decode() throws -> Operation {
        let operation: Operation
        switch op {
        case "conv2d":
            try expectInputs(1 ... 1)
            operation = .conv(try convolution())
        case "conv_transpose2d":
            try expectInputs(1 ... 1)
            operation = .convTranspose(try transposedConvolution())
        case "max_pool2d", "avg_pool2d":
            try expectInputs(1 ... 1)
            let kernel = try attributes.pair("kernel", default: nil)
            let stride = try attributes.pair("stride", default: kernel)
            operation = .pool(Pool2D(kind: op == "max_pool2d" ? .max : .average, kernelHeight: kernel.0, kernelWidth: kernel.1,
                                     strideY: stride.0, strideX: stride.1, padding: try attributes.padding(),
                                     ceilMode: try attributes.bool("ceil_mode", default: false),
                                     countIncludePad: op == "avg_pool2d" ? try attributes.bool("count_include_pad", default: false) : false))
        case "global_avg_pool":
            try expectInputs(1 ... 1)
            operation = .globalAvgPool
        case "resize_bilinear", "resize_nearest":
            try expectInputs(1 ... 2)
            operation = .resize(try resize(bilinear: op == "resize_bilinear"))
        case "concat":
            try expectInputs(1 ... 4096)
            if let axis = attributes.raw("axis"), axis.intValue != 3 {
                throw GraphError.invalidAttribute(node: node, attribute: "axis", value: axis.description, reason: "only 3 (channels) is supported")
            }
            operation = .concat
        case "slice":
            try expectInputs(1 ... 1)
            if let axis = attributes.raw("axis"), axis.intValue != 3 {
                throw GraphError.invalidAttribute(node: node, attribute: "axis", value: axis.description, reason: "only 3 (channels) is supported")
            }
            guard attributes.raw("end") != nil else {
                throw GraphError.invalidNode(node: node, reason: "slice takes the channels start ..< end: end is missing")
            }
            let start = try attributes.int("start", default: 0, minimum: 0)
            operation = .slice(start: start, end: try attributes.int("end", default: 0, minimum: start + 1))
        case "add", "mul", "sub":
            try expectInputs(2 ... 2)
            guard let kind = BinaryOp(rawValue: op) else { preconditionFailure("BinaryOp has no case \(op)") }
            operation = .binary(kind, try attributes.activation())
        case "pad":
            try expectInputs(1 ... 1)
            operation = .pad(try attributes.pads("pads"), value: Float(try attributes.number("value", default: 0)))
        default:
            guard let unary = UnaryOp(rawValue: op) else { throw GraphError.unknownOp(node: node, op: op) }
            try expectInputs(1 ... 1)
            operation = .unary(unary)
        }
        try attributes.finish()
        let taken: Set<String> = op == "conv2d" || op == "conv_transpose2d" ? ["weight", "bias"] : []
        for role in roles.keys.sorted() where !taken.contains(role) {
            throw GraphError.unknownWeightRole(node: node, role: role)
        }
        return operation
    }

    private func expectInputs(_ range: ClosedRange<Int>) throws {
        guard range.contains(inputCount) else {
            let expected = range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound)…\(range.upperBound)"
            throw GraphError.invalidNode(node: node, reason: "\(op) takes \(expected) inputs, got \(inputCount)")
        }
    }

    private mutating func convolution() throws -> ConvolutionSpec {
        let stride = try attributes.pair("stride", default: (1, 1))
        let dilation = try attributes.pair("dilation", default: (1, 1))
        let groups = try attributes.int("groups", default: 1)
        let padding = try attributes.padding()
        let activation = try attributes.activation()
        let (weights, shape, bias) = try weightAndBias(layout: "[Cout, Kh, Kw, Cin/groups], Cout a multiple of groups \(groups)",
                                                      outputMultiple: groups)
        let parameters = Conv2DParameters(kernelHeight: shape[1], kernelWidth: shape[2], strideY: stride.0, strideX: stride.1,
                                          dilationY: dilation.0, dilationX: dilation.1, padding: padding,
                                          groups: groups, activation: activation)
        return ConvolutionSpec(weights: weights, bias: bias, inputChannels: shape[3] * groups, outputChannels: shape[0],
                               parameters: parameters)
    }

    private mutating func transposedConvolution() throws -> TransposedConvolutionSpec {
        let stride = try attributes.pair("stride", default: (1, 1))
        let cropping: TransposedConvCropping
        switch try attributes.padding() {
        case .valid: cropping = .valid
        case .same: cropping = .same
        case .explicit(let crop): cropping = .explicit(crop)
        }
        let activation = try attributes.activation()
        let (weights, shape, bias) = try weightAndBias(layout: "[Cout, Kh, Kw, Cin]", outputMultiple: 1)
        return TransposedConvolutionSpec(weights: weights, bias: bias, inputChannels: shape[3], outputChannels: shape[0],
                                         kernel: (shape[1], shape[2]), stride: (stride.0, stride.1),
                                         cropping: cropping, activation: activation)
    }

    /// The `weight` tensor (rank 4, every dimension 1…65536, Cout a multiple of `outputMultiple`),
    /// its shape, and the optional `bias` (`[Cout]`).
    private func weightAndBias(layout: String, outputMultiple: Int) throws -> ([Float], [Int], [Float]?) {
        guard let weightName = roles["weight"] else { throw GraphError.missingWeight(node: node, role: "weight", tensor: nil) }
        let (weights, shape) = try tensor(role: "weight", name: weightName)
        guard shape.count == 4, shape.allSatisfy({ (1 ... 1 << 16).contains($0) }), shape[0] % outputMultiple == 0 else {
            throw GraphError.weightShapeMismatch(node: node, tensor: weightName, expected: layout, actual: shape)
        }
        guard let biasName = roles["bias"] else { return (weights, shape, nil) }
        let (bias, biasShape) = try tensor(role: "bias", name: biasName)
        guard biasShape == [shape[0]] else {
            throw GraphError.weightShapeMismatch(node: node, tensor: biasName, expected: "[\(shape[0])]", actual: biasShape)
        }
        return (weights, shape, bias)
    }

    private func tensor(role: String, name: String) throws -> ([Float], [Int]) {
        guard let shape = weights.shape(name) else { throw GraphError.missingWeight(node: node, role: role, tensor: name) }
        return (try weights.floats(name), shape)
    }

    private mutating func resize(bilinear: Bool) throws -> ResizeSpec {
        let size = attributes.raw("size"), scale = attributes.raw("scale")
        let coordinatesValue = attributes.raw("coordinates")
        let given = [size != nil, scale != nil, inputCount == 2].filter { $0 }.count
        guard given == 1 else {
            throw GraphError.invalidNode(node: node, reason: "a resize needs exactly one of `size`, `scale` or a second input, got \(given)")
        }
        let target: ResizeSpec.Target
        if let size {
            guard let list = size.intArray, list.count == 2, list.allSatisfy({ (1 ... 1 << 20).contains($0) }) else {
                throw GraphError.invalidAttribute(node: node, attribute: "size", value: size.description, reason: "expected [h, w], each 1…1048576")
            }
            target = .size(h: list[0], w: list[1])
        } else if let scale {
            guard let list = scale.arrayValue?.compactMap(\.doubleValue), list.count == 2,
                  list.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 4096 })
            else {
                throw GraphError.invalidAttribute(node: node, attribute: "scale", value: scale.description, reason: "expected [sh, sw], each in (0, 4096]")
            }
            target = .scale(h: list[0], w: list[1])
        } else {
            target = .like
        }
        var coordinates = ResizeCoordinates.halfPixel
        if let coordinatesValue {
            guard let text = coordinatesValue.stringValue, let parsed = ResizeCoordinates(rawValue: text) else {
                throw GraphError.invalidAttribute(node: node, attribute: "coordinates", value: coordinatesValue.description,
                                                  reason: "expected half_pixel, align_corners or asymmetric")
            }
            coordinates = parsed
        }
        return ResizeSpec(bilinear: bilinear, target: target, coordinates: coordinates)
    }
}
