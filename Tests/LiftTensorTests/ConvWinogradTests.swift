import LiftTensor
import Testing
import TestSupport

/// Winograd F(2×2, 3×3) and F(4×4, 3×3) forced onto odd shapes: channels that are not a multiple of 16, 1×1 and 1×N
/// images, odd sizes whose last tiles hang over the edge, dilation 2/4/8, padding wider than the
/// kernel's half, batches of 2.
let winogradCases: [ConvCase] = [
    ConvCase(name: "12→20 on 1×17 same", h: 1, w: 17, cin: 12, cout: 20,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .same, activation: .relu6)),
    ConvCase(name: "5→3 on 1×1 pad 1", h: 1, w: 1, cin: 5, cout: 3,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)))),
    ConvCase(name: "20→33 on 7×9 pad 1, batch 2", n: 2, h: 7, w: 9, cin: 20, cout: 33,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), activation: .relu)),
    ConvCase(name: "17→16 valid on 9×6", h: 9, w: 6, cin: 17, cout: 16, parameters: .init(kernelHeight: 3, kernelWidth: 3)),
    ConvCase(name: "16→48 dilation 2 on 13×11", h: 13, w: 11, cin: 16, cout: 48,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2, padding: .explicit(.init(top: 2, left: 2, bottom: 2, right: 2)), activation: .relu)),
    ConvCase(name: "24→16 dilation 4 on 10×19", h: 10, w: 19, cin: 24, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 4, dilationX: 4, padding: .explicit(.init(top: 4, left: 4, bottom: 4, right: 4)))),
    ConvCase(name: "16→16 dilation 8 on 20×20", h: 20, w: 20, cin: 16, cout: 16,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 8, dilationX: 8, padding: .explicit(.init(top: 8, left: 8, bottom: 8, right: 8)), activation: .relu)),
    ConvCase(name: "19→7 dilation 2×1 asymmetric pad 3", h: 6, w: 5, cin: 19, cout: 7,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 1, padding: .explicit(.init(top: 3, left: 0, bottom: 1, right: 2)), activation: .hardswish)),
    ConvCase(name: "128→64 on 6×70 pad 1 (several tile blocks per row)", h: 6, w: 70, cin: 128, cout: 64,
             parameters: .init(kernelHeight: 3, kernelWidth: 3, padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), activation: .sigmoid)),
]

/// Tolerance: the same 1e-4 as every convolution. The transforms' entries are small (F(2, 3): 0,
/// ±½, ±1; F(4, 3): up to 8 in Aᵀ, 5 in Bᵀ, 1/24 in G), so the Float32 error grows by a constant
/// factor over a direct sum's (Lavin & Gray; Barabasz et al. 2020: F(4, 3) loses about one more
/// digit than F(2, 3)). Measured on these cases against the Double reference: F(2, 3) ≤ 2.7e-7,
/// F(4, 3) ≤ 2.8e-6, the direct kernel ≤ 6.6e-7 — all far below 1e-4.
private func makeWinograd(_ c: ConvCase, seed: UInt64, tile: Int) -> (Conv2D, Tensor, [Float], [Float]) {
    var values = SeededValues(seed: seed)
    let fanIn = Float(9 * c.cin)
    let weights = values.array(c.cout * 9 * c.cin, scale: 1 / fanIn.squareRoot())
    let bias = values.array(c.cout, scale: 0.5)
    let conv = Conv2D(weights: weights, bias: bias, inputChannels: c.cin, outputChannels: c.cout,
                      parameters: c.parameters, algorithm: .winograd(tile: tile))
    return (conv, values.tensor(c.n, c.h, c.w, c.cin), weights, bias)
}

@Test(arguments: winogradCases, [2, 4])
func winogradMatchesReference(_ c: ConvCase, tile: Int) throws {
    let (conv, input, weights, bias) = makeWinograd(c, seed: 5, tile: tile)
    #expect(conv.isWinograd)
    let expected = ReferenceKernels.conv2d(input: input, weights: weights, bias: bias, outputChannels: c.cout, parameters: c.parameters)
    let shape = try #require(conv.outputShape(for: input.shape))
    #expect(shape == expected.shape)
    let output = Tensor(shape: shape)
    output.fill(.nan)
    conv.run(input: input, output: output, threads: 2)
    #expect(maxAbsDifference(output, expected) <= convTolerance)
}

@Test(arguments: winogradCases, [2, 4])
func winogradIsBitIdenticalAcrossThreadCounts(_ c: ConvCase, tile: Int) throws {
    let (conv, input, _, _) = makeWinograd(c, seed: 13, tile: tile)
    let shape = try #require(conv.outputShape(for: input.shape))
    #expect(sameBitsAtAnyThreadCount(shape: shape) { conv.run(input: input, output: $0, threads: $1) })
}

@Test func automaticRuleChoosesWinogradForDense3x3StrideOneSixteenChannelsDilationUpToTwo() {
    func tile(_ p: Conv2DParameters, _ cin: Int, _ cout: Int) -> Int? {
        ConvAlgorithm.winogradTile(for: p, inputChannels: cin, outputChannels: cout)
    }
    let plain = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, padding: .same)
    let dilated2 = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2, padding: .same)
    let dilated4 = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, dilationY: 4, dilationX: 4, padding: .same)
    let strided = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same)
    let grouped = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, padding: .same, groups: 2)
    #expect(tile(plain, 16, 16) == 4)
    #expect(tile(dilated2, 16, 16) == 2)
    #expect(tile(plain, 3, 64) == nil)
    #expect(tile(plain, 64, 1) == nil)
    #expect(tile(dilated4, 64, 64) == nil)
    #expect(tile(strided, 64, 64) == nil)
    #expect(tile(grouped, 64, 64) == nil)
    let direct = Conv2D(weights: [Float](repeating: 0, count: 16 * 9 * 16), bias: nil, inputChannels: 16, outputChannels: 16,
                        parameters: plain, algorithm: .direct)
    #expect(!direct.isWinograd)
}

/// Concatenated inputs (channel counts 7 + 16 + 9, so sources spill into each other's lanes) and a
/// residual give the same as `Concat`, the convolution and `BinaryOp.add` run one after the other.
@Test(arguments: [1, 2], [2, 4])
func winogradFusesConcatAndResidual(threads: Int, tile: Int) throws {
    var values = SeededValues(seed: 21)
    let parts = [7, 16, 9].map { values.tensor(1, 9, 11, $0) }
    let p = Conv2DParameters(kernelHeight: 3, kernelWidth: 3, dilationY: 2, dilationX: 2,
                             padding: .explicit(.init(top: 2, left: 2, bottom: 2, right: 2)), activation: .relu)
    let weights = values.array(20 * 9 * 32, scale: 0.06), bias = values.array(20, scale: 0.5)
    let conv = Conv2D(weights: weights, bias: bias, inputChannels: 32, outputChannels: 20, parameters: p,
                      algorithm: .winograd(tile: tile))
    let joined = Tensor(shape: TensorShape(n: 1, h: 9, w: 11, c: 32))
    Concat.run(inputs: parts, output: joined, threads: 1)
    let shape = try #require(conv.outputShape(for: joined.shape))
    let residual = values.tensor(1, shape.h, shape.w, 20)
    let separate = Tensor(shape: shape), sum = Tensor(shape: shape), fused = Tensor(shape: shape)
    conv.run(input: joined, output: separate, threads: threads)
    BinaryOp.add.run(a: separate, b: residual, output: sum, threads: 1)
    conv.run(concatenating: parts[...], output: fused, residual: residual, threads: threads)
    #expect(bitIdentical(fused, sum))
}

/// A dense 1×1 convolution reads concatenated inputs (7 + 16 + 9 + 1 channels) with the same bits
/// as `Concat` then the convolution, for 12, 20 and 64 outputs (tiles of 1, 2 and 4 blocks) and any split.
@Test(arguments: [12, 20, 64])
func pointwiseConvReadsConcatenatedInputs(outputs: Int) throws {
    var values = SeededValues(seed: 23)
    let parts = [7, 16, 9, 1].map { values.tensor(2, 5, 23, $0) }
    let weights = values.array(outputs * 33, scale: 0.2), bias = values.array(outputs, scale: 0.5)
    let conv = Conv2D(weights: weights, bias: bias, inputChannels: 33, outputChannels: outputs,
                      parameters: Conv2DParameters(kernelHeight: 1, kernelWidth: 1, activation: .relu6))
    #expect(conv.readsConcatenatedInputs && !conv.isWinograd)
    let joined = Tensor(shape: TensorShape(n: 2, h: 5, w: 23, c: 33))
    Concat.run(inputs: parts, output: joined, threads: 1)
    let shape = try #require(conv.outputShape(for: joined.shape))
    let separate = Tensor(shape: shape), fused = Tensor(shape: shape)
    conv.run(input: joined, output: separate, threads: 1)
    conv.run(concatenating: parts[...], output: fused, threads: 1)
    #expect(bitIdentical(fused, separate))
    WorkGate.$splitsAnyWork.withValue(true) { conv.run(concatenating: parts[...], output: fused, threads: 3) }
    #expect(bitIdentical(fused, separate))
}
