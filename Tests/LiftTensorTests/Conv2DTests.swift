import LiftTensor
import Testing
import TestSupport

/// One convolution case: input `[n, h, w, cin]`, `cout` outputs, and its parameters.
struct ConvCase: CustomStringConvertible, Sendable {
    var name: String
    var n = 1, h: Int, w: Int, cin: Int, cout: Int
    var parameters: Conv2DParameters
    var description: String { name }
}

let convCases: [ConvCase] = [
    ConvCase(name: "3x3 16→16 same", h: 11, w: 13, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, activation: .relu)),
    ConvCase(name: "3x3 64→16 pad 1", h: 9, w: 10, cin: 64, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)))),
    ConvCase(name: "3x3 16→16 dilation 2", h: 12, w: 9, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2, padding: .explicit(.init(top: 2, left: 2, bottom: 2, right: 2)))),
    ConvCase(name: "3x3 16→16 dilation 4", h: 10, w: 10, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 4, dilationX: 4, padding: .explicit(.init(top: 4, left: 4, bottom: 4, right: 4)), activation: .relu)),
    ConvCase(name: "3x3 32→16 dilation 8 on 5×6", h: 5, w: 6, cin: 32, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 8, dilationX: 8, padding: .explicit(.init(top: 8, left: 8, bottom: 8, right: 8)))),
    ConvCase(name: "3x3 3→5 stride 2 asymmetric same", h: 16, w: 15, cin: 3, cout: 5,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, activation: .hardswish)),
    ConvCase(name: "5x5 7→9 padding 3 on 1×1", h: 1, w: 1, cin: 7, cout: 9,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .explicit(.init(top: 3, left: 3, bottom: 3, right: 3)), activation: .sigmoid)),
    ConvCase(name: "3x3 12→20 on 1×17", h: 1, w: 17, cin: 12, cout: 20,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, activation: .relu6)),
    ConvCase(name: "7x7 3→18 stride 2 pad 3", n: 2, h: 13, w: 14, cin: 3, cout: 18,
             parameters: .init(kernelHeight: 7, kernelWidth: 7, strideY: 2, strideX: 2, padding: .explicit(.init(top: 3, left: 3, bottom: 3, right: 3)))),
    ConvCase(name: "1x1 24→70 pointwise", n: 2, h: 7, w: 9, cin: 24, cout: 70,
             parameters: .init(kernelHeight: 1, kernelWidth: 1, activation: .relu)),
    ConvCase(name: "1x1 64→64 stride 2", h: 9, w: 9, cin: 64, cout: 64,
             parameters: .init(kernelHeight: 1, kernelWidth: 1, strideY: 2, strideX: 2)),
    ConvCase(name: "3x3 48→40 asymmetric explicit", h: 8, w: 11, cin: 48, cout: 40,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 0, left: 2, bottom: 3, right: 1)))),
    ConvCase(name: "3x3 64→1 side output (dot)", h: 13, w: 11, cin: 64, cout: 1,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), activation: .sigmoid)),
    ConvCase(name: "3x3 32→6 grouped 2 dilation 2 stride 2 (dot)", n: 2, h: 9, w: 12, cin: 32, cout: 6,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, dilationY: 2, dilationX: 2, padding: .same, groups: 2)),
    ConvCase(name: "1x1 6→1 fusion (dot, masked tail)", n: 2, h: 9, w: 11, cin: 6, cout: 1, parameters: .init(kernelHeight: 1, kernelWidth: 1)),
    ConvCase(name: "3x3 21→4 stride 2 same (dot, masked tail)", h: 10, w: 13, cin: 21, cout: 4,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, activation: .relu)),
    ConvCase(name: "1x1 16→8 on 1×1 (dot)", h: 1, w: 1, cin: 16, cout: 8, parameters: .init(kernelHeight: 1, kernelWidth: 1)),
    ConvCase(name: "3x5 grouped 2", h: 7, w: 8, cin: 10, cout: 6,
             parameters: .init(kernelHeight: 3, kernelWidth: 5, padding: .same, groups: 2)),
    ConvCase(name: "depthwise 3x3 24", h: 9, w: 20, cin: 24, cout: 24,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 24, activation: .relu)),
    ConvCase(name: "depthwise 3x3 16 stride 2 same", h: 12, w: 19, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 16)),
    ConvCase(name: "depthwise 5x5 72 stride 2 same", n: 2, h: 10, w: 21, cin: 72, cout: 72,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, strideY: 2, strideX: 2, padding: .same, groups: 72, activation: .hardswish)),
    ConvCase(name: "depthwise 5x5 40 same on 7×26", h: 7, w: 26, cin: 40, cout: 40,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 40, activation: .relu6)),
    ConvCase(name: "depthwise 3x3 dilation 2 on 1×30", h: 1, w: 30, cin: 5, cout: 5,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2, padding: .same, groups: 5)),
    ConvCase(name: "depthwise 7x1 33", h: 9, w: 12, cin: 33, cout: 33,
             parameters: .init(kernelHeight: 7, kernelWidth: 1, padding: .explicit(.init(top: 4, left: 0, bottom: 2, right: 0)), groups: 33)),
    // Row-window kernel (3×3 / 5×5, stride 1 / 2, rows ≥ 8 outputs wide): edge tiles, a last tile that
    // overlaps its neighbour, partial channel blocks, rows wholly in the padding; and the small images
    // that take the gather kernel.
    // (One channel with groups 1 is a dense convolution; two is the fewest a depthwise one has.)
    ConvCase(name: "depthwise 3x3 2 channels same on 7×9", n: 2, h: 7, w: 9, cin: 2, cout: 2,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 2, activation: .relu)),
    ConvCase(name: "depthwise 3x3 5 stride 2 same on 9×23", h: 9, w: 23, cin: 5, cout: 5,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 5, activation: .hardswish)),
    ConvCase(name: "depthwise 5x5 17 same on 1×19", h: 1, w: 19, cin: 17, cout: 17,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 17, activation: .relu6)),
    ConvCase(name: "depthwise 5x5 16 stride 2 same (asymmetric) on 16×17", n: 2, h: 16, w: 17, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, strideY: 2, strideX: 2, padding: .same, groups: 16, activation: .sigmoid)),
    ConvCase(name: "depthwise 3x3 72 stride 2 pad 3 on 6×20", h: 6, w: 20, cin: 72, cout: 72,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .explicit(.init(top: 3, left: 3, bottom: 3, right: 3)), groups: 72)),
    ConvCase(name: "depthwise 5x5 33 pad 4 on 3×12", h: 3, w: 12, cin: 33, cout: 33,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .explicit(.init(top: 4, left: 4, bottom: 4, right: 4)), groups: 33, activation: .hardswish)),
    ConvCase(name: "depthwise 3x3 17 asymmetric explicit on 5×18", h: 5, w: 18, cin: 17, cout: 17,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 0, left: 2, bottom: 1, right: 0)), groups: 17, activation: .relu6)),
    ConvCase(name: "depthwise 5x5 16 stride 1×2 on 10×33", h: 10, w: 33, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, strideY: 1, strideX: 2, padding: .same, groups: 16, activation: .sigmoid)),
    ConvCase(name: "depthwise 3x3 16 stride 2×1 on 9×12", n: 2, h: 9, w: 12, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 1, padding: .same, groups: 16)),
    ConvCase(name: "depthwise 5x5 16 same on 6×11", h: 6, w: 11, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 16, activation: .relu6)),
    ConvCase(name: "depthwise 3x3 16 pad 2 on 4×8", h: 4, w: 8, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 2, left: 2, bottom: 2, right: 2)), groups: 16, activation: .hardswish)),
    ConvCase(name: "depthwise 3x3 33 dilation 2 on 9×20", h: 9, w: 20, cin: 33, cout: 33,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2, padding: .same, groups: 33, activation: .relu)),
    ConvCase(name: "depthwise 3x3 16 pad 1 on 1×1", h: 1, w: 1, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), groups: 16, activation: .hardswish)),
    ConvCase(name: "depthwise 5x5 33 same on 2×2", h: 2, w: 2, cin: 33, cout: 33,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 33, activation: .sigmoid)),
    ConvCase(name: "depthwise 3x3 72 stride 2 same on 2×2", n: 2, h: 2, w: 2, cin: 72, cout: 72,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 72, activation: .relu)),
    // Channel counts with a compiled row kernel (16, 24, 72, 88, 96, 128, 192, 256, 384, 512: the pixel
    // stride a constant), their neighbours (the run-time kernels), half blocks, both strides.
    ConvCase(name: "depthwise 3x3 24 stride 2 same on 6×21", h: 6, w: 21, cin: 24, cout: 24,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 24, activation: .relu)),
    ConvCase(name: "depthwise 3x3 25 pad 1 on 4×12", h: 4, w: 12, cin: 25, cout: 25,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), groups: 25)),
    ConvCase(name: "depthwise 3x3 88 same on 5×19", n: 2, h: 5, w: 19, cin: 88, cout: 88,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 88, activation: .relu)),
    ConvCase(name: "depthwise 3x3 87 same on 5×19", h: 5, w: 19, cin: 87, cout: 87,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 87, activation: .relu)),
    ConvCase(name: "depthwise 3x3 72 stride 2 same on 7×23", h: 7, w: 23, cin: 72, cout: 72,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 72, activation: .relu6)),
    ConvCase(name: "depthwise 3x3 73 stride 2 same on 7×23", h: 7, w: 23, cin: 73, cout: 73,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same, groups: 73)),
    ConvCase(name: "depthwise 3x3 72 pad 2 on 4×9", h: 4, w: 9, cin: 72, cout: 72,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 2, left: 2, bottom: 2, right: 2)), groups: 72)),
    ConvCase(name: "depthwise 5x5 96 stride 2 same on 9×20", h: 9, w: 20, cin: 96, cout: 96,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, strideY: 2, strideX: 2, padding: .same, groups: 96, activation: .hardswish)),
    // Rows wider than `maxWindowRowWidth` take the gather path, whose scratch does not grow with the width.
    ConvCase(name: "depthwise 3x3 20 same on 2×8200", h: 2, w: 8200, cin: 20, cout: 20,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 20)),
    ConvCase(name: "depthwise 5x5 128 same on 6×10", h: 6, w: 10, cin: 128, cout: 128,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 128, activation: .hardswish)),
    ConvCase(name: "depthwise 5x5 112 same on 6×10", h: 6, w: 10, cin: 112, cout: 112,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 112, activation: .sigmoid)),
    ConvCase(name: "depthwise 5x5 192 stride 2 same on 6×17", h: 6, w: 17, cin: 192, cout: 192,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, strideY: 2, strideX: 2, padding: .same, groups: 192, activation: .hardswish)),
    ConvCase(name: "depthwise 5x5 512 same on 3×8", h: 3, w: 8, cin: 512, cout: 512,
             parameters: .init(kernelHeight: 5, kernelWidth: 5, padding: .same, groups: 512, activation: .hardswish)),
    ConvCase(name: "depthwise 3x3 256 stride 2×1 on 5×9", h: 5, w: 9, cin: 256, cout: 256,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 1, padding: .same, groups: 256, activation: .relu)),
]

/// Tolerance for every convolution: inputs in ±1, weights in ±1/√fan-in, so sums are O(1) and
/// Float32 accumulation over ≤ 1,600 terms stays well below 1e-4 of the Double reference.
let convTolerance: Float = 1e-4

private func makeConv(_ c: ConvCase, seed: UInt64, algorithm: ConvAlgorithm = .automatic) -> (Conv2D, Tensor, [Float], [Float]) {
    var values = SeededValues(seed: seed)
    let cinG = c.cin / c.parameters.groups
    let fanIn = Float(c.parameters.kernelHeight * c.parameters.kernelWidth * cinG)
    let weights = values.array(c.cout * c.parameters.kernelHeight * c.parameters.kernelWidth * cinG, scale: 1 / fanIn.squareRoot())
    let bias = values.array(c.cout, scale: 0.5)
    let conv = Conv2D(weights: weights, bias: bias, inputChannels: c.cin, outputChannels: c.cout, parameters: c.parameters,
                      algorithm: algorithm)
    return (conv, values.tensor(c.n, c.h, c.w, c.cin), weights, bias)
}

/// Every case through the automatic choice (Winograd for the dense 3×3 stride-1 ones with 16+
/// channels) and through the direct kernel, which those cases would otherwise no longer reach.
@Test(arguments: convCases, [ConvAlgorithm.automatic, .direct])
func conv2DMatchesReference(_ c: ConvCase, algorithm: ConvAlgorithm) throws {
    let (conv, input, weights, bias) = makeConv(c, seed: 7, algorithm: algorithm)
    let expected = ReferenceKernels.conv2d(input: input, weights: weights, bias: bias, outputChannels: c.cout, parameters: c.parameters)
    let shape = try #require(conv.outputShape(for: input.shape))
    #expect(shape == expected.shape)
    let output = Tensor(shape: shape)
    conv.run(input: input, output: output, threads: 2)
    #expect(maxAbsDifference(output, expected) <= convTolerance)
}

@Test(arguments: convCases, [ConvAlgorithm.automatic, .direct])
func conv2DIsBitIdenticalAcrossThreadCounts(_ c: ConvCase, algorithm: ConvAlgorithm) throws {
    let (conv, input, _, _) = makeConv(c, seed: 11, algorithm: algorithm)
    let shape = try #require(conv.outputShape(for: input.shape))
    #expect(sameBitsAtAnyThreadCount(shape: shape) { conv.run(input: input, output: $0, threads: $1) })
}

@Test(arguments: convCases, [ConvAlgorithm.automatic, .direct])
func packedSizeIsKnownBeforePacking(_ c: ConvCase, algorithm: ConvAlgorithm) {
    let (conv, _, _, _) = makeConv(c, seed: 3, algorithm: algorithm)
    #expect(Conv2D.packedElementCount(inputChannels: c.cin, outputChannels: c.cout, parameters: c.parameters, algorithm: algorithm)
            == conv.packedElementCount)
}

@Test func conv2DRejectsWrongChannelsAndTooSmallInputs() {
    let conv = Conv2D(weights: [Float](repeating: 0.5, count: 4 * 9 * 3), bias: nil, inputChannels: 3, outputChannels: 4,
                      parameters: .init(kernelHeight: 3, kernelWidth: 3))
    #expect(conv.outputShape(for: TensorShape(n: 1, h: 8, w: 8, c: 2)) == nil)
    #expect(conv.outputShape(for: TensorShape(n: 1, h: 2, w: 8, c: 3)) == nil)
    #expect(conv.outputShape(for: TensorShape(n: 1, h: 3, w: 8, c: 3)) == TensorShape(n: 1, h: 1, w: 6, c: 4))
}

@Test func samePaddingPutsTheSmallerHalfFirst() {
    // in 16, k 3, stride 2: out 8, total = 7·2 + 3 − 16 = 1 → (0, 1).
    #expect(Padding.sameAxis(input: 16, kernel: 3, stride: 2, dilation: 1) == (0, 1))
    #expect(Padding.sameAxis(input: 15, kernel: 3, stride: 2, dilation: 1) == (1, 1))
    #expect(Padding.sameAxis(input: 10, kernel: 3, stride: 1, dilation: 4) == (4, 4))
    #expect(Padding.sameAxis(input: 10, kernel: 1, stride: 3, dilation: 1) == (0, 0))
}

@Test func fewOutputChannelConvIgnoresTheNextPixelsChannels() {
    // Cin 6 is read as one masked 16-lane vector: lanes 6… hold the next pixel, here infinite.
    let conv = Conv2D(weights: [1, 2, 3, 4, 5, 6], bias: [0.5], inputChannels: 6, outputChannels: 1,
                      parameters: .init(kernelHeight: 1, kernelWidth: 1))
    let input = Tensor(shape: TensorShape(n: 1, h: 1, w: 2, c: 6), values: [1, 1, 1, 1, 1, 1] + [Float](repeating: .infinity, count: 6))
    let output = Tensor(shape: TensorShape(n: 1, h: 1, w: 2, c: 1))
    conv.run(input: input, output: output, threads: 1)
    #expect(output[0, 0, 0, 0] == 21.5)
    #expect(output[0, 0, 1, 0] == .infinity)
}

/// Input depths of the 1×1 small-depth tiles (16, 24, 32 compile-time; 17, 31, 72 read at run time)
/// for the pointwise-kernel tests below.
let pointwiseDepths = [16, 17, 24, 31, 32, 72]

/// Output counts: 16-lane blocks in chunks of 4, 2, 1, a trailing 8-channel half block (24, 40, 72,
/// 88), and counts that are not a multiple of 8 (20, 70: the direct kernel's lane-masked stores).
let pointwiseOutputs = [16, 20, 24, 32, 40, 48, 70, 72, 88, 96, 128]

/// Images of 1 pixel, one row of 13, and 2 × 7 × 9 = 126 pixels (a 96-pixel band, then 3 tiles of
/// 8 and single pixels).
let pointwiseImages: [(n: Int, h: Int, w: Int)] = [(1, 1, 1), (1, 1, 13), (2, 7, 9)]

@Test(arguments: pointwiseDepths)
func pointwiseConvMatchesReference(depth: Int) throws {
    var values = SeededValues(seed: UInt64(depth))
    for cout in pointwiseOutputs {
        for activation in Activation.allCases {
            let image = pointwiseImages[(cout + activation.rawValue.count) % pointwiseImages.count]
            let c = ConvCase(name: "1x1 \(depth)→\(cout) \(activation)", n: image.n, h: image.h, w: image.w, cin: depth, cout: cout,
                             parameters: .init(kernelHeight: 1, kernelWidth: 1, activation: activation))
            let (conv, input, weights, bias) = makeConv(c, seed: values.seed())
            let expected = ReferenceKernels.conv2d(input: input, weights: weights, bias: bias, outputChannels: cout, parameters: c.parameters)
            let output = Tensor(shape: expected.shape)
            conv.run(input: input, output: output, threads: 2)
            #expect(maxAbsDifference(output, expected) <= convTolerance, "\(c)")
        }
    }
}

@Test(arguments: pointwiseDepths)
func pointwiseConvIsBitIdenticalAcrossThreadCounts(depth: Int) throws {
    var values = SeededValues(seed: UInt64(depth) + 100)
    for cout in pointwiseOutputs {
        let activation = Activation.allCases[cout % Activation.allCases.count]
        let c = ConvCase(name: "1x1 \(depth)→\(cout) \(activation)", n: 2, h: 7, w: 9, cin: depth, cout: cout,
                         parameters: .init(kernelHeight: 1, kernelWidth: 1, activation: activation))
        let (conv, input, _, _) = makeConv(c, seed: values.seed())
        let shape = try #require(conv.outputShape(for: input.shape))
        #expect(sameBitsAtAnyThreadCount(shape: shape) { conv.run(input: input, output: $0, threads: $1) }, "\(c)")
    }
}

/// The pointwise kernel (one input tensor) and the concatenated-input kernel form every sum in the same
/// order: their results agree bit for bit, for compile-time depths and half blocks too.
@Test(arguments: [16, 24, 32], Activation.allCases)
func pointwiseConvMatchesConcatenatedInputsBitForBit(depth: Int, activation: Activation) throws {
    var values = SeededValues(seed: UInt64(depth) + 200)
    let parts = [depth / 2, depth - depth / 2].map { values.tensor(1, 9, 13, $0) }
    let joined = Tensor(shape: TensorShape(n: 1, h: 9, w: 13, c: depth))
    Concat.run(inputs: parts, output: joined, threads: 1)
    for cout in [16, 24, 72, 128] {
        let conv = Conv2D(weights: values.array(cout * depth, scale: 0.25), bias: values.array(cout, scale: 0.5),
                          inputChannels: depth, outputChannels: cout,
                          parameters: Conv2DParameters(kernelHeight: 1, kernelWidth: 1, activation: activation))
        let shape = try #require(conv.outputShape(for: joined.shape))
        let single = Tensor(shape: shape), fused = Tensor(shape: shape)
        conv.run(input: joined, output: single, threads: 1)
        conv.run(concatenating: parts[...], output: fused, threads: 1)
        #expect(bitIdentical(single, fused), "\(depth)→\(cout) \(activation)")
    }
}
