import LiftTensor
import Testing
import TestSupport

struct ResizeCase: CustomStringConvertible, Sendable {
    var h: Int, w: Int, c: Int, outH: Int, outW: Int
    var coordinates: ResizeCoordinates
    var description: String { "\(h)×\(w)×\(c) → \(outH)×\(outW) \(coordinates.rawValue)" }
}

let resizeCases: [ResizeCase] = ResizeCoordinates.allCasesForTests.flatMap { mode in [
    ResizeCase(h: 5, w: 7, c: 3, outH: 10, outW: 14, coordinates: mode),
    ResizeCase(h: 20, w: 20, c: 16, outH: 320, outW: 40, coordinates: mode),
    ResizeCase(h: 9, w: 6, c: 17, outH: 4, outW: 5, coordinates: mode),
    ResizeCase(h: 1, w: 1, c: 2, outH: 3, outW: 1, coordinates: mode),
    ResizeCase(h: 1, w: 8, c: 1, outH: 1, outW: 13, coordinates: mode),
] }

extension ResizeCoordinates {
    static let allCasesForTests: [ResizeCoordinates] = [.halfPixel, .alignCorners, .asymmetric]
}

@Test(arguments: resizeCases)
func bilinearResizeMatchesReference(_ c: ResizeCase) {
    var values = SeededValues(seed: 9)
    let input = values.tensor(1, c.h, c.w, c.c)
    let output = Tensor(n: 1, h: c.outH, w: c.outW, c: c.c)
    Resize.bilinear(input: input, output: output, coordinates: c.coordinates, threads: 2)
    let expected = ReferenceKernels.resizeBilinear(input: input, height: c.outH, width: c.outW, coordinates: c.coordinates)
    // Coordinates are computed in Float32 (as PyTorch does for float tensors): a source position near
    // `in` is off by up to ulp(in)/2, and the weight error multiplies neighbour differences up to 2,
    // so the bound is 2·ulp(max(in)) plus a few ulps of the ±1 values themselves.
    let tolerance = 2 * Float(max(c.h, c.w)).ulp + 1e-6
    #expect(maxAbsDifference(output, expected) <= tolerance)
}

@Test(arguments: resizeCases)
func nearestResizeMatchesReference(_ c: ResizeCase) {
    var values = SeededValues(seed: 10)
    let input = values.tensor(2, c.h, c.w, c.c)
    let output = Tensor(n: 2, h: c.outH, w: c.outW, c: c.c)
    Resize.nearest(input: input, output: output, coordinates: c.coordinates, threads: 2)
    let expected = ReferenceKernels.resizeNearest(input: input, height: c.outH, width: c.outW, coordinates: c.coordinates)
    #expect(maxAbsDifference(output, expected) == 0)
}

@Test func bilinearUpsampleByTwoMatchesPyTorchValues() {
    // torch.nn.functional.interpolate(torch.tensor([[[[0., 1.]]]]), size=(1, 4), mode="bilinear", align_corners=False)
    // → [0, 0.25, 0.75, 1]; with align_corners=True → [0, 1/3, 2/3, 1].
    let input = Tensor(shape: TensorShape(n: 1, h: 1, w: 2, c: 1), values: [0, 1])
    let output = Tensor(n: 1, h: 1, w: 4, c: 1)
    Resize.bilinear(input: input, output: output, coordinates: .halfPixel)
    #expect(output.toArray() == [0, 0.25, 0.75, 1])
    Resize.bilinear(input: input, output: output, coordinates: .alignCorners)
    #expect(zip(output.toArray(), [0, 1.0 / 3, 2.0 / 3, 1]).allSatisfy { abs($0 - Float($1)) < 1e-6 })
}

/// A fused activation gives the same bits as the resize followed by the standalone op, for one
/// channel (its 16-pixel path) and several, and any split of the rows.
@Test(arguments: [1, 17])
func bilinearResizeWithActivationEqualsResizeThenUnaryOp(channels: Int) {
    var values = SeededValues(seed: 12)
    let input = values.tensor(2, 9, 11, channels)
    let resized = Tensor(n: 2, h: 20, w: 37, c: channels), expected = Tensor(n: 2, h: 20, w: 37, c: channels)
    Resize.bilinear(input: input, output: resized, coordinates: .halfPixel, threads: 1)
    UnaryOp.sigmoid.run(input: resized, output: expected, threads: 1)
    let fused = Tensor(n: 2, h: 20, w: 37, c: channels)
    WorkGate.$splitsAnyWork.withValue(true) {
        Resize.bilinear(input: input, output: fused, coordinates: .halfPixel, activation: .sigmoid, threads: 3)
    }
    #expect(bitIdentical(fused, expected))
    let reference = ReferenceKernels.resizeBilinear(input: input, height: 20, width: 37, coordinates: .halfPixel)
    #expect(maxAbsDifference(resized, reference) <= 2 * Float(11).ulp + 1e-6)
}
