/// Convolution weights and bias repacked once into the layout the SIMD kernels read.
///
/// Dense and grouped: `[group][block][Kh][Kw][Cin/groups][16]`, where block `b` of a group holds its
/// output channels `16b ..< 16b+16` (lanes past the group's channel count are zero); bias
/// `[group][block][16]`. Depthwise (groups = Cin = Cout): `[Kh][Kw][Cpad]` and bias `[Cpad]`, with
/// `Cpad` = C rounded up to 16. `zeroRow` is a run of zeros standing in for padded input pixels.
struct PackedConvWeights: @unchecked Sendable {
    let weights: AlignedBuffer
    let bias: AlignedBuffer
    let zeroRow: AlignedBuffer
    let groups: Int
    let inputChannelsPerGroup: Int
    let outputChannelsPerGroup: Int
    /// Output channel blocks of 16 per group.
    let blocksPerGroup: Int
    let taps: Int
    let depthwise: Bool

    /// Floats between the same tap and input channel of two consecutive blocks.
    var blockStride: Int { taps * inputChannelsPerGroup * vectorWidth }

    init(weights source: [Float], bias: [Float]?, outputChannels: Int, inputChannelsPerGroup cinG: Int,
         groups: Int, kernelHeight: Int, kernelWidth: Int, depthwise: Bool) {
        let taps = kernelHeight * kernelWidth
        let cpg = outputChannels / groups
        self.groups = groups
        self.inputChannelsPerGroup = cinG
        self.outputChannelsPerGroup = cpg
        self.taps = taps
        self.depthwise = depthwise
        if depthwise {
            let padded = roundUpToVector(outputChannels)
            blocksPerGroup = 1
            self.weights = AlignedBuffer(count: taps * padded)
            self.bias = AlignedBuffer(count: padded)
            zeroRow = AlignedBuffer(count: padded)
            for channel in 0 ..< outputChannels {
                for tap in 0 ..< taps { self.weights.pointer[tap * padded + channel] = source[channel * taps + tap] }
                self.bias.pointer[channel] = bias?[channel] ?? 0
            }
            return
        }
        let blocks = (cpg + vectorWidth - 1) / vectorWidth
        blocksPerGroup = blocks
        self.weights = AlignedBuffer(count: groups * blocks * taps * cinG * vectorWidth)
        self.bias = AlignedBuffer(count: groups * blocks * vectorWidth)
        zeroRow = AlignedBuffer(count: roundUpToVector(cinG))
        for group in 0 ..< groups {
            for block in 0 ..< blocks {
                let blockBase = (group * blocks + block) * taps * cinG * vectorWidth
                for lane in 0 ..< vectorWidth where block * vectorWidth + lane < cpg {
                    let co = group * cpg + block * vectorWidth + lane
                    self.bias.pointer[(group * blocks + block) * vectorWidth + lane] = bias?[co] ?? 0
                    for tap in 0 ..< taps {
                        for ci in 0 ..< cinG {
                            self.weights.pointer[blockBase + (tap * cinG + ci) * vectorWidth + lane] =
                                source[(co * taps + tap) * cinG + ci]
                        }
                    }
                }
            }
        }
    }
}

/// Everything a convolution kernel needs for one run, resolved for one input size.
struct ConvGeometry: @unchecked Sendable {
    var batch: Int
    var inputHeight: Int, inputWidth: Int, inputChannels: Int
    var outputHeight: Int, outputWidth: Int, outputChannels: Int
    var kernelHeight: Int, kernelWidth: Int
    var strideY: Int, strideX: Int
    var dilationY: Int, dilationX: Int
    var padTop: Int, padLeft: Int
    var activation: Activation
    var packed: PackedConvWeights

    init(conv: Conv2D, input: TensorShape, output: TensorShape, padding: Padding) {
        let p = conv.parameters
        batch = input.n
        inputHeight = input.h; inputWidth = input.w; inputChannels = input.c
        outputHeight = output.h; outputWidth = output.w; outputChannels = output.c
        kernelHeight = p.kernelHeight; kernelWidth = p.kernelWidth
        strideY = p.strideY; strideX = p.strideX
        dilationY = p.dilationY; dilationX = p.dilationX
        padTop = padding.top; padLeft = padding.left
        activation = p.activation
        packed = conv.packed
    }

    /// True for a 1×1, stride-1, unpadded convolution: a GEMM over all pixels.
    var isPointwise: Bool {
        kernelHeight == 1 && kernelWidth == 1 && strideY == 1 && strideX == 1 && padTop == 0 && padLeft == 0
            && inputHeight == outputHeight && inputWidth == outputWidth
    }
}
