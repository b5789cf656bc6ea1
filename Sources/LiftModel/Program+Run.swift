import LiftTensor

extension Program.Step {
    /// Runs this step's kernel on `inputs` into `output`, whose shape the plan has already set.
    func run(inputs: [Tensor], output: Tensor, threads: Int) {
        let x = inputs[0]
        switch kernel {
        case .conv(let conv):
            // A residual of the output's shape is added in the epilogue; a broadcast one afterwards.
            let residual = addsResidual ? inputs[concatenated] : nil
            let fused = residual.flatMap { $0.shape == output.shape ? $0 : nil }
            if concatenated > 1 {
                conv.run(concatenating: inputs[0 ..< concatenated], output: output, residual: fused, threads: threads)
            } else {
                conv.run(input: x, output: output, residual: fused, threads: threads)
            }
            if let residual, fused == nil {
                BinaryOp.add.run(a: output, b: residual, output: output, threads: threads)
            }
        case .convTranspose(let conv):
            conv.run(input: x, output: output, threads: threads)
        case .pool(let pool):
            pool.run(input: x, output: output, threads: threads)
        case .globalAvgPool:
            GlobalAveragePool.run(input: x, output: output, threads: threads)
        case .resize(let spec):
            if spec.bilinear {
                Resize.bilinear(input: x, output: output, coordinates: spec.coordinates, activation: spec.activation,
                                threads: threads)
            } else {
                Resize.nearest(input: x, output: output, coordinates: spec.coordinates, threads: threads)
            }
        case .concat:
            Concat.run(inputs: inputs, output: output, threads: threads)
        case .slice(let start, _):
            ChannelSlice.run(input: x, output: output, start: start, threads: threads)
        case .binary(let op, let activation):
            // Shape inference allows the broadcast operand first for commutative ops.
            let (a, b) = BinaryOp.canBroadcast(x.shape, inputs[1].shape) ? (x, inputs[1]) : (inputs[1], x)
            op.run(a: a, b: b, output: output, activation: activation, threads: threads)
        case .unary(let op):
            op.run(input: x, output: output, threads: threads)
        case .pad(let padding, let value):
            Pad.run(input: x, output: output, padding: padding, value: value, threads: threads)
        }
    }
}

extension Program.Step {
    /// A short description of the kernel for profiles: `conv 3x3 d2 64→16`, `concat`, `add+relu`, ….
    var kindDescription: String {
        func suffix(_ activation: Activation) -> String { activation == .none ? "" : "+\(activation.rawValue)" }
        switch kernel {
        case .conv(let conv):
            let p = conv.parameters
            let dilation = p.dilationY == 1 && p.dilationX == 1 ? "" : " d\(p.dilationY)"
            let stride = p.strideY == 1 && p.strideX == 1 ? "" : " s\(p.strideY)"
            let groups = p.groups == 1 ? "" : " g\(p.groups)"
            let fused = (concatenated > 1 ? " +concat" : "") + (addsResidual ? " +add" : "")
            return "conv \(p.kernelHeight)x\(p.kernelWidth)\(dilation)\(stride)\(groups) \(conv.inputChannels)→\(conv.outputChannels)\(fused)"
        case .convTranspose(let conv):
            return "conv_transpose \(conv.kernelHeight)x\(conv.kernelWidth) s\(conv.strideY) \(conv.inputChannels)→\(conv.outputChannels)"
        case .pool(let pool): return pool.kind == .max ? "max_pool2d" : "avg_pool2d"
        case .globalAvgPool: return "global_avg_pool"
        case .resize(let spec): return spec.bilinear ? "resize_bilinear" + suffix(spec.activation) : "resize_nearest"
        case .concat: return "concat"
        case .slice(let start, let end): return "slice \(start)..<\(end)"
        case .binary(let op, let activation): return op.rawValue + suffix(activation)
        case .unary(let op): return op.rawValue
        case .pad: return "pad"
        }
    }
}
