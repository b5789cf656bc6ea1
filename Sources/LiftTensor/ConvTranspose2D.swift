/// How a transposed convolution crops its full `(in−1)·stride + k` output, as `lift.graph/1` says.
public enum TransposedConvCropping: Hashable, Sendable {
    /// No cropping: output `(in−1)·stride + k`.
    case valid
    /// Output `in·stride`: the full output cropped by `k − stride`, the smaller half on top/left.
    case same
    /// Crop `[top, left, bottom, right]` rows/columns off the full output.
    case explicit(Padding)
}

/// A transposed 2-D convolution (NHWC, Float32; PyTorch `ConvTranspose2d` with groups 1) with
/// weights packed at creation, fused bias and activation.
///
/// Weights come as `[Cout, Kh, Kw, Cin]` and are packed like `Conv2D`'s dense weights. Each output
/// pixel gathers the input pixels whose scattered window covers it, so outputs never race and the
/// result does not depend on the thread count.
public final class ConvTranspose2D: @unchecked Sendable {
    /// Input channels Cin.
    public let inputChannels: Int
    /// Output channels Cout.
    public let outputChannels: Int
    /// Kernel rows and columns.
    public let kernelHeight: Int, kernelWidth: Int
    /// Strides (the upsampling factors).
    public let strideY: Int, strideX: Int
    /// Output cropping.
    public let cropping: TransposedConvCropping
    /// Activation after the bias.
    public let activation: Activation

    let packed: PackedConvWeights

    /// Packs `weights` (`[Cout, Kh, Kw, Cin]`) and optional `bias` (`[Cout]`).
    public init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int,
                kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int,
                cropping: TransposedConvCropping = .valid, activation: Activation = .none) {
        precondition(inputChannels >= 1 && outputChannels >= 1 && kernelHeight >= 1 && kernelWidth >= 1
                     && strideY >= 1 && strideX >= 1, "transposed conv sizes must be ≥ 1")
        let expected = outputChannels * kernelHeight * kernelWidth * inputChannels
        precondition(weights.count == expected, "transposed conv weights need \(expected) floats, got \(weights.count)")
        precondition(bias == nil || bias?.count == outputChannels, "transposed conv bias needs \(outputChannels) floats")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.cropping = cropping
        self.activation = activation
        packed = PackedConvWeights(weights: weights, bias: bias, outputChannels: outputChannels,
                                   inputChannelsPerGroup: inputChannels, groups: 1,
                                   kernelHeight: kernelHeight, kernelWidth: kernelWidth, depthwise: false)
    }

    /// Rows/columns cropped `(top, left, bottom, right)`; bottom/right are negative when SAME asks for
    /// more than the full output (k < stride), the extra pixels holding only bias.
    func crop() -> (top: Int, left: Int, bottom: Int, right: Int) {
        switch cropping {
        case .valid: return (0, 0, 0, 0)
        case .explicit(let p): return (p.top, p.left, p.bottom, p.right)
        case .same:
            let totalY = kernelHeight - strideY, totalX = kernelWidth - strideX
            let top = max(totalY, 0) / 2, left = max(totalX, 0) / 2
            return (top, left, totalY - top, totalX - left)
        }
    }

    /// The output shape `[N, (H−1)·sy + Kh − crop, (W−1)·sx + Kw − crop, Cout]`, or nil if the channel
    /// count is wrong or the cropping leaves nothing.
    public func outputShape(for shape: TensorShape) -> TensorShape? {
        guard shape.c == inputChannels, shape.n >= 1, shape.h >= 1, shape.w >= 1 else { return nil }
        let c = crop()
        let h = (shape.h - 1) * strideY + kernelHeight - c.top - c.bottom
        let w = (shape.w - 1) * strideX + kernelWidth - c.left - c.right
        guard h >= 1, w >= 1 else { return nil }
        return TensorShape(n: shape.n, h: h, w: w, c: outputChannels)
    }

    /// Runs the transposed convolution into `output` (shape `outputShape(for: input.shape)`).
    public func run(input: Tensor, output: Tensor, threads: Int = Parallel.defaultThreads) {
        guard let expected = outputShape(for: input.shape) else {
            preconditionFailure("transposed conv \(inputChannels)→\(outputChannels) cannot take an input of shape \(input.shape)")
        }
        precondition(output.shape == expected, "transposed conv output shape \(output.shape) must be \(expected)")
        precondition(input !== output, "transposed conv cannot run in place")
        let shape = input.shape, c = crop()
        let source = UnsafePointer(input.data), destination = output.data
        let packed = self.packed, cin = inputChannels, cout = outputChannels
        let kh = kernelHeight, kw = kernelWidth, sy = strideY, sx = strideX, activation = self.activation
        let blocks = packed.blocksPerGroup, blockStride = packed.blockStride
        Parallel.forEach(count: expected.n * expected.h, threads: threads) { rows in
            for row in rows {
                let b = row / expected.h, oy = row % expected.h
                for ox in 0 ..< expected.w {
                    for block in 0 ..< blocks {
                        var acc = loadVector(packed.bias.pointer + block &* vectorWidth)
                        let weights = UnsafePointer(packed.weights.pointer) + block &* blockStride
                        for ky in 0 ..< kh {
                            let ty = oy &+ c.top &- ky
                            if ty < 0 || ty % sy != 0 || ty / sy >= shape.h { continue }
                            for kx in 0 ..< kw {
                                let tx = ox &+ c.left &- kx
                                if tx < 0 || tx % sx != 0 || tx / sx >= shape.w { continue }
                                let pixel = source + ((b &* shape.h &+ ty / sy) &* shape.w &+ tx / sx) &* cin
                                let tapWeights = weights + (ky &* kw &+ kx) &* cin &* vectorWidth
                                for ci in 0 ..< cin {
                                    acc = acc.addingProduct(Vector(repeating: pixel[ci]), loadVector(tapWeights + ci &* vectorWidth))
                                }
                            }
                        }
                        let lanes = min(vectorWidth, cout &- block &* vectorWidth)
                        let out = destination + (((b &* expected.h &+ oy) &* expected.w &+ ox) &* cout &+ block &* vectorWidth)
                        storeVector(activation.apply(acc), out, lanes: lanes)
                    }
                }
            }
        }
    }
}
