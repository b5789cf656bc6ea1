import LiftTensor

extension Program.Step {
    /// Runs this step's kernel on `inputs` into `output`, whose shape the plan has already set.
    func run(inputs: [Tensor], output: Tensor, threads: Int) {
        let x = inputs[0]
        switch kernel {
        case .conv(let conv):
            conv.run(input: x, output: output, threads: threads)
        case .convTranspose(let conv):
            conv.run(input: x, output: output, threads: threads)
        case .pool(let pool):
            pool.run(input: x, output: output, threads: threads)
        case .globalAvgPool:
            GlobalAveragePool.run(input: x, output: output, threads: threads)
        case .resize(let spec):
            if spec.bilinear {
                Resize.bilinear(input: x, output: output, coordinates: spec.coordinates, threads: threads)
            } else {
                Resize.nearest(input: x, output: output, coordinates: spec.coordinates, threads: threads)
            }
        case .concat:
            Concat.run(inputs: inputs, output: output, threads: threads)
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
