import LiftTensor
import Testing
import TestSupport

struct TransposedConvCase: CustomStringConvertible, Sendable {
    var name: String
    var n = 1, h: Int, w: Int, cin: Int, cout: Int, kernel: (Int, Int), stride: (Int, Int)
    var cropping: TransposedConvCropping
    /// The crop (top, left, bottom, right) the reference applies, written out by hand.
    var crop: (Int, Int, Int, Int)
    var activation: Activation = .none
    var description: String { name }
}

let transposedConvCases: [TransposedConvCase] = [
    .init(name: "2x2 stride 2 16→8", h: 5, w: 7, cin: 16, cout: 8, kernel: (2, 2), stride: (2, 2), cropping: .valid, crop: (0, 0, 0, 0)),
    .init(name: "2x2 stride 2 same 3→17 relu", n: 2, h: 4, w: 3, cin: 3, cout: 17, kernel: (2, 2), stride: (2, 2), cropping: .same, crop: (0, 0, 0, 0), activation: .relu),
    .init(name: "3x3 stride 2 same", h: 6, w: 5, cin: 5, cout: 4, kernel: (3, 3), stride: (2, 2), cropping: .same, crop: (0, 0, 1, 1)),
    .init(name: "4x4 stride 2 pytorch padding 1", h: 3, w: 4, cin: 6, cout: 20, kernel: (4, 4), stride: (2, 2),
          cropping: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), crop: (1, 1, 1, 1), activation: .sigmoid),
    .init(name: "1x1 stride 2 same grows past full", h: 3, w: 1, cin: 2, cout: 3, kernel: (1, 1), stride: (2, 2), cropping: .same, crop: (0, 0, -1, -1)),
    .init(name: "2x2 stride 2 32→1 (input channels as lanes)", h: 6, w: 5, cin: 32, cout: 1, kernel: (2, 2), stride: (2, 2),
          cropping: .valid, crop: (0, 0, 0, 0), activation: .sigmoid),
    .init(name: "2x2 stride 2 16→2 cropped (input channels as lanes, disjoint)", n: 2, h: 3, w: 4, cin: 16, cout: 2, kernel: (2, 2),
          stride: (2, 2), cropping: .explicit(.init(top: 1, left: 0, bottom: 0, right: 1)), crop: (1, 0, 0, 1)),
    .init(name: "2x2 stride 2 same 16→1 sigmoid (the selfie model's head; vector sigmoid pass, odd width)", n: 2, h: 3, w: 7,
          cin: 16, cout: 1, kernel: (2, 2), stride: (2, 2), cropping: .same, crop: (0, 0, 0, 0), activation: .sigmoid),
    .init(name: "2x2 stride 2 same 32→1 sigmoid on 3×19 (16 outputs per 8 pixels, then 3 scalar pixels)", n: 2, h: 3, w: 19,
          cin: 32, cout: 1, kernel: (2, 2), stride: (2, 2), cropping: .same, crop: (0, 0, 0, 0), activation: .sigmoid),
    .init(name: "2x2 stride 2 16→1 rows cropped on 4×16 relu6", h: 4, w: 16, cin: 16, cout: 1, kernel: (2, 2), stride: (2, 2),
          cropping: .explicit(.init(top: 1, left: 0, bottom: 1, right: 0)), crop: (1, 0, 1, 0), activation: .relu6),
    .init(name: "2x2 stride 2 16→1 column cropped on 2×17 (not the 8-pixel path)", h: 2, w: 17, cin: 16, cout: 1, kernel: (2, 2),
          stride: (2, 2), cropping: .explicit(.init(top: 0, left: 1, bottom: 0, right: 0)), crop: (0, 1, 0, 0)),
    .init(name: "2x2 stride 2 48→3 hardswish (activation pass with a partial last vector)", h: 2, w: 5, cin: 48, cout: 3, kernel: (2, 2),
          stride: (2, 2), cropping: .valid, crop: (0, 0, 0, 0), activation: .hardswish),
    .init(name: "3x3 stride 2 same 16→3 (input channels as lanes)", h: 4, w: 7, cin: 16, cout: 3, kernel: (3, 3), stride: (2, 2),
          cropping: .same, crop: (0, 0, 1, 1)),
    .init(name: "3x2 stride 1x3 on 1×1", h: 1, w: 1, cin: 4, cout: 5, kernel: (3, 2), stride: (1, 3), cropping: .valid, crop: (0, 0, 0, 0)),
]

@Test(arguments: transposedConvCases)
func convTranspose2DMatchesReference(_ c: TransposedConvCase) throws {
    var values = SeededValues(seed: 3)
    let weights = values.array(c.cout * c.kernel.0 * c.kernel.1 * c.cin, scale: 0.5)
    let bias = values.array(c.cout, scale: 0.5)
    let input = values.tensor(c.n, c.h, c.w, c.cin)
    let conv = ConvTranspose2D(weights: weights, bias: bias, inputChannels: c.cin, outputChannels: c.cout,
                               kernelHeight: c.kernel.0, kernelWidth: c.kernel.1, strideY: c.stride.0, strideX: c.stride.1,
                               cropping: c.cropping, activation: c.activation)
    let expected = ReferenceKernels.convTranspose2d(input: input, weights: weights, bias: bias, outputChannels: c.cout,
                                                    kernel: c.kernel, stride: c.stride, crop: c.crop, activation: c.activation)
    let shape = try #require(conv.outputShape(for: input.shape))
    #expect(shape == expected.shape)
    let one = Tensor(shape: shape), many = Tensor(shape: shape)
    conv.run(input: input, output: one, threads: 1)
    WorkGate.$splitsAnyWork.withValue(true) { conv.run(input: input, output: many, threads: 3) }
    // Sums of ≤ 9·32 products of values in ±1 and ±0.5 (typical magnitude ~5, Float32 rounding ~1e-6).
    #expect(maxAbsDifference(one, expected) <= 1e-5)
    #expect(bitIdentical(one, many))
    #expect(ConvTranspose2D.packedElementCount(inputChannels: c.cin, outputChannels: c.cout, kernelHeight: c.kernel.0,
                                               kernelWidth: c.kernel.1) == conv.packedElementCount)
}

@Test func convTranspose2DSameDoublesTheSize() throws {
    let conv = ConvTranspose2D(weights: [Float](repeating: 1, count: 2 * 3 * 3 * 2), bias: nil, inputChannels: 2, outputChannels: 2,
                               kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, cropping: .same)
    #expect(conv.outputShape(for: TensorShape(n: 1, h: 5, w: 7, c: 2)) == TensorShape(n: 1, h: 10, w: 14, c: 2))
    #expect(conv.outputShape(for: TensorShape(n: 1, h: 5, w: 7, c: 3)) == nil)
}
