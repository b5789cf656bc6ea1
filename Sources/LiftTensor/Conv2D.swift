import LiftParallel

/// The geometry and fused epilogue of a 2-D convolution, as the `conv2d` op of `lift.graph/1`.
public struct Conv2DParameters: Hashable, Sendable {
    /// Kernel rows Kh (≥ 1).
    public var kernelHeight: Int
    /// Kernel columns Kw (≥ 1).
    public var kernelWidth: Int
    /// Vertical stride (≥ 1).
    public var strideY: Int
    /// Horizontal stride (≥ 1).
    public var strideX: Int
    /// Vertical dilation (≥ 1).
    public var dilationY: Int
    /// Horizontal dilation (≥ 1).
    public var dilationX: Int
    /// Zero padding: valid, TensorFlow SAME (resolved per input size) or explicit.
    public var padding: PaddingMode
    /// Channel groups (1 = dense, Cin = depthwise); Cin and Cout must be multiples of it.
    public var groups: Int
    /// Activation applied after the bias.
    public var activation: Activation

    /// Parameters with `lift.graph/1`'s defaults: stride 1, dilation 1, valid padding, 1 group, no activation.
    public init(kernelHeight: Int, kernelWidth: Int, strideY: Int = 1, strideX: Int = 1,
                dilationY: Int = 1, dilationX: Int = 1, padding: PaddingMode = .valid,
                groups: Int = 1, activation: Activation = .none) {
        precondition(kernelHeight >= 1 && kernelWidth >= 1, "conv kernel must be at least 1×1")
        precondition(strideY >= 1 && strideX >= 1 && dilationY >= 1 && dilationX >= 1, "conv stride and dilation must be ≥ 1")
        precondition(groups >= 1, "conv groups must be ≥ 1")
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.dilationY = dilationY
        self.dilationX = dilationX
        self.padding = padding
        self.groups = groups
        self.activation = activation
    }
}

/// Output size of a strided, dilated window along one axis, or nil if the window does not fit.
@inline(__always)
func windowOutputSize(input: Int, padBefore: Int, padAfter: Int, kernel: Int, stride: Int, dilation: Int) -> Int? {
    let span = (kernel - 1) * dilation + 1
    let padded = input + padBefore + padAfter
    guard input >= 1, padded >= span else { return nil }
    return (padded - span) / stride + 1
}

/// A 2-D convolution (NHWC, Float32) with weights packed once at creation, fused bias and activation.
///
/// Weights come in OHWI order `[Cout, Kh, Kw, Cin/groups]` and are packed into
/// `[group][Cout/16 block][Kh][Kw][Cin/groups][16]` (zero-padded lanes) for the direct SIMD kernel.
/// Depthwise convolutions (groups = Cin = Cout) use a specialised kernel; 1×1 stride-1 unpadded
/// convolutions run as a blocked GEMM over all pixels; layers with at most 8 output channels per group
/// (side outputs, fusions) vectorise over input channels instead; dense 3×3 stride-1 layers with 16+
/// channels run by Winograd (`ConvAlgorithm.winogradTile`), which can also read a concat's inputs in
/// place and add a residual. Results do not depend on the thread count.
public final class Conv2D: @unchecked Sendable {
    /// Input channels Cin (all groups).
    public let inputChannels: Int
    /// Output channels Cout (all groups).
    public let outputChannels: Int
    /// Geometry and epilogue.
    public let parameters: Conv2DParameters

    let packed: PackedConvWeights

    /// Packs `weights` (`[Cout, Kh, Kw, Cin/groups]`, OHWI) and optional `bias` (`[Cout]`).
    /// - Parameters:
    ///   - weights: `outputChannels · Kh · Kw · inputChannels/groups` floats.
    ///   - bias: nil (zero) or `outputChannels` floats.
    ///   - inputChannels: Cin, a multiple of `parameters.groups`.
    ///   - outputChannels: Cout, a multiple of `parameters.groups`.
    ///   - algorithm: `.automatic` (the rule in `ConvAlgorithm`), or force `.direct` / `.winograd(tile:)`.
    public init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int,
                parameters: Conv2DParameters, algorithm: ConvAlgorithm = .automatic) {
        let groups = parameters.groups
        precondition(inputChannels >= 1 && outputChannels >= 1, "conv needs at least one input and output channel")
        precondition(inputChannels % groups == 0 && outputChannels % groups == 0,
                     "conv channels \(inputChannels)→\(outputChannels) must be multiples of groups \(groups)")
        let expected = outputChannels * parameters.kernelHeight * parameters.kernelWidth * (inputChannels / groups)
        precondition(weights.count == expected, "conv weights need \(expected) floats, got \(weights.count)")
        precondition(bias == nil || bias?.count == outputChannels, "conv bias needs \(outputChannels) floats")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.parameters = parameters
        let (layout, tile) = Self.packing(inputChannels: inputChannels, outputChannels: outputChannels,
                                          parameters: parameters, algorithm: algorithm)
        packed = PackedConvWeights(weights: weights, bias: bias, outputChannels: outputChannels,
                                   inputChannelsPerGroup: inputChannels / groups, groups: groups,
                                   kernelHeight: parameters.kernelHeight, kernelWidth: parameters.kernelWidth,
                                   layout: layout, winogradTile: tile)
    }

    /// Floats the packed weights of such a convolution take (weights, bias, padding lanes; Winograd
    /// layouts hold (m+2)²/9 times the weights), known before packing so a loader can bound them.
    public static func packedElementCount(inputChannels: Int, outputChannels: Int, parameters: Conv2DParameters,
                                          algorithm: ConvAlgorithm = .automatic) -> Int {
        let (layout, tile) = packing(inputChannels: inputChannels, outputChannels: outputChannels,
                                     parameters: parameters, algorithm: algorithm)
        return PackedConvWeights.bufferSizes(outputChannels: outputChannels, inputChannelsPerGroup: inputChannels / parameters.groups,
                                             groups: parameters.groups, taps: parameters.kernelHeight * parameters.kernelWidth,
                                             layout: layout, winogradTile: tile).total
    }

    /// Floats this convolution's packed weights take.
    public var packedElementCount: Int { packed.elementCount }

    /// The weight layout and Winograd tile (0: none) `algorithm` picks for these sizes.
    private static func packing(inputChannels: Int, outputChannels: Int, parameters: Conv2DParameters,
                                algorithm: ConvAlgorithm) -> (PackedConvWeights.Layout, Int) {
        var tile = 0
        switch algorithm {
        case .automatic: tile = ConvAlgorithm.winogradTile(for: parameters, inputChannels: inputChannels, outputChannels: outputChannels) ?? 0
        case .direct: tile = 0
        case .winograd(let forced):
            precondition(ConvAlgorithm.winogradCan(parameters) && (forced == 2 || forced == 4),
                         "Winograd F(m×m, 3×3) needs a dense 3×3 stride-1 convolution and m = 2 or 4, not \(forced)")
            tile = forced
        }
        let layout: PackedConvWeights.Layout = tile > 0 ? .winograd
            : .choose(inputChannels: inputChannels, outputChannels: outputChannels, groups: parameters.groups, channelTail: true)
        return (layout, tile)
    }

    /// The padding this convolution applies to an input of `shape`.
    public func padding(for shape: TensorShape) -> Padding {
        let p = parameters
        return p.padding.resolve(height: shape.h, width: shape.w, kernel: (p.kernelHeight, p.kernelWidth),
                                 stride: (p.strideY, p.strideX), dilation: (p.dilationY, p.dilationX))
    }

    /// The output shape `[N, Ho, Wo, Cout]` for an input of `shape`, or nil if the input has the wrong
    /// channel count or is smaller than the (dilated) kernel after padding.
    public func outputShape(for shape: TensorShape) -> TensorShape? {
        guard shape.c == inputChannels, shape.n >= 1 else { return nil }
        let p = parameters, pad = padding(for: shape)
        guard let ho = windowOutputSize(input: shape.h, padBefore: pad.top, padAfter: pad.bottom,
                                        kernel: p.kernelHeight, stride: p.strideY, dilation: p.dilationY),
              let wo = windowOutputSize(input: shape.w, padBefore: pad.left, padAfter: pad.right,
                                        kernel: p.kernelWidth, stride: p.strideX, dilation: p.dilationX)
        else { return nil }
        return TensorShape(n: shape.n, h: ho, w: wo, c: outputChannels)
    }

    /// True when this convolution runs by Winograd F(m×m, 3×3), and so can read its input as several
    /// tensors side by side (`run(concatenating:…)`) and add a residual in its epilogue.
    public var isWinograd: Bool { packed.layout == .winograd }

    /// True when this convolution can read its input as several tensors side by side
    /// (`run(concatenating:…)`): a Winograd one, or a dense 1×1 stride-1 one without padding.
    public var readsConcatenatedInputs: Bool {
        let p = parameters
        let unpadded: Bool
        switch p.padding {
        case .valid, .same: unpadded = true
        case .explicit(let padding): unpadded = padding == Padding(top: 0, left: 0, bottom: 0, right: 0)
        }
        return isWinograd || (packed.layout == .blocked && p.kernelHeight == 1 && p.kernelWidth == 1
                              && p.strideY == 1 && p.strideX == 1 && p.groups == 1 && unpadded)
    }

    /// Convolves `input` into `output`, whose shape must be `outputShape(for: input.shape)`.
    /// Allocates nothing; `input` and `output` must be different tensors.
    /// - Parameter residual: nil, or (Winograd only) a tensor of the output's shape added after the activation.
    public func run(input: Tensor, output: Tensor, residual: Tensor? = nil, threads: Int = Parallel.defaultThreads) {
        guard let expected = outputShape(for: input.shape) else {
            preconditionFailure("conv \(inputChannels)→\(outputChannels) cannot take an input of shape \(input.shape)")
        }
        precondition(input !== output, "conv cannot run in place")
        let source = ConvSource(data: input.data, channels: input.shape.c)
        withUnsafePointer(to: source) { pointer in
            run(sources: UnsafeBufferPointer(start: pointer, count: 1), shape: input.shape, expected: expected,
                output: output, residual: residual, threads: threads)
        }
    }

    /// Convolves the channel concatenation of `inputs` (same N, H, W; channels summing to
    /// `inputChannels`, in order) without materialising it: the fused form of `concat` then `conv`.
    /// Only where `readsConcatenatedInputs`; allocates nothing; no input may be `output`.
    /// - Parameter residual: nil, or (Winograd only) a tensor of the output's shape added after the activation.
    public func run(concatenating inputs: ArraySlice<Tensor>, output: Tensor, residual: Tensor? = nil,
                    threads: Int = Parallel.defaultThreads) {
        precondition(readsConcatenatedInputs, "only a Winograd or a dense 1×1 convolution reads concatenated inputs")
        guard let first = inputs.first?.shape,
              inputs.allSatisfy({ $0.shape.n == first.n && $0.shape.h == first.h && $0.shape.w == first.w }),
              case let shape = TensorShape(n: first.n, h: first.h, w: first.w, c: inputs.reduce(0) { $0 + $1.shape.c }),
              let expected = outputShape(for: shape)
        else { preconditionFailure("conv \(inputChannels)→\(outputChannels) cannot take inputs \(inputs.map(\.shape))") }
        precondition(inputs.allSatisfy { $0 !== output }, "conv cannot run in place")
        withUnsafeTemporaryAllocation(of: ConvSource.self, capacity: inputs.count) { sources in
            for (index, tensor) in zip(sources.indices, inputs) {
                sources.initializeElement(at: index, to: ConvSource(data: tensor.data, channels: tensor.shape.c))
            }
            run(sources: UnsafeBufferPointer(sources), shape: shape, expected: expected, output: output,
                residual: residual, threads: threads)
        }
    }

    private func run(sources: UnsafeBufferPointer<ConvSource>, shape: TensorShape, expected: TensorShape,
                     output: Tensor, residual: Tensor?, threads: Int) {
        precondition(output.shape == expected, "conv output shape \(output.shape) must be \(expected)")
        precondition(residual == nil || (isWinograd && residual?.shape == expected && residual !== output),
                     "conv residual must be a separate tensor of the output's shape, on a Winograd convolution")
        let geometry = ConvGeometry(conv: self, input: shape, output: expected, padding: padding(for: shape))
        withExtendedLifetime(packed) {
            switch packed.layout {
            case .depthwise: runDepthwise(geometry, input: sources[0].data, output: output.data, threads: threads)
            case .dot: runDot(geometry, input: sources[0].data, output: output.data, threads: threads)
            case .blocked where pointwiseCan(geometry):
                runPointwise(geometry, sources: sources, output: output.data, threads: threads)
            case .blocked where sources.count > 1:
                runPointwiseConcatenated(geometry, sources: sources, output: output.data, threads: threads)
            case .blocked: runDirect(geometry, input: sources[0].data, output: output.data, threads: threads)
            case .winograd:
                runWinograd(geometry, sources: sources, residual: residual.map { UnsafePointer($0.data) },
                            output: output.data, threads: threads)
            }
        }
    }
}

/// How a convolution is computed.
public enum ConvAlgorithm: Sendable, Hashable {
    /// Winograd where `winogradTile(for:…)` says so, else the direct (or depthwise / dot) kernel.
    case automatic
    /// The direct kernel (or the depthwise / few-output kernel its grouping calls for).
    case direct
    /// Winograd F(m×m, 3×3) with output tile m = 2 or 4; the convolution must be dense 3×3 stride 1
    /// (any dilation and padding).
    case winograd(tile: Int)

    /// True when Winograd can compute the convolution: dense, 3×3, stride 1 (any dilation and padding).
    public static func winogradCan(_ p: Conv2DParameters) -> Bool {
        p.kernelHeight == 3 && p.kernelWidth == 3 && p.strideY == 1 && p.strideX == 1 && p.groups == 1
    }

    /// The rule `.automatic` follows: the Winograd output tile for a dense 3×3 stride-1 convolution
    /// with at least 16 input and 16 output channels — F(4×4, 3×3) at dilation 1, F(2×2, 3×3) at
    /// dilation 2 — and nil (direct) otherwise. Measured with `lift-bench kernels` on U²-Net-small's
    /// layers (Benchmarks/RESULTS.md): F(4×4) runs its dilation-1 layers 1.9–2.7× faster than the
    /// direct kernel, F(2×2) its 20×20 dilation-2 layer 1.1–1.4×. Below 16 channels the transforms
    /// cost more than the multiplies they save (≤ 8 outputs go to the few-output kernel); at dilation
    /// 4 and 8 on small maps most taps fall in the padding, which the direct kernel skips and Winograd
    /// computes (0.7–0.85× at 20×20); F(4×4)'s 4d-wide periods are too coarse for the small maps
    /// dilated layers run on.
    public static func winogradTile(for p: Conv2DParameters, inputChannels: Int, outputChannels: Int) -> Int? {
        guard winogradCan(p), inputChannels >= 16, outputChannels >= 16, p.dilationY <= 2, p.dilationX <= 2 else { return nil }
        return p.dilationY == 1 && p.dilationX == 1 ? 4 : 2
    }
}
