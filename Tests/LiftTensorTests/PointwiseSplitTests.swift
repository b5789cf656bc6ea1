import LiftTensor
import Testing
import TestSupport

// The pointwise kernel cuts small maps into bands balanced for the thread count (whole tiles, a
// multiple of the part count): these cases check that every pixel is computed, and by the same sum,
// whatever the split.

/// Maps that split differently from 96-pixel bands: 8×8 (one band before), 16×16 (three), 32×32
/// (eleven, the last short) and 2 × 13 × 11 = 286 pixels (no multiple of any tile).
private let smallMaps: [(n: Int, h: Int, w: Int)] = [(1, 8, 8), (1, 16, 16), (1, 32, 32), (2, 13, 11)]

/// Input → output channels of the MediaPipe selfie model's and the person decoder's 1×1 layers:
/// chunks of 2 blocks (→32), of 4 (→128, →64), 4 + 1 + a half block (→88), 1 + a half (→24), 4 + 4 + a half (→72).
@Test(arguments: [(96, 32), (32, 128), (24, 88), (72, 24), (256, 64), (16, 72)])
func pointwiseSmallMapsMatchReferenceAtAnySplit(cin: Int, cout: Int) throws {
    var values = SeededValues(seed: UInt64(cin * 1000 + cout))
    for (index, map) in smallMaps.enumerated() {
        let activation = Activation.allCases[(index + cout) % Activation.allCases.count]
        let parameters = Conv2DParameters(kernelHeight: 1, kernelWidth: 1, activation: activation)
        let weights = values.array(cout * cin, scale: 1 / Float(cin).squareRoot()), bias = values.array(cout, scale: 0.5)
        let conv = Conv2D(weights: weights, bias: bias, inputChannels: cin, outputChannels: cout, parameters: parameters)
        let input = values.tensor(map.n, map.h, map.w, cin)
        let expected = ReferenceKernels.conv2d(input: input, weights: weights, bias: bias, outputChannels: cout, parameters: parameters)
        let label = "\(map.n)×\(map.h)×\(map.w) \(cin)→\(cout) \(activation)"
        let one = Tensor(shape: expected.shape)
        conv.run(input: input, output: one, threads: 1)
        #expect(maxAbsDifference(one, expected) <= 1e-4, "\(label)")
        #expect(sameBitsAtAnyThreadCount(shape: expected.shape) { conv.run(input: input, output: $0, threads: $1) }, "\(label)")
        // As a network runs it: inside a team, with the real work gate.
        for threads in [2, 3] {
            let team = Tensor(shape: expected.shape)
            Parallel.withTeam(threads: threads) { conv.run(input: input, output: team, threads: threads) }
            #expect(bitIdentical(one, team), "\(label), team of \(threads)")
        }
        // The same layer on its input cut in two along channels (a fused concat).
        let halves = [(0, cin / 2), (cin / 2, cin - cin / 2)].map { first, channels in
            let half = Tensor(shape: TensorShape(n: map.n, h: map.h, w: map.w, c: channels))
            for pixel in 0 ..< map.n * map.h * map.w {
                for c in 0 ..< channels { half.data[pixel * channels + c] = input.data[pixel * cin + first + c] }
            }
            return half
        }
        let fused = Tensor(shape: expected.shape)
        Parallel.withTeam(threads: 2) { conv.run(concatenating: halves[...], output: fused, threads: 2) }
        #expect(bitIdentical(one, fused), "\(label), concatenated inputs")
    }
}
